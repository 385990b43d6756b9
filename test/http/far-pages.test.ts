// A page number far past the end, up to the documents' bound of 2^53 − 1, is an empty page on
// every list: never a 500 from an offset the database cannot take, and never rows from an offset
// that wrapped or was misread. Every list holds rows, so that a wrong offset shows. Past the
// bound (a page no double holds exactly), a 422 at the parameter.
import { expect } from 'chai';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
} from '../support/management.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const WINDOW = { start_time: '2025-11-22T00:00:00Z', end_time: '2025-11-23T00:00:00Z' };
const START = 1_763_800_000_000_000_000n; // 2025-11-22T08:26:40Z, inside WINDOW
// Offsets around 2^53 (past exact doubles) with the limits below, up to the largest page.
const FAR_PAGES = ['1000000000', '90071992547410', '9007199254740991'];
// Past the largest page: around 2^53, 2^63 (past SQLite's and MariaDB's signed offsets) and 2^64.
const REFUSED_PAGES = [
  '9007199254740992',
  '9007199254740993',
  '92233720368547758',
  '9223372036854775808',
  '18446744073709551616',
  '99999999999999999999999',
];
const LIMITS = Array.from({ length: 100 }, (_, index) => index + 1);

onEachDatabase('pages far past the end', (app) => {
  it('answers an empty page on the engine lists, with every limit, and refuses a page past 2^53 − 1', async () => {
    const caller = await engineCaller(app());
    const spans = [1n, 2n, 3n].map((n) =>
      spanRow({
        application_id: caller.appId,
        trace_id: n.toString(16).padStart(32, '0'),
        span_id: n.toString(16).padStart(16, '0'),
        start_time_unix_nano: (START + n).toString(),
      }),
    );
    await storeSpans(app().server.knex, spans);
    const lists = [
      ['POST', '/engine/query', WINDOW, {}],
      ['POST', '/traces', WINDOW, {}],
      ['GET', '/traces/live', WINDOW, undefined],
      ['GET', '/traces/live', {}, undefined],
    ] as const;
    for (const [method, path, window, json] of lists) {
      const first = await call(app().url, method, path, { query: { ...window, limit: 100 }, headers: caller.headers, json });
      expect(first.body.data, `${path} page 1`).to.have.length(3);
    }
    for (const page of FAR_PAGES) {
      for (const limit of LIMITS) {
        for (const [method, path, window, json] of lists) {
          const response = await call(app().url, method, path, { query: { ...window, page, limit }, headers: caller.headers, json });
          expect(response.status, `${path} page ${page} limit ${limit}: ${response.text}`).to.equal(200);
          expect(response.body.data, `${path} page ${page} limit ${limit}`).to.deep.equal([]);
        }
      }
    }
    for (const page of REFUSED_PAGES) {
      for (const [method, path, window, json] of lists) {
        const response = await call(app().url, method, path, { query: { ...window, page }, headers: caller.headers, json });
        expect([response.status, response.body.detail?.[0]?.loc], `${path} page ${page}: ${response.text}`).to.deep.equal([
          422,
          ['query', 'page'],
        ]);
      }
    }
  });

  it('answers an empty page on the management lists, with every limit, and refuses a page past 2^53 − 1', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Paula')).token);
    const orgId = await createOrganization(as);
    await createOrganization(as, 'Second');
    const appId = await createApplication(as, orgId);
    await createApplication(as, orgId);
    const { apiKey, secret } = await createApiKey(as, appId, ['read:organizations']);
    await createApiKey(as, appId);
    expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email: 'quinn@example.com' } }), 201);
    const asKey = callerFor(app(), await keyToken(app(), apiKey, secret));
    const lists = [
      [as, '/organizations', {}, 'organizations'],
      [asKey, '/organizations', {}, 'organizations'],
      [as, `/organizations/${orgId}/members`, {}, 'data'],
      [as, '/applications', { organization_id: orgId }, 'data'],
      [as, '/api-keys', { app_id: appId }, 'data'],
    ] as const;
    for (const [caller, path, query, items] of lists) {
      const first = await caller('GET', path, { query: { ...query, limit: 100 } });
      expectStatus(first, 200);
      expect(first.body[items], `${path} page 1`).to.not.be.empty;
    }
    for (const page of FAR_PAGES) {
      for (const limit of LIMITS) {
        for (const [caller, path, query, items] of lists) {
          const response = await caller('GET', path, { query: { ...query, page, limit } });
          expect(response.status, `${path} page ${page} limit ${limit}: ${response.text}`).to.equal(200);
          expect(response.body[items], `${path} page ${page} limit ${limit}`).to.deep.equal([]);
        }
      }
    }
    for (const page of REFUSED_PAGES) {
      for (const [caller, path, query] of lists) {
        const response = await caller('GET', path, { query: { ...query, page } });
        expect([response.status, response.body.detail?.[0]?.loc], `${path} page ${page}: ${response.text}`).to.deep.equal([
          422,
          ['query', 'page'],
        ]);
      }
    }
  });
});
