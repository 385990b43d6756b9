// An operation whose feature has not landed answers 501 {detail}, never a fake success.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { buildApi } from '../../src/api/build-api.js';
import { dispatchTo } from '../../src/http/dispatch.js';
import { NotImplementedError } from '../../src/http/edge-errors.js';
import { loadDocument } from '../../src/api/documents.js';
import { errorMiddleware } from '../../src/http/error-middleware.js';
import { createLogger } from '../../src/logger.js';

describe('operations without a handler', () => {
  it('answer 501 with a detail naming the operation, after authentication and validation', async () => {
    const api = await buildApi(loadDocument('engine'), {
      handlers: {},
      authenticate: async () => ({ kind: 'test' }),
      authorize: async () => {},
      notImplemented: (operationId) => new NotImplementedError(operationId),
    });
    const app = new Koa();
    app.use(errorMiddleware(createLogger('silent')));
    app.use(dispatchTo([api]));
    const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}/traces/live?limit=5`;
      const response = await fetch(url, { headers: { 'X-Vendor-App-Id': 'app_x', Authorization: 'Bearer x' } });
      expect(response.status).to.equal(501);
      expect(await response.json()).to.deep.equal({ detail: 'listLiveSpans is not implemented yet' });
      const invalid = await fetch(`http://127.0.0.1:${port}/traces/live?limit=0`, { headers: { 'X-Vendor-App-Id': 'app_x' } });
      expect(invalid.status).to.equal(422);
    } finally {
      server.close();
    }
  });
});
