// GET /organizations/{org_id}/audit-events: newest first, keyset pages by cursor (no skip, no
// repeat, also while events arrive), the filters (time range, actor, resource, operation), the
// 422s of its own rules, and who may read it (owners; members and API keys 403, others 404).
import { expect } from 'chai';
import { insertAuditEvent, type AuditEventRecord } from '../../src/storage/audit/audit-events.js';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization, seedUser } from '../support/accounts.js';
import { call } from '../support/contract.js';
import { expectStatus } from '../support/management.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const BASE = Date.parse('2026-11-20T00:00:00.000Z');

interface Listed {
  id: string;
  occurred_at: string;
  actor: { type: string; id: string | null };
  resource: { type: string; id: string };
  operation_id: string;
}

/** `count` events in `orgId`, one per minute from BASE, a few sharing a millisecond. */
async function seedEvents(app: TestServer, orgId: string, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const event: Omit<AuditEventRecord, 'id'> = {
      // Every fourth event shares its millisecond with the one before: the id breaks the tie.
      occurredAt: BASE + Math.floor(index - (index % 4 === 3 ? 1 : 0)) * 60_000,
      organizationId: orgId,
      actorType: 'user',
      actorId: index % 2 === 0 ? 'usr_even' : 'usr_odd',
      operationId: index % 3 === 0 ? 'updateOrganization' : 'updateApplication',
      resourceType: index % 3 === 0 ? 'organization' : 'application',
      resourceId: index % 3 === 0 ? orgId : `app_${index % 5}`,
      requestId: `req-${index}`,
      callerAddress: '127.0.0.1',
      outcome: 'success',
      before: { name: `n${index}` },
      after: { name: `n${index + 1}` },
    };
    await insertAuditEvent(app.server.knex, event);
  }
}

async function world(app: TestServer) {
  const owner = await seedUser(app, 'owner');
  const member = await seedUser(app, 'member');
  const orgId = await seedOrganization(app.server.knex, [
    [owner.userId, 'owner'],
    [member.userId, 'member'],
  ]);
  return { owner, member, orgId };
}

async function list(app: TestServer, token: string, orgId: string, query: Record<string, string | number> = {}) {
  return call(app.url, 'GET', `/organizations/${orgId}/audit-events`, { token, query });
}

/** Every event, page by page along next_cursor. */
async function walk(
  app: TestServer,
  token: string,
  orgId: string,
  query: Record<string, string | number>,
  between?: () => Promise<void>,
): Promise<Listed[]> {
  const seen: Listed[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages += 1) {
    const response = await list(app, token, orgId, { ...query, ...(cursor ? { cursor } : {}) });
    expectStatus(response, 200);
    seen.push(...response.body.data);
    cursor = response.body.next_cursor;
    if (cursor === null) return seen;
    await between?.();
  }
  throw new Error('no last page after 100 pages');
}

function isNewestFirst(events: Listed[]): boolean {
  return events.every(
    (event, index) => index === 0 || [events[index - 1].occurred_at, events[index - 1].id] > [event.occurred_at, event.id],
  );
}

onEachDatabase('audit events list', (app) => {
  it('lists newest first, and a cursor walk sees every event once, also while new ones arrive', async () => {
    const { owner, orgId } = await world(app());
    await seedEvents(app(), orgId, 23);
    const all = (await list(app(), owner.token, orgId, { limit: 100 })).body.data as Listed[];
    expect(all).to.have.length(23);
    expect(isNewestFirst(all)).to.equal(true);
    // A change made during the walk is newer than every page read: the walk neither repeats nor skips.
    let changes = 0;
    const walked = await walk(app(), owner.token, orgId, { limit: 4 }, async () => {
      changes += 1;
      expectStatus(
        await call(app().url, 'PATCH', `/organizations/${orgId}`, { token: owner.token, json: { name: `Renamed ${changes}` } }),
        200,
      );
    });
    expect(walked.map((event) => event.id)).to.deep.equal(all.map((event) => event.id));
  });

  it('filters by time range, actor, resource and operation, together with a cursor', async () => {
    const { owner, orgId } = await world(app());
    await seedEvents(app(), orgId, 30);
    const all = (await list(app(), owner.token, orgId, { limit: 100 })).body.data as Listed[];
    const check = async (query: Record<string, string>, keep: (event: Listed) => boolean) => {
      const expected = all.filter(keep).map((event) => event.id);
      expect(expected.length, JSON.stringify(query)).to.be.greaterThan(0);
      const walked = await walk(app(), owner.token, orgId, { ...query, limit: 3 });
      expect(
        walked.map((event) => event.id),
        JSON.stringify(query),
      ).to.deep.equal(expected);
    };
    const start = new Date(BASE + 5 * 60_000).toISOString();
    const end = new Date(BASE + 12 * 60_000).toISOString();
    await check({ start_time: start, end_time: end }, (event) => event.occurred_at >= start && event.occurred_at < end);
    await check({ start_time: start }, (event) => event.occurred_at >= start);
    await check({ end_time: end }, (event) => event.occurred_at < end);
    await check({ actor_id: 'usr_odd' }, (event) => event.actor.id === 'usr_odd');
    await check({ resource_type: 'application' }, (event) => event.resource.type === 'application');
    await check({ resource_id: 'app_2' }, (event) => event.resource.id === 'app_2');
    await check(
      { resource_type: 'application', resource_id: 'app_3' },
      (event) => event.resource.type === 'application' && event.resource.id === 'app_3',
    );
    await check(
      { operation_id: 'updateOrganization', actor_id: 'usr_even' },
      (event) => event.operation_id === 'updateOrganization' && event.actor.id === 'usr_even',
    );
    // A time bound finer than a millisecond: [start, end) to the nanosecond.
    const at = all[all.length - 2].occurred_at;
    const justAfter = at.replace('Z', '').replace(/(\.\d{3})$/, '$1000001Z');
    await check({ end_time: justAfter }, (event) => event.occurred_at <= at);
    expect(
      (await list(app(), owner.token, orgId, { start_time: justAfter, end_time: justAfter.replace('0001Z', '0002Z') })).body.data,
    ).to.deep.equal([]);
  });

  it('answers 422 to an empty window and to a cursor of another query', async () => {
    const { owner, orgId } = await world(app());
    await seedEvents(app(), orgId, 5);
    const empty = await list(app(), owner.token, orgId, { start_time: '2026-11-21T00:00:00Z', end_time: '2026-11-21T00:00:00Z' });
    expectStatus(empty, 422);
    expect(empty.body.detail[0].loc).to.deep.equal(['query', 'end_time']);
    const first = await list(app(), owner.token, orgId, { limit: 2 });
    const other = await list(app(), owner.token, orgId, { limit: 2, actor_id: 'usr_odd', cursor: first.body.next_cursor });
    expectStatus(other, 422);
    expect(other.body.detail[0].loc).to.deep.equal(['query', 'cursor']);
    expectStatus(await list(app(), owner.token, orgId, { resource_type: 'spaceship' }), 422);
  });

  it('is for owners: a member and an API key get 403, an owner of another organization 404', async () => {
    const { member, orgId } = await world(app());
    const appId = await seedApplication(app().server.knex, orgId);
    const key = await apiKeyToken(app(), await seedApiKey(app().server.knex, appId, ['read:organizations']));
    expectStatus(await list(app(), member.token, orgId), 403);
    expectStatus(await list(app(), key, orgId), 403);
    const stranger = await world(app());
    expectStatus(await list(app(), stranger.owner.token, orgId), 404);
    expectStatus(await list(app(), stranger.owner.token, 'org_doesnotexist00'), 404);
  });

  it('offers no way to change or delete an event', async () => {
    const { owner, orgId } = await world(app());
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await fetch(new URL(`/organizations/${orgId}/audit-events`, app().url), {
        method,
        headers: { authorization: `Bearer ${owner.token}` },
      });
      expect(response.status, method).to.equal(405);
    }
  });
});
