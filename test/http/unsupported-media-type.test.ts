// A request body that is present but not of a type the operation declares is refused with 415
// (naming the accepted types), never ignored: a filter sent as text/plain used to be dropped and
// the query answered every span of the window. Checked on every operation with a JSON body.
import { expect } from 'chai';
import { seedOwnedResources } from '../support/accounts.js';
import { engineCaller } from '../support/auth.js';
import { call, documentOperations } from '../support/contract.js';
import { buildRequest, type ResourceIds } from '../support/operation-requests.js';
import { onEachDatabase } from '../support/test-server.js';

const WINDOW = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };

const jsonBodyOperations = (await documentOperations()).filter(({ operation, operationId }) => {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  return 'application/json' in content && operationId !== 'createAccessToken'; // OAuth's own errors: test/auth/token-request-errors.test.ts
});

const WRONG_TYPES: Array<[string, Record<string, string>]> = [
  ['text/plain', { 'content-type': 'text/plain' }],
  ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['no Content-Type at all', {}],
];

onEachDatabase('415 Unsupported Media Type', (app) => {
  let ids: ResourceIds;
  let token: string;
  before(async () => {
    ({ ids, token } = await seedOwnedResources(app()));
  });

  it('covers the JSON bodies of both documents', () => {
    expect(jsonBodyOperations.map(({ operationId }) => operationId)).to.include.members([
      'querySpans',
      'listTraces',
      'getTraceMetrics',
      'createOrganization',
      'updateApplication',
      'updateCurrentUser',
    ]);
  });

  for (const entry of jsonBodyOperations) {
    it(`${entry.operationId}: refuses a body that is not JSON with 415 naming the accepted types`, async () => {
      const request = buildRequest(entry, ids);
      const declared = Object.keys((entry.operation.requestBody as { content: Record<string, unknown> }).content);
      for (const [name, headers] of WRONG_TYPES) {
        const { json, ...options } = request.options;
        const rawBody = JSON.stringify(json ?? {});
        const response = await call(app().url, request.method, request.path, {
          ...options,
          headers: { ...options.headers, ...headers },
          rawBody: new TextEncoder().encode(rawBody),
          token,
        });
        expect(response.status, `${name}: ${response.text}`).to.equal(415);
        for (const type of declared) expect(response.body.detail, name).to.include(type);
        if (request.method === 'POST') expect(response.headers.get('accept-post'), name).to.equal(declared.join(', '));
        if (request.method === 'PATCH') expect(response.headers.get('accept-patch'), name).to.equal(declared.join(', '));
      }
    });
  }

  it('never drops a filter sent as text/plain on the engine queries', async () => {
    const caller = await engineCaller(app());
    const nothing = { filter: { field: 'span_name', op: 'eq', value: 'no span is called this' } };
    for (const path of ['/engine/query', '/traces', '/engine/metrics']) {
      const response = await call(app().url, 'POST', path, {
        query: WINDOW,
        headers: { ...caller.headers, 'content-type': 'text/plain;charset=utf-8' },
        rawBody: JSON.stringify(nothing),
      });
      expect(response.status, `${path}: ${response.text}`).to.equal(415);
      expect(response.body.detail).to.include('application/json');
    }
  });

  it('still accepts JSON with a charset, and an empty body without Content-Type where the body is optional', async () => {
    const caller = await engineCaller(app());
    const withCharset = await call(app().url, 'POST', '/engine/query', {
      query: WINDOW,
      headers: { ...caller.headers, 'content-type': 'application/json; charset=utf-8' },
      rawBody: '{}',
    });
    expect(withCharset.status, withCharset.text).to.equal(200);
    for (const path of ['/engine/query', '/traces', '/engine/metrics']) {
      const empty = await call(app().url, 'POST', path, { query: WINDOW, headers: caller.headers });
      expect(empty.status, `${path}: ${empty.text}`).to.equal(200);
    }
  });
});
