// One test per status code the management document declares, per operation. The operations and
// their declared codes are read from the document, so a code added there without a way to
// produce it here fails the first test. 503 is produced by a server whose database is down. The
// re-pricing worker is off, so that the fixture's job stays queued until a test runs a pass.
import { maxHeaderSize } from 'node:http';
import { expect } from 'chai';
import { loadDocument } from '../../src/api/documents.js';
import { startTestServer, onEachDatabase, type TestServer } from '../support/test-server.js';
import type { CallOptions } from '../support/contract.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  type Caller,
} from '../support/management.js';
import type { TestDatabase } from '../support/databases.js';

interface Ids {
  orgId: string;
  appId: string;
  apiKey: string;
  userId: string;
  priceEntryId: string;
  /** A queued re-pricing job of the application (the worker is off in these suites). */
  jobId: string;
  webhookEndpointId: string;
  budgetId: string;
}

interface Fixture {
  owner: Caller;
  ids: Ids;
  /** An organization without applications (deletable). */
  emptyOrgId: string;
  /** A token of an API key of the fixture's application holding only write:traces. */
  weakKeyToken: string;
}

interface Request {
  method: string;
  path: string;
  options: CallOptions;
}

const UNKNOWN: Ids = {
  orgId: 'org_unknown0',
  appId: 'app_unknown0',
  apiKey: 'ak_unknown0',
  userId: 'usr_unknown0',
  priceEntryId: 'pe_unknown0',
  jobId: 'rpj_unknown0',
  webhookEndpointId: 'whe_unknown0',
  budgetId: 'bud_unknown0',
};

/** The window of the fixture's re-pricing job. */
const JOB_WINDOW = { from: '2026-10-01T00:00:00Z', to: '2026-10-02T00:00:00Z' };

/** A request each operation answers with success, built from ids (the fixture's, or unknown ones). */
const VALID: Record<string, (ids: Ids, fixture: Fixture) => Request> = {
  createOrganization: () => ({ method: 'POST', path: '/organizations', options: { json: { name: 'Globex' } } }),
  listOrganizations: () => ({ method: 'GET', path: '/organizations', options: { query: { page: 1, limit: 5 } } }),
  getOrganization: (ids) => ({ method: 'GET', path: `/organizations/${ids.orgId}`, options: {} }),
  updateOrganization: (ids) => ({ method: 'PATCH', path: `/organizations/${ids.orgId}`, options: { json: { name: 'Globex' } } }),
  deleteOrganization: (ids, fixture) => ({
    method: 'DELETE',
    path: `/organizations/${ids === UNKNOWN ? ids.orgId : fixture.emptyOrgId}`,
    options: {},
  }),
  listMembers: (ids) => ({ method: 'GET', path: `/organizations/${ids.orgId}/members`, options: {} }),
  addMember: (ids) => ({
    method: 'POST',
    path: `/organizations/${ids.orgId}/members`,
    options: { json: { email: 'new.person@example.com' } },
  }),
  updateMember: (ids) => ({
    method: 'PATCH',
    path: `/organizations/${ids.orgId}/members/${ids.userId}`,
    options: { json: { role: 'owner' } },
  }),
  removeMember: (ids) => ({ method: 'DELETE', path: `/organizations/${ids.orgId}/members/${ids.userId}`, options: {} }),
  createApplication: (ids) => ({
    method: 'POST',
    path: '/applications',
    options: { json: { organization_id: ids.orgId, name: 'Billing', region: 'US' } },
  }),
  listApplications: (ids) => ({ method: 'GET', path: '/applications', options: { query: { organization_id: ids.orgId } } }),
  getApplication: (ids) => ({ method: 'GET', path: `/applications/${ids.appId}`, options: {} }),
  updateApplication: (ids) => ({ method: 'PATCH', path: `/applications/${ids.appId}`, options: { json: { name: 'Billing' } } }),
  deleteApplication: (ids) => ({ method: 'DELETE', path: `/applications/${ids.appId}`, options: {} }),
  getApplicationUsage: (ids) => ({
    method: 'GET',
    path: `/applications/${ids.appId}/usage`,
    options: { query: { start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-23T00:00:00Z' } },
  }),
  getApplicationSpend: (ids) => ({
    method: 'GET',
    path: `/applications/${ids.appId}/spend`,
    options: { query: { period: 'week', date: '2026-11-22', group_by: 'model' } },
  }),
  getOrganizationSpend: (ids) => ({ method: 'GET', path: `/organizations/${ids.orgId}/spend`, options: { query: { period: 'day' } } }),
  exportOrganizationFocus: (ids) => ({
    method: 'GET',
    path: `/organizations/${ids.orgId}/focus-export`,
    options: { query: { billing_period: '2026-10', format: 'ndjson' } },
  }),
  createApiKey: (ids) => ({
    method: 'POST',
    path: '/api-keys',
    options: { json: { app_id: ids.appId, name: 'k', permissions: ['read:traces'] } },
  }),
  listApiKeys: (ids) => ({ method: 'GET', path: '/api-keys', options: { query: { app_id: ids.appId } } }),
  getApiKey: (ids) => ({ method: 'GET', path: `/api-keys/${ids.apiKey}`, options: {} }),
  updateApiKey: (ids) => ({ method: 'PATCH', path: `/api-keys/${ids.apiKey}`, options: { json: { name: 'renamed' } } }),
  // With the optional body (1.4.0), so that its 413, 415 and 422 have a body to spoil.
  rotateApiKeySecret: (ids) => ({
    method: 'POST',
    path: `/api-keys/${ids.apiKey}/rotate-secret`,
    options: { json: { grace_period_seconds: 60 } },
  }),
  deleteApiKey: (ids) => ({ method: 'DELETE', path: `/api-keys/${ids.apiKey}`, options: {} }),
  updateCurrentUser: () => ({ method: 'PUT', path: '/users', options: { json: { name: 'Alice', email: 'alice@example.com' } } }),
  getCurrentUser: () => ({ method: 'GET', path: '/users/me', options: {} }),
  listAuditEvents: (ids) => ({ method: 'GET', path: `/organizations/${ids.orgId}/audit-events`, options: { query: { limit: 5 } } }),
  listPriceEntries: (ids) => ({ method: 'GET', path: `/organizations/${ids.orgId}/price-entries`, options: { query: { limit: 5 } } }),
  createPriceEntry: (ids) => ({
    method: 'POST',
    path: `/organizations/${ids.orgId}/price-entries`,
    options: { json: { provider: 'openai', model: 'gpt-4o*', input_price: 2.5, output_price: 10, currency: 'USD' } },
  }),
  getPriceEntry: (ids) => ({ method: 'GET', path: `/organizations/${ids.orgId}/price-entries/${ids.priceEntryId}`, options: {} }),
  updatePriceEntry: (ids) => ({
    method: 'PATCH',
    path: `/organizations/${ids.orgId}/price-entries/${ids.priceEntryId}`,
    options: { json: { output_price: 9 } },
  }),
  deletePriceEntry: (ids) => ({ method: 'DELETE', path: `/organizations/${ids.orgId}/price-entries/${ids.priceEntryId}`, options: {} }),
  getEffectivePrice: (ids) => ({
    method: 'GET',
    path: `/organizations/${ids.orgId}/effective-price`,
    options: { query: { model: 'gpt-4o-mini', provider: 'openai' } },
  }),
  createRepricingJob: (ids) => ({
    method: 'POST',
    path: `/applications/${ids.appId}/repricing-jobs`,
    options: { json: { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' } },
  }),
  listRepricingJobs: (ids) => ({ method: 'GET', path: `/applications/${ids.appId}/repricing-jobs`, options: { query: { limit: 5 } } }),
  getRepricingJob: (ids) => ({ method: 'GET', path: `/applications/${ids.appId}/repricing-jobs/${ids.jobId}`, options: {} }),
  cancelRepricingJob: (ids) => ({ method: 'POST', path: `/applications/${ids.appId}/repricing-jobs/${ids.jobId}/cancel`, options: {} }),
  listWebhookEndpoints: (ids) => ({
    method: 'GET',
    path: `/organizations/${ids.orgId}/webhook-endpoints`,
    options: { query: { limit: 5 } },
  }),
  createWebhookEndpoint: (ids) => ({
    method: 'POST',
    path: `/organizations/${ids.orgId}/webhook-endpoints`,
    options: { json: { url: 'https://hooks.example.com/x', event_types: ['webhook.test'] } },
  }),
  getWebhookEndpoint: (ids) => ({
    method: 'GET',
    path: `/organizations/${ids.orgId}/webhook-endpoints/${ids.webhookEndpointId}`,
    options: {},
  }),
  updateWebhookEndpoint: (ids) => ({
    method: 'PATCH',
    path: `/organizations/${ids.orgId}/webhook-endpoints/${ids.webhookEndpointId}`,
    options: { json: { enabled: false } },
  }),
  deleteWebhookEndpoint: (ids) => ({
    method: 'DELETE',
    path: `/organizations/${ids.orgId}/webhook-endpoints/${ids.webhookEndpointId}`,
    options: {},
  }),
  rotateWebhookEndpointSecret: (ids) => ({
    method: 'POST',
    path: `/organizations/${ids.orgId}/webhook-endpoints/${ids.webhookEndpointId}/rotate-secret`,
    options: {},
  }),
  sendTestWebhookEvent: (ids) => ({
    method: 'POST',
    path: `/organizations/${ids.orgId}/webhook-endpoints/${ids.webhookEndpointId}/test`,
    options: {},
  }),
  listWebhookDeliveries: (ids) => ({
    method: 'GET',
    path: `/organizations/${ids.orgId}/webhook-endpoints/${ids.webhookEndpointId}/deliveries`,
    options: { query: { limit: 5 } },
  }),
  listBudgets: (ids) => ({ method: 'GET', path: `/organizations/${ids.orgId}/budgets`, options: { query: { limit: 5 } } }),
  createBudget: (ids) => ({
    method: 'POST',
    path: `/organizations/${ids.orgId}/budgets`,
    options: { json: { name: 'LLM', amount: 500, currency: 'USD', period: 'month' } },
  }),
  getBudget: (ids) => ({ method: 'GET', path: `/organizations/${ids.orgId}/budgets/${ids.budgetId}`, options: {} }),
  updateBudget: (ids) => ({
    method: 'PATCH',
    path: `/organizations/${ids.orgId}/budgets/${ids.budgetId}`,
    options: { json: { amount: 600 } },
  }),
  deleteBudget: (ids) => ({ method: 'DELETE', path: `/organizations/${ids.orgId}/budgets/${ids.budgetId}`, options: {} }),
};

/** The same request, made invalid in one place: an unknown body property, an id too long, or limit=101. */
function invalid(request: Request): Request {
  if (request.options.json !== undefined)
    return { ...request, options: { ...request.options, json: { ...(request.options.json as object), unexpected: true } } };
  if (/\/(org|app|ak)_/.test(request.path)) return { ...request, path: request.path.replace(/(org|app|ak)_[A-Za-z0-9]+/, 'x'.repeat(65)) };
  return { ...request, options: { ...request.options, query: { ...request.options.query, limit: 101 } } };
}

const TOO_LARGE = JSON.stringify({ name: 'x'.repeat(1_100_000) });

type Producer = (fixture: Fixture, operationId: string, app: TestServer) => Promise<{ request: Request; token?: string }>;

const PRODUCERS: Record<string, Producer> = {
  '200': async (fixture, operationId) => ({ request: VALID[operationId](fixture.ids, fixture) }),
  '201': async (fixture, operationId) => ({ request: VALID[operationId](fixture.ids, fixture) }),
  '202': async (fixture, operationId) => ({ request: VALID[operationId](fixture.ids, fixture) }),
  '204': async (fixture, operationId) => ({ request: VALID[operationId](fixture.ids, fixture) }),
  '401': async (fixture, operationId) => ({ request: VALID[operationId](fixture.ids, fixture), token: 'not-a-jwt' }),
  '431': async (fixture, operationId) => {
    const request = VALID[operationId](fixture.ids, fixture);
    return {
      request: {
        ...request,
        options: { ...request.options, headers: { ...request.options.headers, 'x-padding': 'a'.repeat(maxHeaderSize) } },
      },
    };
  },
  '403': async (fixture, operationId) => ({ request: VALID[operationId](fixture.ids, fixture), token: fixture.weakKeyToken }),
  '404': async (fixture, operationId) => ({ request: VALID[operationId](UNKNOWN, fixture) }),
  '413': async (fixture, operationId) => {
    const request = VALID[operationId](fixture.ids, fixture);
    return {
      request: {
        ...request,
        options: { ...request.options, json: undefined, rawBody: TOO_LARGE, headers: { 'content-type': 'application/json' } },
      },
    };
  },
  '415': async (fixture, operationId) => {
    const request = VALID[operationId](fixture.ids, fixture);
    return {
      request: {
        ...request,
        options: {
          ...request.options,
          json: undefined,
          rawBody: JSON.stringify(request.options.json),
          headers: { 'content-type': 'text/plain' },
        },
      },
    };
  },
  '422': async (fixture, operationId) => ({ request: invalid(VALID[operationId](fixture.ids, fixture)) }),
  '409': async (fixture, operationId, app) => {
    // A job over a window the fixture's queued job overlaps.
    if (operationId === 'createRepricingJob')
      return { request: { ...VALID.createRepricingJob(fixture.ids, fixture), options: { json: JOB_WINDOW } } };
    if (operationId === 'cancelRepricingJob') {
      // The fixture's job, run to its end (its window holds no span).
      await app.server.repricer.runOnce();
      return { request: VALID.cancelRepricingJob(fixture.ids, fixture) };
    }
    if (operationId === 'addMember') {
      // The person is already a member.
      const members = await fixture.owner('GET', `/organizations/${fixture.ids.orgId}/members`);
      const email = members.body.data.find((member: { user_id: string }) => member.user_id === fixture.ids.userId).email;
      return { request: { method: 'POST', path: `/organizations/${fixture.ids.orgId}/members`, options: { json: { email } } } };
    }
    // The fixture's owner is the organization's last owner.
    const me = await fixture.owner('GET', '/users/me');
    const ids = { ...fixture.ids, userId: me.body.id };
    const request =
      operationId === 'updateMember'
        ? { ...VALID.updateMember(ids, fixture), options: { json: { role: 'member' } } }
        : VALID[operationId](ids, fixture);
    return { request };
  },
  // DELETE of an organization that still has an active application.
  '400': async (fixture) => ({ request: { method: 'DELETE', path: `/organizations/${fixture.ids.orgId}`, options: {} } }),
};

/** Declared status codes per management operation, from the document (the token endpoints are covered by the auth suites). */
function declaredStatuses(): Array<[operationId: string, status: string]> {
  const paths = loadDocument('management').definition.paths as Record<
    string,
    Record<string, { operationId?: string; responses?: Record<string, unknown> }>
  >;
  const pairs: Array<[string, string]> = [];
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (!operation?.operationId || !operation.responses || ['createAccessToken', 'getJwks'].includes(operation.operationId)) continue;
      for (const status of Object.keys(operation.responses)) pairs.push([operation.operationId, status]);
    }
  }
  return pairs;
}

async function makeFixture(app: TestServer): Promise<Fixture> {
  const owner = callerFor(app, (await dashboardUser(app, 'Owner')).token);
  const orgId = await createOrganization(owner);
  const appId = await createApplication(owner, orgId);
  const { apiKey } = await createApiKey(owner, appId);
  const weak = await createApiKey(owner, appId, ['write:traces']);
  const member = await owner('POST', `/organizations/${orgId}/members`, { json: { email: `m-${orgId.slice(4, 12)}@example.com` } });
  expectStatus(member, 201);
  const entry = await owner('POST', `/organizations/${orgId}/price-entries`, {
    json: { model: 'claude-*', input_price: 3, output_price: 15, currency: 'USD' },
  });
  expectStatus(entry, 201);
  const job = await owner('POST', `/applications/${appId}/repricing-jobs`, { json: JOB_WINDOW });
  expectStatus(job, 202);
  const endpoint = await owner('POST', `/organizations/${orgId}/webhook-endpoints`, {
    json: { url: 'https://hooks.example.com/x', event_types: ['budget.threshold_crossed'] },
  });
  expectStatus(endpoint, 201);
  const budget = await owner('POST', `/organizations/${orgId}/budgets`, {
    json: { name: 'LLM', amount: 500, currency: 'USD', period: 'month' },
  });
  expectStatus(budget, 201);
  return {
    owner,
    ids: {
      orgId,
      appId,
      apiKey,
      userId: member.body.user_id,
      priceEntryId: entry.body.id,
      jobId: job.body.id,
      webhookEndpointId: endpoint.body.id,
      budgetId: budget.body.id,
    },
    emptyOrgId: await createOrganization(owner, 'Empty'),
    weakKeyToken: await keyToken(app, weak.apiKey, weak.secret),
  };
}

onEachDatabase(
  'management status codes',
  (app) => {
    it('has a way to produce every status code the document declares', () => {
      const missing = declaredStatuses().filter(([operationId, status]) => status !== '503' && (!PRODUCERS[status] || !VALID[operationId]));
      expect(missing).to.deep.equal([]);
    });

    for (const [operationId, status] of declaredStatuses()) {
      if (status === '503') continue;
      it(`${operationId} answers ${status}`, async () => {
        const fixture = await makeFixture(app());
        const { request, token } = await PRODUCERS[status](fixture, operationId, app());
        const response = await (token === undefined ? fixture.owner : callerFor(app(), token))(request.method, request.path, {
          ...request.options,
          ...(token ? { token } : {}),
        });
        expectStatus(response, Number(status));
        if (status === '401') expect(response.headers.get('www-authenticate')).to.match(/^Bearer/);
      });
    }
  },
  { REPRICING_INTERVAL_SECONDS: '0', WEBHOOK_DELIVERY_INTERVAL_SECONDS: '0' },
);

describe('management status codes: 503 while the database is unreachable', () => {
  let server: (TestServer & { stop(): Promise<void> }) | undefined;
  before(async () => {
    // Nothing listens on port 9; migrations are skipped so the service starts without its database.
    const unreachable: TestDatabase = {
      name: 'mysql',
      create: async () => ({ url: 'mysql://nobody:nothing@127.0.0.1:9/spanledger', drop: async () => {} }),
    };
    server = await startTestServer(unreachable, { MIGRATE_ON_START: 'false' });
  });
  after(async () => {
    await server?.stop();
  });

  const operations = [
    ...new Set(
      declaredStatuses()
        .filter(([, status]) => status === '503')
        .map(([operationId]) => operationId),
    ),
  ];
  for (const operationId of operations) {
    it(`${operationId} answers 503 with Retry-After`, async () => {
      const running = server as TestServer;
      const user = await dashboardUser(running);
      const request = VALID[operationId](UNKNOWN, { ids: UNKNOWN, emptyOrgId: UNKNOWN.orgId } as Fixture);
      const response = await callerFor(running, user.token)(request.method, request.path, request.options);
      expectStatus(response, 503);
      expect(response.headers.get('retry-after')).to.match(/^\d+$/);
    });
  }
});
