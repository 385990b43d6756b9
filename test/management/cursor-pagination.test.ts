// Keyset cursors of the management lists (organizations, members, applications, API keys) over
// HTTP on every database: a cursor walk equals the page walk, next_cursor is null on the last
// page, a walk while items are created neither skips nor repeats one, and a cursor is bound to
// its operation, caller and query (a 422 at ["query", "cursor"] otherwise, and with `page`).
import { expect } from 'chai';
import type { ApiResponse } from '../support/contract.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  expectStatus,
  type Caller,
} from '../support/management.js';
import { onEachDatabase } from '../support/test-server.js';

interface ManagementList {
  path: string;
  items: (body: Record<string, unknown>) => Array<{ id?: string; user_id?: string }>;
  query?: Record<string, string>;
}

onEachDatabase('cursor pagination of the management lists', (app) => {
  let as: Caller;
  let orgId: string;
  let appId: string;
  const lists: Record<string, ManagementList> = {};

  const idsOf = (list: ManagementList, body: Record<string, unknown>) => list.items(body).map((item) => item.id ?? item.user_id ?? '');
  const read = (list: ManagementList, query: Record<string, string | number>, caller: Caller = as): Promise<ApiResponse> =>
    caller('GET', list.path, { query: { ...list.query, ...query } });

  async function cursorWalk(list: ManagementList, limit: number, between: () => Promise<void> = async () => {}): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 1; page < 100; page += 1) {
      const response = await read(list, cursor === null ? { limit } : { limit, cursor });
      expectStatus(response, 200);
      expect(response.body.pagination.page).to.equal(page);
      ids.push(...idsOf(list, response.body));
      cursor = response.body.next_cursor;
      if (cursor === null) return ids;
      await between();
    }
    throw new Error('the walk did not end');
  }

  before(async () => {
    const owner = await dashboardUser(app(), 'Owner');
    as = callerFor(app(), owner.token);
    orgId = await createOrganization(as, 'Org 0');
    for (let index = 1; index < 6; index += 1) await createOrganization(as, `Org ${index}`);
    appId = await createApplication(as, orgId, { name: 'App 0' });
    for (let index = 1; index < 6; index += 1)
      await createApplication(as, orgId, { name: `App ${index}`, region: index % 2 === 0 ? 'EU' : 'US' });
    for (let index = 0; index < 6; index += 1) await createApiKey(as, appId);
    for (let index = 0; index < 5; index += 1) {
      const member = await dashboardUser(app(), `Member${index}`);
      expectStatus(await callerFor(app(), member.token)('GET', '/users/me'), 200);
      expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email: member.email } }), 201);
    }
    lists.listOrganizations = { path: '/organizations', items: (body) => body.organizations as Array<{ id: string }> };
    lists.listMembers = { path: `/organizations/${orgId}/members`, items: (body) => body.data as Array<{ user_id: string }> };
    lists.listApplications = { path: '/applications', items: (body) => body.data as Array<{ id: string }> };
    lists.listApiKeys = { path: '/api-keys', query: { app_id: appId }, items: (body) => body.data as Array<{ id: string }> };
  });

  for (const operation of ['listOrganizations', 'listMembers', 'listApplications', 'listApiKeys']) {
    describe(operation, () => {
      it('walks by cursor exactly as by page, with next_cursor null on the last page', async () => {
        const list = lists[operation] as ManagementList;
        const whole = await read(list, { limit: 100 });
        expect(whole.body.next_cursor).to.equal(null);
        const all = idsOf(list, whole.body);
        // Six of each, and the applications the walk below creates when it ran first.
        expect(all.length).to.be.at.least(6);
        for (const limit of [1, 2, 4, all.length]) expect(await cursorWalk(list, limit)).to.deep.equal(all);
        const lastPage = Math.ceil(all.length / 2);
        expect((await read(list, { limit: 2, page: lastPage })).body.next_cursor).to.equal(null);
        expect((await read(list, { limit: 2, page: lastPage - 1 })).body.next_cursor).to.be.a('string');
      });

      it('is a 422 at ["query", "cursor"] for a cursor of another query, operation or caller, a malformed one, and one with page', async () => {
        const list = lists[operation] as ManagementList;
        const cursor = (await read(list, { limit: 2 })).body.next_cursor as string;
        expectStatus(await read(list, { limit: 2, cursor }), 200);
        const stranger = callerFor(app(), (await dashboardUser(app(), 'Stranger')).token);
        const refused: Array<[string, Promise<ApiResponse>]> = [
          ['malformed', read(list, { limit: 2, cursor: 'bm90IGEgY3Vyc29y' })],
          ['with page', read(list, { limit: 2, cursor, page: 2 })],
          ['another limit', read(list, { limit: 3, cursor })],
        ];
        for (const [other, otherList] of Object.entries(lists))
          if (other !== operation) refused.push([`from ${other}`, read(otherList, { limit: 2, cursor })]);
        if (operation === 'listOrganizations') refused.push(['another caller', read(list, { limit: 2, cursor }, stranger)]);
        if (operation === 'listApplications') refused.push(['another filter', read(list, { limit: 2, cursor, region: 'EU' })]);
        for (const [why, pending] of refused) {
          const response = await pending;
          expect(response.status, why).to.equal(422);
          expect(response.body.detail[0].loc, why).to.deep.equal(['query', 'cursor']);
        }
      });
    });
  }

  it('neither skips nor repeats an application while others are created during the walk', async () => {
    const list = lists.listApplications as ManagementList;
    const before = idsOf(list, (await read(list, { limit: 100 })).body);
    let made = 0;
    const walked = await cursorWalk(list, 2, async () => {
      made += 1;
      await createApplication(as, orgId, { name: `Later ${made}` });
    });
    expect(new Set(walked).size).to.equal(walked.length);
    expect(before.filter((id) => !walked.includes(id))).to.deep.equal([]);
  });
});
