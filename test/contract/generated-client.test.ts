// A client generated from the documents (openapi-typescript types + openapi-fetch) calls every
// operation as someone allowed to, over real data: a dashboard user creates an organization, a
// member, a price entry, an application and an API key through the client (each id taken from an answer), the
// key's token ingests a span, the engine queries find it and export it, and the DELETEs come last. `tsc`
// type-checks each call; at run time every answer is checked against the documents and must be
// the operation's documented success status, and the set of operations called must equal the
// set the documents declare.
//
// Then the clients integrators generate themselves, into a temporary folder, from the current
// documents and from the previous ones (test/contract/fixtures/management-1.5.1.yaml,
// engine-1.7.0.yaml): openapi-typescript 7.13 types with openapi-fetch 0.17, @hey-api/openapi-ts
// 0.95 with its fetch client, and orval 7.13 with its fetch client (the last orval and hey-api
// releases that run on Node 20). One TypeScript program (strict) compiles a client program per
// generator, written against the previous documents (test/contract/fixtures/clients/), with the
// clients of both versions: it must compile unchanged with the current ones (the documents'
// "Compatibility of generated clients"). Each program then runs against the service: it exchanges
// a key for a token with a form body (and JSON where the client sends JSON), uses the tokens on
// the management and engine APIs and rotates the key's secret.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import createClient from 'openapi-fetch';
import ts from 'typescript';
import type { paths as EnginePaths } from '../../src/generated/engine.js';
import type { paths as ManagementPaths } from '../../src/generated/management.js';
import { allOperationIds, assertMatchesContract, call, documentOperations } from '../support/contract.js';
import { GENERATORS, generateClients, type Generator } from '../support/generated-clients.js';
import { createApiKey, dashboardUser, keyToken, ownerWithApplication } from '../support/management.js';
import { onEachDatabase } from '../support/test-server.js';

const WINDOW = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };
// 2026-11-01T12:00:00Z, inside WINDOW.
const SPAN_START = 1_793_534_400_000_000_000n;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/**
 * The 2xx status each operation answers the calls below: the one it declares, or the first of
 * several (downloadExport's 200, which a request without `Range` gets, beside its 206).
 */
async function successStatuses(): Promise<Map<string, number>> {
  const statuses = new Map<string, number>();
  for (const { operationId, operation } of await documentOperations()) {
    const success = Object.keys(operation.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
    expect(success, `${operationId} declares a success status`).to.not.be.empty;
    statuses.set(operationId, Math.min(...success.map(Number)));
  }
  return statuses;
}

/** One OTLP/JSON export of a root span and its child in service `checkout`, inside WINDOW. */
function otlpExport() {
  const span = (spanId: string, parentSpanId: string, name: string, offsetMs: bigint, durationMs: bigint, cost: number) => ({
    traceId: TRACE_ID,
    spanId,
    parentSpanId,
    name,
    kind: 2,
    startTimeUnixNano: String(SPAN_START + offsetMs * 1_000_000n),
    endTimeUnixNano: String(SPAN_START + (offsetMs + durationMs) * 1_000_000n),
    attributes: [{ key: 'vendor.cost', value: { doubleValue: cost } }],
    status: {},
  });
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
        scopeSpans: [
          {
            scope: { name: 'generated-client-test' },
            spans: [
              span('00f067aa0ba902b7', '', 'POST /checkout', 0n, 1500n, 0.001),
              span('53995c3f42cd8ad8', '00f067aa0ba902b7', 'charge', 100n, 900n, 0.0042),
            ],
          },
        ],
      },
    ],
  };
}

/** Reads an SSE body until a `span` event arrives, then lets the stream go. */
async function firstSpanEvent(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (!/^event: span$/m.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel();
  }
  return text;
}

onEachDatabase(
  'generated client covers every operation',
  (app) => {
    it('calls each operation with a type-checked request, over real data, and gets its documented success answer', async function () {
      this.timeout(30_000);
      const expected = await successStatuses();
      const answered = new Map<string, number>();
      const checkingFetch = async (input: Request): Promise<Response> => {
        const response = await fetch(input);
        const contentType = response.headers.get('content-type') ?? '';
        const path = new URL(input.url).pathname;
        if (contentType.startsWith('text/event-stream')) {
          // An endless stream: its status and headers are checked, its body is read by the test.
          const operationId = await assertMatchesContract(input.method, path, {
            status: response.status,
            headers: response.headers,
            body: '',
            text: '',
          });
          if (operationId) answered.set(operationId, response.status);
          return response;
        }
        const text = await response.text();
        // NDJSON (an export's file) is checked line by line as text.
        const body = contentType.includes('json') && !contentType.startsWith('application/x-ndjson') && text ? JSON.parse(text) : text;
        const operationId = await assertMatchesContract(input.method, path, {
          status: response.status,
          headers: response.headers,
          body,
          text,
        });
        if (operationId) {
          answered.set(operationId, response.status);
          expect(response.status, `${input.method} ${path} (${operationId}): ${text.slice(0, 300)}`).to.equal(expected.get(operationId));
        }
        // A 204 (deletePriceEntry) has no body, and a Response refuses one.
        return new Response(response.status === 204 ? null : text, { status: response.status, headers: response.headers });
      };

      const alice = await dashboardUser(app(), 'Alice');
      const bob = await dashboardUser(app(), 'Bob');
      const management = createClient<ManagementPaths>({
        baseUrl: app().url,
        fetch: checkingFetch,
        headers: { Authorization: `Bearer ${alice.token}` },
      });
      const anonymous = createClient<ManagementPaths>({ baseUrl: app().url, fetch: checkingFetch });

      // The user, their organization and a member.
      const profile = await management.PUT('/users', { body: { name: 'Alice Example', email: alice.email } });
      expect(profile.data?.updated_at).to.be.a('string');
      expect((await management.GET('/users/me')).data).to.include({ name: 'Alice Example', email: alice.email });
      const organization = await management.POST('/organizations', { body: { name: 'Acme' } });
      const orgId = organization.data?.id as string;
      expect(orgId).to.be.a('string');
      expect(
        (await management.GET('/organizations', { params: { query: { page: 1, limit: 20 } } })).data?.organizations.map((org) => org.id),
      ).to.include(orgId);
      const renamed = await management.PATCH('/organizations/{org_id}', {
        params: { path: { org_id: orgId } },
        body: { name: 'Acme Corp', address: { city: 'Lyon' } },
      });
      expect(renamed.data).to.include({ id: orgId });
      expect((await management.GET('/organizations/{org_id}', { params: { path: { org_id: orgId } } })).data).to.include({
        id: orgId,
        name: 'Acme Corp',
      });
      const member = await management.POST('/organizations/{org_id}/members', {
        params: { path: { org_id: orgId } },
        body: { email: bob.email, role: 'member' },
      });
      const bobId = member.data?.user_id as string;
      expect(bobId).to.be.a('string');
      const members = await management.GET('/organizations/{org_id}/members', { params: { path: { org_id: orgId } } });
      expect(members.data?.data.map((entry) => entry.user_id)).to.include(bobId);
      const promoted = await management.PATCH('/organizations/{org_id}/members/{user_id}', {
        params: { path: { org_id: orgId, user_id: bobId } },
        body: { role: 'owner' },
      });
      expect(promoted.data).to.be.an('object').that.is.not.empty;

      // A price entry of the organization, and the price it gives a model.
      const entry = await management.POST('/organizations/{org_id}/price-entries', {
        params: { path: { org_id: orgId } },
        body: { provider: 'openai', model: 'gpt-4o-mini*', input_price: 0.14, output_price: 0.55, currency: 'EUR' },
      });
      const entryId = entry.data?.id as string;
      expect(entryId).to.be.a('string');
      const entries = await management.GET('/organizations/{org_id}/price-entries', { params: { path: { org_id: orgId } } });
      expect(entries.data?.data.map((listed) => listed.id)).to.deep.equal([entryId]);
      const entryPath = { path: { org_id: orgId, entry_id: entryId } };
      const repriced = await management.PATCH('/organizations/{org_id}/price-entries/{entry_id}', {
        params: entryPath,
        body: { input_price: 0.13, valid_to: null },
      });
      expect(repriced.data?.input_price).to.equal(0.13);
      expect((await management.GET('/organizations/{org_id}/price-entries/{entry_id}', { params: entryPath })).data).to.include({
        id: entryId,
        input_price: 0.13,
      });
      const effective = await management.GET('/organizations/{org_id}/effective-price', {
        params: { path: { org_id: orgId }, query: { model: 'gpt-4o-mini-2024-07-18', provider: 'openai' } },
      });
      expect(effective.data).to.include({ source: 'entry', entry_id: entryId, currency: 'EUR', input_price: 0.13 });

      // A webhook endpoint: created (its secret shown once), read, listed, changed, rotated and sent
      // a test event (the deliverer is off: the delivery stays pending), then its deliveries listed.
      const hook = await management.POST('/organizations/{org_id}/webhook-endpoints', {
        params: { path: { org_id: orgId } },
        body: { url: 'https://hooks.example.com/spanledger', event_types: ['budget.threshold_crossed'] },
      });
      const hookId = hook.data?.id as string;
      expect(hook.data?.secret).to.match(/^whsec_/);
      const hookPath = { params: { path: { org_id: orgId, endpoint_id: hookId } } };
      expect((await management.GET('/organizations/{org_id}/webhook-endpoints/{endpoint_id}', hookPath)).data).to.include({ id: hookId });
      const hooks = await management.GET('/organizations/{org_id}/webhook-endpoints', { params: { path: { org_id: orgId } } });
      expect(hooks.data?.data.map((entry) => entry.id)).to.deep.equal([hookId]);
      const described = await management.PATCH('/organizations/{org_id}/webhook-endpoints/{endpoint_id}', {
        ...hookPath,
        body: { description: 'Budget alerts' },
      });
      expect(described.data).to.include({ description: 'Budget alerts' });
      const rotatedHook = await management.POST('/organizations/{org_id}/webhook-endpoints/{endpoint_id}/rotate-secret', hookPath);
      expect(rotatedHook.data?.secret)
        .to.match(/^whsec_/)
        .and.not.equal(hook.data?.secret);
      const testEvent = await management.POST('/organizations/{org_id}/webhook-endpoints/{endpoint_id}/test', hookPath);
      expect(testEvent.data?.type).to.equal('webhook.test');
      const deliveries = await management.GET('/organizations/{org_id}/webhook-endpoints/{endpoint_id}/deliveries', hookPath);
      expect(deliveries.data?.data).to.have.length(1);
      await management.DELETE('/organizations/{org_id}/webhook-endpoints/{endpoint_id}', hookPath);

      // An application and its API key.
      const application = await management.POST('/applications', {
        body: { organization_id: orgId, name: 'Checkout', region: 'EU', pricing_plan: 'pro' },
      });
      const appId = application.data?.id as string;
      expect(appId).to.be.a('string');
      const applications = await management.GET('/applications', {
        params: { query: { organization_id: orgId, region: 'EU', pricing_plan: 'pro', page: 1, limit: 5 } },
      });
      expect(applications.data?.data.map((entry) => entry.id)).to.deep.equal([appId]);
      expect(
        (await management.PATCH('/applications/{app_id}', { params: { path: { app_id: appId } }, body: { name: 'Checkout v2' } })).data,
      ).to.be.an('object').that.is.not.empty;
      expect((await management.GET('/applications/{app_id}', { params: { path: { app_id: appId } } })).data).to.include({
        id: appId,
        organization_id: orgId,
        name: 'Checkout v2',
      });
      const usage = await management.GET('/applications/{app_id}/usage', {
        params: {
          path: { app_id: appId },
          query: { start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-23T00:00:00Z', granularity: 'day', by_api_key: true },
        },
      });
      expect(usage.data).to.deep.include({
        application_id: appId,
        granularity: 'day',
        by_api_key: true,
        start_time: '2026-11-22T00:00:00.000Z',
      });
      // A re-pricing job over a day without spans: created, read, listed and cancelled (the worker is off).
      const job = await management.POST('/applications/{app_id}/repricing-jobs', {
        params: { path: { app_id: appId } },
        body: { from: '2026-10-01T00:00:00Z', to: '2026-10-02T00:00:00Z' },
      });
      const jobId = job.data?.id as string;
      expect(job.response.headers.get('location')).to.equal(`/applications/${appId}/repricing-jobs/${jobId}`);
      const jobPath = { params: { path: { app_id: appId, job_id: jobId } } };
      expect((await management.GET('/applications/{app_id}/repricing-jobs/{job_id}', jobPath)).data).to.include({ status: 'queued' });
      const jobs = await management.GET('/applications/{app_id}/repricing-jobs', {
        params: { path: { app_id: appId }, query: { limit: 5 } },
      });
      expect(jobs.data?.data.map((entry) => entry.id)).to.deep.equal([jobId]);
      expect((await management.POST('/applications/{app_id}/repricing-jobs/{job_id}/cancel', jobPath)).data).to.include({
        status: 'cancelled',
      });
      // Spend of a month without spans, per model and per application with days, and its FOCUS export.
      const appSpend = await management.GET('/applications/{app_id}/spend', {
        params: { path: { app_id: appId }, query: { period: 'month', date: '2026-10-15', group_by: 'model', currency: 'USD' } },
      });
      expect(appSpend.data?.rows).to.deep.equal([]);
      const orgSpend = await management.GET('/organizations/{org_id}/spend', {
        params: { path: { org_id: orgId }, query: { period: 'week', date: '2026-10-15', granularity: 'day' } },
      });
      expect(orgSpend.data?.rows).to.deep.equal([]);
      const focus = await management.GET('/organizations/{org_id}/focus-export', {
        params: { path: { org_id: orgId }, query: { billing_period: '2026-10', format: 'csv' } },
        parseAs: 'text',
      });
      expect(focus.data).to.match(/^[A-Za-z]+(,[A-Za-z_]+)+\r\n$/);
      // A budget of the application: created, listed, read and changed (the evaluator is off).
      const budget = await management.POST('/organizations/{org_id}/budgets', {
        params: { path: { org_id: orgId } },
        body: { name: 'LLM spend', application_id: appId, amount: 500, currency: 'USD', period: 'month', thresholds: [100, 50] },
      });
      const budgetId = budget.data?.id as string;
      expect(budget.data).to.deep.include({ thresholds: [50, 100], application_id: appId });
      const budgetPath = { path: { org_id: orgId, budget_id: budgetId } };
      const budgets = await management.GET('/organizations/{org_id}/budgets', { params: { path: { org_id: orgId }, query: { limit: 5 } } });
      expect(budgets.data?.data.map((listed) => listed.id)).to.deep.equal([budgetId]);
      expect(
        (await management.PATCH('/organizations/{org_id}/budgets/{budget_id}', { params: budgetPath, body: { amount: 600 } })).data,
      ).to.include({
        amount: 600,
      });
      expect((await management.GET('/organizations/{org_id}/budgets/{budget_id}', { params: budgetPath })).data?.status.spend).to.equal(0);
      const created = await management.POST('/api-keys', { body: { app_id: appId, name: 'ingest', permissions: ['write:traces'] } });
      const apiKey = created.data?.api_key as string;
      const secret = created.data?.api_secret as string;
      expect(apiKey).to.be.a('string');
      expect(secret).to.be.a('string').and.not.equal('');
      expect(
        (await management.GET('/api-keys', { params: { query: { app_id: appId } } })).data?.data.map((entry) => entry.api_key),
      ).to.deep.equal([apiKey]);
      const widened = await management.PATCH('/api-keys/{api_key}', {
        params: { path: { api_key: apiKey } },
        body: { permissions: ['read:traces', 'write:traces'] },
      });
      expect(widened.data).to.be.an('object').that.is.not.empty;
      const key = await management.GET('/api-keys/{api_key}', { params: { path: { api_key: apiKey } } });
      expect(key.data).to.include({ api_key: apiKey });
      expect(key.data?.permissions).to.have.members(['read:traces', 'write:traces']);

      // The key's token, and the keys that verify it.
      const exchanged = await anonymous.POST('/auth/token', {
        body: { grant_type: 'client_credentials', client_id: apiKey, client_secret: secret },
      });
      const accessToken = exchanged.data?.access_token as string;
      expect(accessToken).to.be.a('string');
      expect((await anonymous.GET('/.well-known/jwks.json')).data?.keys).to.have.length.greaterThan(0);

      // The engine, as the key: ingest a trace, then find it every way.
      const engine = createClient<EnginePaths>({
        baseUrl: app().url,
        fetch: checkingFetch,
        headers: { Authorization: `Bearer ${accessToken}` },
      });
      const APP = { 'X-Vendor-App-Id': appId };
      const ingested = await engine.POST('/v1/traces', { params: { header: APP }, body: otlpExport() });
      expect(ingested.response.status).to.equal(200);
      const filter = { and: [{ field: 'service_name', op: 'eq' as const, value: 'checkout' }] };
      const spans = await engine.POST('/engine/query', { params: { query: WINDOW, header: APP }, body: { filter } });
      expect(spans.data?.data.map((span) => span.span_name)).to.have.members(['POST /checkout', 'charge']);
      const traces = await engine.POST('/traces', {
        params: { query: { ...WINDOW, search_child_spans: true }, header: APP },
        body: { filter },
      });
      expect(traces.data?.data.map((trace) => trace.trace_id)).to.deep.equal([TRACE_ID]);
      const trace = await engine.GET('/traces/{trace_id}', { params: { path: { trace_id: TRACE_ID }, header: APP } });
      expect(trace.data?.summary.spans_count).to.equal(trace.data?.data.length);
      expect(trace.data?.data.every((span) => span.trace_id === TRACE_ID)).to.equal(true);
      const metrics = await engine.POST('/engine/metrics', { params: { query: WINDOW, header: APP }, body: { filter: null } });
      expect(metrics.data?.trace_count).to.equal(1);
      const analytics = await engine.POST('/engine/analytics', {
        params: { query: WINDOW, header: APP },
        body: {
          grain: 'spans',
          filter,
          group_by: ['span_name'],
          measures: [{ fn: 'count' }, { fn: 'p50', field: 'duration_ms' }],
          row_limit: 1,
        },
      });
      expect(analytics.data?.groups).to.have.length(1);
      expect(analytics.data?.truncated).to.equal(true);
      const live = await engine.GET('/traces/live', { params: { query: { limit: 10 }, header: APP } });
      expect(live.data?.data).to.have.length(2);
      // From the start of the application's receive sequence: the stored spans come first.
      const stream = await engine.GET('/traces/live/stream', { params: { header: { ...APP, 'Last-Event-ID': '0' } }, parseAs: 'stream' });
      expect(stream.response.status).to.equal(200);
      expect(await firstSpanEvent(stream.data as ReadableStream<Uint8Array>)).to.include(`"trace_id":"${TRACE_ID}"`);

      // An export of the trace's spans, made by the worker, downloaded; a second one cancelled.
      const exported = await engine.POST('/engine/exports', { params: { query: WINDOW, header: APP }, body: { filter, format: 'ndjson' } });
      const exportPath = { params: { path: { export_id: exported.data?.id as string }, header: APP } };
      await app().server.exporter.runOnce();
      expect((await engine.GET('/engine/exports/{export_id}', exportPath)).data).to.include({ state: 'succeeded' });
      expect((await engine.GET('/engine/exports', { params: { header: APP } })).data?.pagination.total).to.equal(1);
      const file = await engine.GET('/engine/exports/{export_id}/file', { ...exportPath, parseAs: 'text' });
      expect((file.data as string).trim().split('\n')).to.have.length(2);
      // The same file through a download link, whose token the generated client sends as its query.
      const link = await engine.POST('/engine/exports/{export_id}/links', { params: { ...exportPath.params, query: { expires_in: 600 } } });
      const token = new URL(link.data?.download_path as string, 'http://link.invalid').searchParams.get('token') as string;
      const byLink = await engine.GET('/engine/exports/{export_id}/download', {
        params: { path: exportPath.params.path, query: { token } },
        parseAs: 'text',
      });
      expect(byLink.data).to.equal(file.data);
      const second = await engine.POST('/engine/exports', { params: { query: WINDOW, header: APP }, body: { grain: 'traces' } });
      const cancelled = await engine.POST('/engine/exports/{export_id}/cancel', {
        params: { path: { export_id: second.data?.id as string }, header: APP },
      });
      expect(cancelled.data?.state).to.equal('cancelled');

      const rotated = await management.POST('/api-keys/{api_key}/rotate-secret', { params: { path: { api_key: apiKey } } });
      expect(rotated.data?.api_secret).to.be.a('string').and.not.equal(secret);

      // The organization's audit log holds what Alice did to the key, newest first.
      const audit = await management.GET('/organizations/{org_id}/audit-events', {
        params: { path: { org_id: orgId }, query: { resource_type: 'api_key', limit: 10 } },
      });
      expect(audit.data?.data.map((event) => event.operation_id)).to.deep.equal(['rotateApiKeySecret', 'updateApiKey', 'createApiKey']);

      // The DELETEs last, the member and the key before what holds them.
      await management.DELETE('/organizations/{org_id}/members/{user_id}', { params: { path: { org_id: orgId, user_id: bobId } } });
      await management.DELETE('/organizations/{org_id}/price-entries/{entry_id}', { params: entryPath });
      await management.DELETE('/organizations/{org_id}/budgets/{budget_id}', { params: budgetPath });
      await management.DELETE('/api-keys/{api_key}', { params: { path: { api_key: apiKey } } });
      await management.DELETE('/applications/{app_id}', { params: { path: { app_id: appId } } });
      await management.DELETE('/organizations/{org_id}', { params: { path: { org_id: orgId } } });

      expect([...answered.keys()].sort()).to.deep.equal((await allOperationIds()).sort());
      for (const [operationId, status] of answered) expect(status, operationId).to.equal(expected.get(operationId));
    });
  },
  {
    REPRICING_INTERVAL_SECONDS: '0',
    WEBHOOK_DELIVERY_INTERVAL_SECONDS: '0',
    BUDGET_EVALUATION_INTERVAL_SECONDS: '0',
    EXPORT_INTERVAL_SECONDS: '0',
    EXPORT_SETTLE_SECONDS: '0',
  },
);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(ROOT, 'test/contract/fixtures');
const VERSIONS = {
  previous: { engine: path.join(FIXTURES, 'engine-1.7.0.yaml'), management: path.join(FIXTURES, 'management-1.5.1.yaml') },
  current: { engine: path.join(ROOT, 'openapi/engine.yaml'), management: path.join(ROOT, 'openapi/management.yaml') },
};

/** One LLM call without a reported cost inside the programs' query window, so their answer carries a computed cost. */
async function ingestLlmCall(baseUrl: string, token: string, appId: string): Promise<void> {
  const startNs = BigInt(Date.parse('2026-11-01T12:00:00Z')) * 1_000_000n;
  const attributes = Object.entries({
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.usage.input_tokens': 1000,
    'gen_ai.usage.output_tokens': 200,
  }).map(([key, value]) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } }));
  const span = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    name: 'chat gpt-4o-mini',
    kind: 3,
    startTimeUnixNano: startNs.toString(),
    endTimeUnixNano: (startNs + 1_000_000n).toString(),
    attributes,
  };
  const response = await call(baseUrl, 'POST', '/v1/traces', {
    headers: { authorization: `Bearer ${token}`, 'x-vendor-app-id': appId },
    json: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'client-test' }, spans: [span] }] }] },
  });
  expect(response.status, response.text).to.equal(200);
}

/** The interface of each client program in fixtures/clients/<generator>/program.ts. */
interface ClientProgram {
  run(given: { baseUrl: string; ownerToken: string; appId: string; apiKey: string; apiSecret: string }): Promise<{
    tokens: string[];
    applicationName: string;
    spansStatus: number;
    pricedModels: Array<string | null>;
    rotatedSecret: string;
  }>;
}

interface SentRequest {
  method: string;
  path: string;
  contentType: string;
  body: string;
}

/** The client programs' calls, through global fetch: recorded, and every answer checked against the documents. */
async function recordingFetch<T>(work: () => Promise<T>): Promise<{ result: T; sent: SentRequest[] }> {
  const original = globalThis.fetch;
  const sent: SentRequest[] = [];
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const pathname = new URL(request.url).pathname;
    sent.push({
      method: request.method,
      path: pathname,
      contentType: request.headers.get('content-type') ?? '',
      body: request.body ? await request.clone().text() : '',
    });
    const response = await original(request);
    const text = await response.text();
    const body = (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
    await assertMatchesContract(request.method, pathname, { status: response.status, headers: response.headers, body, text });
    return new Response(text || null, { status: response.status, headers: response.headers });
  };
  try {
    return { result: await work(), sent };
  } finally {
    globalThis.fetch = original;
  }
}

/** Every problem TypeScript finds in the given files, as `file(line): message`. */
function problems(program: ts.Program, files: readonly ts.SourceFile[]): string[] {
  return files.flatMap((file) =>
    [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map((diagnostic) => {
      const line = diagnostic.start === undefined ? 0 : file.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
      return `${path.relative(path.dirname(path.dirname(file.fileName)), file.fileName)}(${line}): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    }),
  );
}

describe('clients generated by openapi-typescript, hey-api and orval', function () {
  let folder = '';
  let compiled: ts.Program | undefined;
  const programFile = (version: keyof typeof VERSIONS, generator: Generator) => path.join(folder, version, generator, 'program.ts');

  before(async function () {
    this.timeout(120_000);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-clients-'));
    // The programs import openapi-fetch, and tsc looks for @types/node, where a project would have them.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(folder, 'node_modules'));
    for (const version of Object.keys(VERSIONS) as Array<keyof typeof VERSIONS>) {
      for (const generator of GENERATORS)
        fs.cpSync(path.join(FIXTURES, 'clients', generator), path.join(folder, version, generator), { recursive: true });
    }
    await Promise.all(Object.entries(VERSIONS).map(([version, documents]) => generateClients(documents, path.join(folder, version))));
    compiled = ts.createProgram(
      Object.keys(VERSIONS).flatMap((version) => GENERATORS.map((generator) => programFile(version as keyof typeof VERSIONS, generator))),
      {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
        types: ['node'],
        typeRoots: [path.join(folder, 'node_modules/@types')],
      },
    );
  });

  after(() => {
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('compiles (strict) each generated client of the current documents with a program written against the previous ones', function () {
    this.timeout(120_000);
    const program = compiled as ts.Program;
    const current = program.getSourceFiles().filter((file) => file.fileName.startsWith(path.join(folder, 'current') + path.sep));
    expect(current.map((file) => path.basename(file.fileName))).to.include.members([
      'program.ts',
      'management.ts',
      'engine.ts',
      'sdk.gen.ts',
    ]);
    expect(problems(program, current)).to.deep.equal([]);
    const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
    expect(global.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))).to.deep.equal([]);
  });

  it('compiles those programs with the clients of the previous documents too, which they are written against', function () {
    // The previous clients themselves need not compile (orval's of management 1.4.1 did not); the programs must.
    const program = compiled as ts.Program;
    const programs = GENERATORS.map((generator) => program.getSourceFile(programFile('previous', generator)) as ts.SourceFile);
    expect(problems(program, programs)).to.deep.equal([]);
  });

  onEachDatabase('generated clients at work', (app) => {
    for (const generator of GENERATORS) {
      it(`${generator}: exchanges a key for a token (form${generator === 'orval' ? '' : ' and JSON'}), reads a computed cost with it and rotates the secret`, async function () {
        this.timeout(30_000);
        const { user, as, appId } = await ownerWithApplication(app(), `Owner ${generator}`);
        const key = await createApiKey(as, appId, ['read:applications', 'read:traces', 'write:traces']);
        await ingestLlmCall(app().url, await keyToken(app(), key.apiKey, key.secret), appId);
        const program = (await import(pathToFileURL(programFile('current', generator)).href)) as ClientProgram;
        const { result, sent } = await recordingFetch(() =>
          program.run({ baseUrl: app().url, ownerToken: user.token, appId, apiKey: key.apiKey, apiSecret: key.secret }),
        );

        const exchanges = sent.filter((request) => request.path === '/auth/token');
        const expectedTypes =
          generator === 'orval' ? ['application/x-www-form-urlencoded'] : ['application/x-www-form-urlencoded', 'application/json'];
        expect(exchanges.map((request) => request.contentType.split(';')[0])).to.deep.equal(expectedTypes);
        const form = new URLSearchParams(exchanges[0]!.body);
        expect(Object.fromEntries(form)).to.deep.equal({
          grant_type: 'client_credentials',
          client_id: key.apiKey,
          client_secret: key.secret,
        });
        if (exchanges[1])
          expect(JSON.parse(exchanges[1].body)).to.deep.equal({
            grant_type: 'client_credentials',
            client_id: key.apiKey,
            client_secret: key.secret,
          });
        expect(result.tokens).to.have.length(expectedTypes.length);
        for (const token of result.tokens) expect(token.split('.'), token).to.have.length(3);
        expect(result.applicationName).to.equal('Checkout');
        expect(result.spansStatus).to.equal(200);
        expect(result.pricedModels).to.deep.equal(['gpt-4o-mini']);
        expect(result.rotatedSecret).to.be.a('string').and.not.equal(key.secret);
      });
    }
  });
});
