// A page number far past the end, up to what fits no 64-bit offset, is an empty page on every
// list: never a 500 from an offset the database cannot take.
import { expect } from 'chai';
import { engineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { callerFor, createOrganization, dashboardUser } from '../support/management.js';
import { onEachDatabase } from '../support/test-server.js';

const WINDOW = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };
const FAR_PAGES = ['1000000000', '9007199254740993', '99999999999999999999999'];

onEachDatabase('pages far past the end', (app) => {
  it('answers an empty page on the engine lists', async () => {
    const caller = await engineCaller(app());
    for (const page of FAR_PAGES) {
      for (const [method, path, json] of [
        ['POST', '/engine/query', {}],
        ['POST', '/traces', {}],
        ['GET', '/traces/live', undefined],
      ] as const) {
        const response = await call(app().url, method, path, { query: { ...WINDOW, page, limit: 100 }, headers: caller.headers, json });
        expect(response.status, `${path} page ${page}: ${response.text}`).to.equal(200);
        expect(response.body.data, `${path} page ${page}`).to.deep.equal([]);
      }
    }
  });

  it('answers an empty page on the management lists', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Paula')).token);
    const orgId = await createOrganization(as);
    for (const page of FAR_PAGES) {
      for (const path of ['/organizations', `/organizations/${orgId}/members`]) {
        const response = await as('GET', path, { query: { page, limit: 100 } });
        expect(response.status, `${path} page ${page}: ${response.text}`).to.equal(200);
      }
    }
  });
});
