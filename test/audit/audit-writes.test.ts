// The audit log's promise for every management write (docs/audit-log.md), with the writes read
// from the management document itself as the permission matrix reads them (so a new write cannot
// escape): each leaves exactly one event with the right actor, operation and resource, and no
// secret or secret hash; a write that fails leaves no event and no change; an event that cannot be
// written rolls its change back; a token exchange refused for a wrong secret is a failure event.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { hashSecret } from '../../src/accounts/secrets.js';
import { loadDocument } from '../../src/api/documents.js';
import {
  apiKeyToken,
  seedApiKey,
  seedApplication,
  seedBudget,
  seedOrganization,
  seedPriceEntry,
  seedRepricingJob,
  seedUser,
  seedWebhookEndpoint,
  type SeededKey,
} from '../support/accounts.js';
import { call, documentOperations, type DocumentOperation } from '../support/contract.js';
import { buildRequest, type ResourceIds } from '../support/operation-requests.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';
import { exchange, expectStatus } from '../support/management.js';

const managementOperationIds = new Set(
  Object.values(loadDocument('management').definition.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
    Object.values(item).map((operation) => operation?.operationId),
  ),
);
const writes = (await documentOperations()).filter(
  (entry) => managementOperationIds.has(entry.operationId) && entry.method !== 'GET' && entry.operationId !== 'createAccessToken',
);

interface World {
  ids: ResourceIds;
  owner: string;
  ownerId: string;
  member: string;
  key: SeededKey;
}

/** A fresh organization (owner, member, application, key, price entry), seeded through storage: it has no events. */
async function seedWorld(app: TestServer, withApplication = true): Promise<World> {
  const owner = await seedUser(app, 'owner');
  const member = await seedUser(app, 'member');
  const orgId = await seedOrganization(app.server.knex, [
    [owner.userId, 'owner'],
    [member.userId, 'member'],
  ]);
  const appId = withApplication ? await seedApplication(app.server.knex, orgId) : 'app_none';
  const key = withApplication
    ? await seedApiKey(app.server.knex, appId, ['read:traces', 'write:traces'])
    : { apiKey: 'ak_none', secret: 'as_none' };
  const priceEntryId = await seedPriceEntry(app.server.knex, orgId);
  const jobId = withApplication ? await seedRepricingJob(app.server.knex, appId) : undefined;
  const webhookEndpointId = await seedWebhookEndpoint(app.server.knex, orgId);
  const budgetId = await seedBudget(app.server.knex, orgId);
  return {
    ids: { orgId, appId, apiKey: key.apiKey, userId: member.userId, priceEntryId, jobId, webhookEndpointId, budgetId },
    owner: owner.token,
    ownerId: owner.userId,
    member: member.token,
    key: key as SeededKey,
  };
}

interface EventRow {
  organization_id: string | null;
  actor_type: string;
  actor_id: string | null;
  operation_id: string;
  resource_type: string;
  resource_id: string;
  request_id: string | null;
  caller_address: string | null;
  outcome: string;
  changes: string;
}

async function eventsOf(knex: Knex, where: Partial<EventRow>): Promise<EventRow[]> {
  return (await knex('audit_events')
    .where(where)
    .orderBy([{ column: 'occurred_at' }, { column: 'id' }])) as EventRow[];
}

/** The resource a write touches: [organization, type, id], from the seeded ids and its answer. */
function expectedResource(
  operationId: string,
  ids: ResourceIds,
  body: Record<string, string>,
  ownerId: string,
): [string | null, string, string] {
  switch (operationId) {
    case 'createOrganization':
      return [body.id, 'organization', body.id];
    case 'updateOrganization':
    case 'deleteOrganization':
      return [ids.orgId, 'organization', ids.orgId];
    case 'addMember':
      return [ids.orgId, 'member', body.user_id];
    case 'updateMember':
    case 'removeMember':
      return [ids.orgId, 'member', ids.userId];
    case 'createApplication':
      return [ids.orgId, 'application', body.id];
    case 'updateApplication':
    case 'deleteApplication':
      return [ids.orgId, 'application', ids.appId];
    case 'createApiKey':
      return [ids.orgId, 'api_key', body.api_key];
    case 'updateApiKey':
    case 'rotateApiKeySecret':
    case 'deleteApiKey':
      return [ids.orgId, 'api_key', ids.apiKey];
    case 'updateCurrentUser':
      return [null, 'user', ownerId];
    case 'createPriceEntry':
      return [ids.orgId, 'price_entry', body.id];
    case 'updatePriceEntry':
    case 'deletePriceEntry':
      return [ids.orgId, 'price_entry', ids.priceEntryId as string];
    case 'createRepricingJob':
      return [ids.orgId, 'repricing_job', body.id];
    case 'cancelRepricingJob':
      return [ids.orgId, 'repricing_job', ids.jobId as string];
    case 'createWebhookEndpoint':
      return [ids.orgId, 'webhook_endpoint', body.id];
    case 'updateWebhookEndpoint':
    case 'deleteWebhookEndpoint':
    case 'rotateWebhookEndpointSecret':
    case 'sendTestWebhookEvent':
      return [ids.orgId, 'webhook_endpoint', ids.webhookEndpointId as string];
    case 'createBudget':
      return [ids.orgId, 'budget', body.id];
    case 'updateBudget':
    case 'deleteBudget':
      return [ids.orgId, 'budget', ids.budgetId as string];
    default:
      throw new Error(`no expectation for ${operationId}: add one (a new management write must be audited)`);
  }
}

/** Every text a secret leaves behind that an event must not hold. */
function secretTraces(secrets: string[]): string[] {
  return secrets.flatMap((secret) => [secret, hashSecret(secret)]);
}

async function send(app: TestServer, entry: DocumentOperation, ids: ResourceIds, token: string, requestId: string) {
  const request = buildRequest(entry, ids);
  return call(app.url, request.method, request.path, {
    ...request.options,
    token,
    headers: { ...request.options.headers, 'x-request-id': requestId },
  });
}

onEachDatabase('audit events of management writes', (app) => {
  it('finds the management writes in the document', () => {
    expect(writes.map((entry) => entry.operationId)).to.include.members([
      'createOrganization',
      'updateOrganization',
      'deleteOrganization',
      'addMember',
      'updateMember',
      'removeMember',
      'createApplication',
      'updateApplication',
      'deleteApplication',
      'createApiKey',
      'updateApiKey',
      'rotateApiKeySecret',
      'deleteApiKey',
      'updateCurrentUser',
      'createPriceEntry',
      'updatePriceEntry',
      'deletePriceEntry',
      'createRepricingJob',
      'cancelRepricingJob',
      'createWebhookEndpoint',
      'updateWebhookEndpoint',
      'deleteWebhookEndpoint',
      'rotateWebhookEndpointSecret',
      'sendTestWebhookEvent',
      'createBudget',
      'updateBudget',
      'deleteBudget',
    ]);
  });

  for (const entry of writes) {
    it(`${entry.operationId}: exactly one event, with the right actor, operation and resource, and no secret`, async () => {
      // An organization is deleted only without applications (else 400).
      const world = await seedWorld(app(), entry.operationId !== 'deleteOrganization');
      const requestId = `audit-${entry.operationId}-${Date.now()}`;
      const response = await send(app(), entry, world.ids, world.owner, requestId);
      expect(response.status, response.text).to.be.oneOf([200, 201, 202, 204]);
      const [organizationId, resourceType, resourceId] = expectedResource(entry.operationId, world.ids, response.body, world.ownerId);
      const events = await eventsOf(app().server.knex, { request_id: requestId });
      expect(events).to.have.length(1);
      const [event] = events;
      expect(event).to.include({
        organization_id: organizationId,
        actor_type: 'user',
        actor_id: world.ownerId,
        operation_id: entry.operationId,
        resource_type: resourceType,
        resource_id: resourceId,
        outcome: 'success',
      });
      expect(event.caller_address).to.be.a('string').and.not.be.empty;
      const changes = JSON.parse(event.changes) as { before: unknown; after: unknown };
      expect(changes).to.have.keys('before', 'after');
      // The seeded key's secret, and any secret this answer carried (create and rotate).
      const secrets = [world.key.secret, ...(typeof response.body?.api_secret === 'string' ? [response.body.api_secret] : [])];
      const everything = JSON.stringify(await app().server.knex('audit_events').select());
      for (const trace of secretTraces(secrets)) expect(everything).not.to.include(trace);
      if (organizationId !== null) {
        // The organization's owner reads it in the list (the organization deleted: the row is there, the list 404s).
        if (entry.operationId === 'deleteOrganization') return;
        const listed = await call(app().url, 'GET', `/organizations/${organizationId}/audit-events`, { token: world.owner });
        expectStatus(listed, 200);
        expect(listed.body.data.map((item: { request_id: string }) => item.request_id)).to.include(requestId);
      }
    });
  }

  it('shows an update as the changed fields only, before and after', async () => {
    const world = await seedWorld(app());
    const requestId = `audit-update-${Date.now()}`;
    const response = await call(app().url, 'PATCH', `/api-keys/${world.ids.apiKey}`, {
      token: world.owner,
      json: { name: 'renamed' },
      headers: { 'x-request-id': requestId },
    });
    expectStatus(response, 200);
    const [event] = await eventsOf(app().server.knex, { request_id: requestId });
    const changes = JSON.parse(event.changes) as { before: Record<string, unknown>; after: Record<string, unknown> };
    expect(changes.after).to.deep.equal({ name: 'renamed' });
    expect(Object.keys(changes.before)).to.deep.equal(['name']);
    expect(changes.before.name).to.be.a('string').and.not.equal('renamed');
  });

  it('shows a price entry update as the changed fields only, with times as the API shows them', async () => {
    const world = await seedWorld(app());
    const requestId = `audit-price-${Date.now()}`;
    const response = await call(app().url, 'PATCH', `/organizations/${world.ids.orgId}/price-entries/${world.ids.priceEntryId}`, {
      token: world.owner,
      json: { input_price: 0.5, valid_to: '2027-01-01T00:00:00Z' },
      headers: { 'x-request-id': requestId },
    });
    expectStatus(response, 200);
    const [event] = await eventsOf(app().server.knex, { request_id: requestId });
    expect(JSON.parse(event.changes)).to.deep.equal({
      before: { input_price: 1, valid_to: null },
      after: { input_price: 0.5, valid_to: '2027-01-01T00:00:00.000Z' },
    });
  });

  it('shows a rotation as the next secret generation, never the secret', async () => {
    const world = await seedWorld(app());
    const requestId = `audit-rotate-${Date.now()}`;
    const response = await call(app().url, 'POST', `/api-keys/${world.ids.apiKey}/rotate-secret`, {
      token: world.owner,
      headers: { 'x-request-id': requestId },
    });
    expectStatus(response, 200);
    const [event] = await eventsOf(app().server.knex, { request_id: requestId });
    expect(JSON.parse(event.changes)).to.deep.equal({ before: { secret_generation: 1 }, after: { secret_generation: 2 } });
    expect(event.changes).not.to.include(response.body.api_secret);
  });

  it('records an API key caller as the actor', async () => {
    const world = await seedWorld(app());
    const key = await seedApiKey(app().server.knex, world.ids.appId, ['update:applications']);
    const token = await apiKeyToken(app(), key);
    const requestId = `audit-key-${Date.now()}`;
    const response = await call(app().url, 'PATCH', `/applications/${world.ids.appId}`, {
      token,
      json: { name: 'Renamed by key' },
      headers: { 'x-request-id': requestId },
    });
    expectStatus(response, 200);
    const events = await eventsOf(app().server.knex, { request_id: requestId });
    expect(events).to.have.length(1);
    expect(events[0]).to.include({
      actor_type: 'api_key',
      actor_id: key.apiKey,
      operation_id: 'updateApplication',
      resource_id: world.ids.appId,
    });
  });

  describe('writes that fail leave no event and no change', () => {
    const cases: Array<{ title: string; run: (world: World) => Promise<number> }> = [
      {
        title: 'a member updating the organization (403)',
        run: async (world) =>
          (await call(app().url, 'PATCH', `/organizations/${world.ids.orgId}`, { token: world.member, json: { name: 'Hijacked' } })).status,
      },
      {
        title: 'deleting an organization that still has an application (400)',
        run: async (world) => (await call(app().url, 'DELETE', `/organizations/${world.ids.orgId}`, { token: world.owner })).status,
      },
      {
        title: 'demoting the last owner (409)',
        run: async (world) => {
          const me = await call(app().url, 'GET', '/users/me', { token: world.owner });
          return (
            await call(app().url, 'PATCH', `/organizations/${world.ids.orgId}/members/${me.body.id}`, {
              token: world.owner,
              json: { role: 'member' },
            })
          ).status;
        },
      },
      {
        title: 'an invalid application update (422)',
        run: async (world) =>
          (await call(app().url, 'PATCH', `/applications/${world.ids.appId}`, { token: world.owner, json: { retention_days: 0 } })).status,
      },
      {
        title: 'a member re-pricing an application (403)',
        run: async (world) =>
          (
            await call(app().url, 'POST', `/applications/${world.ids.appId}/repricing-jobs`, {
              token: world.member,
              json: { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' },
            })
          ).status,
      },
      {
        title: 'a re-pricing job overlapping a running one (409)',
        run: async (world) =>
          (
            await call(app().url, 'POST', `/applications/${world.ids.appId}/repricing-jobs`, {
              token: world.owner,
              json: { from: '2026-09-30T00:00:00Z', to: '2026-10-01T00:00:01Z' },
            })
          ).status,
      },
      {
        title: 'a price entry overlapping another of the same provider and model (422)',
        run: async (world) =>
          (
            await call(app().url, 'POST', `/organizations/${world.ids.orgId}/price-entries`, {
              token: world.owner,
              json: { model: 'SEED-MODEL', input_price: 1, output_price: 1, currency: 'USD', valid_from: '2026-01-01T00:00:00Z' },
            })
          ).status,
      },
      {
        title: 'a key of an application that does not exist (404)',
        run: async (world) =>
          (
            await call(app().url, 'POST', '/api-keys', {
              token: world.owner,
              json: { app_id: 'app_missing0000', name: 'k', permissions: ['read:traces'] },
            })
          ).status,
      },
    ];
    for (const { title, run } of cases) {
      it(title, async () => {
        const world = await seedWorld(app());
        const before = await snapshot(app().server.knex, world);
        const status = await run(world);
        expect(status).to.be.within(400, 499);
        expect(await eventsOf(app().server.knex, { organization_id: world.ids.orgId })).to.deep.equal([]);
        expect(await snapshot(app().server.knex, world)).to.deep.equal(before);
      });
    }
  });

  it('rolls the change back when its event cannot be written (500, nothing changed)', async () => {
    // The DB-level trick: the table is renamed away for the one request, so the event insert fails
    // inside the change's transaction, after the change's own UPDATE ran.
    const world = await seedWorld(app());
    const knex = app().server.knex;
    const before = await snapshot(knex, world);
    await knex.schema.renameTable('audit_events', 'audit_events_hidden');
    let status: number;
    try {
      // Plain fetch: a 500 is no status of the document, which call() would refuse.
      const response = await fetch(new URL(`/organizations/${world.ids.orgId}`, app().url), {
        method: 'PATCH',
        headers: { authorization: `Bearer ${world.owner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Never stored' }),
      });
      status = response.status;
    } finally {
      await knex.schema.renameTable('audit_events_hidden', 'audit_events');
    }
    expect(status).to.equal(500);
    expect(await snapshot(knex, world)).to.deep.equal(before);
    expect(await eventsOf(knex, { organization_id: world.ids.orgId })).to.deep.equal([]);
  });

  it('records a token exchange refused for a wrong secret as a failure of the key, in its organization', async () => {
    const world = await seedWorld(app());
    const wrong = `as_${'x'.repeat(43)}`;
    const refused = await exchange(app(), world.ids.apiKey, wrong);
    expect(refused.status).to.equal(401);
    const events = await eventsOf(app().server.knex, { organization_id: world.ids.orgId });
    expect(events).to.have.length(1);
    expect(events[0]).to.include({
      actor_type: 'api_key',
      actor_id: world.ids.apiKey,
      operation_id: 'createAccessToken',
      resource_type: 'api_key',
      resource_id: world.ids.apiKey,
      outcome: 'failure',
    });
    expect(JSON.stringify(events)).not.to.include(wrong);
    expect(JSON.stringify(events)).not.to.include(hashSecret(wrong));
    // A successful exchange, and one for a key that does not exist, record nothing.
    expectStatus(await exchange(app(), world.ids.apiKey, world.key.secret), 200);
    expect((await exchange(app(), 'ak_doesnotexist0000', wrong)).status).to.equal(401);
    expect(await eventsOf(app().server.knex, { organization_id: world.ids.orgId })).to.have.length(1);
    expect(await eventsOf(app().server.knex, { resource_id: 'ak_doesnotexist0000' })).to.deep.equal([]);
  });
});

/** What a failed write could have touched: the organization, its members, applications, keys, price entries and re-pricing jobs. */
async function snapshot(knex: Knex, world: World): Promise<unknown> {
  return {
    priceEntries: await knex('price_entries').where({ organization_id: world.ids.orgId }).orderBy('id'),
    organization: await knex('organizations').where({ id: world.ids.orgId }).first(),
    members: await knex('memberships').where({ organization_id: world.ids.orgId }).orderBy('user_id'),
    applications: await knex('applications').where({ organization_id: world.ids.orgId }).orderBy('id'),
    keys: await knex('api_keys').where({ application_id: world.ids.appId }).orderBy('id'),
    repricingJobs: await knex('repricing_jobs').where({ application_id: world.ids.appId }).orderBy('id'),
  };
}
