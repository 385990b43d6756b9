// The service on a Galera node that has left the primary component (cut off, joining, a donor):
// the node accepts connections and answers every statement with 1047 "WSREP has not yet
// prepared node for application use" (test/support/failing-mysql-server.ts stands in for it).
// Every request that needs the database answers 503 with Retry-After, authentication included:
// never a 401 for credentials that could not be checked, never a 500. The same for a commit
// that failed while the node lost the cluster (1180).
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { call } from '../support/contract.js';
import { FailingMysqlServer, WSREP_NOT_READY } from '../support/failing-mysql-server.js';

describe('a database node outside its cluster', () => {
  const node = new FailingMysqlServer();
  let server: RunningServer;
  let dataDir: string;

  before(async () => {
    await node.start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-wsrep-'));
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      GRPC_PORT: 'off',
      DATA_DIR: dataDir,
      DATABASE_URL: node.url,
      MIGRATE_ON_START: 'false',
      LOG_LEVEL: 'silent',
    });
    server = await startServer(config, createLogger('silent'));
  });

  after(async () => {
    await server?.close();
    await node.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const basic = 'Basic ' + Buffer.from('ak_0123456789abcdef:secret').toString('base64');

  async function requests() {
    const userToken = await server.tokens.signUserToken({ subject: 'someone', email: 'someone@example.com', permissions: [] }, 600);
    const keyToken = await server.tokens.signApiKeyToken({
      apiKey: 'ak_0123456789abcdef',
      applicationId: 'app_1',
      organizationId: 'org_1',
      generation: 1,
    });
    return [
      ['a dashboard user token', 'GET', '/organizations', { headers: { authorization: `Bearer ${userToken}` } }],
      [
        'an API key token',
        'POST',
        '/engine/query',
        {
          headers: { authorization: `Bearer ${keyToken}`, 'x-vendor-app-id': 'app_1' },
          query: { start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-02T00:00:00Z' },
          json: {},
        },
      ],
      ['Basic credentials on ingestion', 'POST', '/v1/traces', { headers: { authorization: basic }, json: { resourceSpans: [] } }],
      ['the token exchange', 'POST', '/auth/token', { headers: { authorization: basic }, json: { grant_type: 'client_credentials' } }],
    ] as const;
  }

  for (const error of [WSREP_NOT_READY, { errno: 1180, message: 'Got error 6 "No such device or address" during COMMIT' }]) {
    it(`answers ${error.errno} with 503 and Retry-After, authentication included`, async () => {
      node.error = error;
      for (const [what, method, route, options] of await requests()) {
        const response = await call(server.url, method, route, options);
        expect(response.status, `${what}: ${response.text}`).to.equal(503);
        expect(response.headers.get('retry-after'), what).to.match(/^\d+$/);
      }
      expect((await fetch(new URL('/readyz', server.url))).status).to.equal(503);
    });
  }
});
