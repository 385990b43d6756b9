// A client generated from the documents (openapi-typescript types + openapi-fetch) calls every
// operation. `tsc` type-checks each call; at run time every answer is checked against the
// documents, and the set of operations called must equal the set the documents declare.
import { expect } from 'chai';
import createClient from 'openapi-fetch';
import type { paths as EnginePaths } from '../../src/generated/engine.js';
import type { paths as ManagementPaths } from '../../src/generated/management.js';
import { allOperationIds, assertMatchesContract } from '../support/contract.js';
import { onEachDatabase } from '../support/test-server.js';

const WINDOW = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };
const APP = { 'X-Vendor-App-Id': 'app_demo' };

onEachDatabase('generated client covers every operation', (app) => {
  it('calls each operation with a type-checked request and gets a documented answer', async () => {
    const called = new Set<string>();
    const checkingFetch = async (input: Request): Promise<Response> => {
      const response = await fetch(input, { signal: AbortSignal.timeout(5000) });
      const text = await response.text();
      const contentType = response.headers.get('content-type') ?? '';
      const body = contentType.includes('json') && text ? JSON.parse(text) : text;
      const operationId = await assertMatchesContract(input.method, new URL(input.url).pathname, { status: response.status, headers: response.headers, body, text });
      if (operationId) called.add(operationId);
      return new Response(text, { status: response.status, headers: response.headers });
    };
    const engine = createClient<EnginePaths>({ baseUrl: app().url, fetch: checkingFetch });
    const management = createClient<ManagementPaths>({ baseUrl: app().url, fetch: checkingFetch });
    const filter = { and: [{ field: 'service_name', op: 'eq' as const, value: 'checkout' }] };

    await engine.POST('/engine/query', { params: { query: WINDOW, header: APP }, body: { filter } });
    await engine.POST('/traces', { params: { query: { ...WINDOW, search_child_spans: true }, header: APP }, body: { filter } });
    await engine.POST('/engine/metrics', { params: { query: WINDOW, header: APP }, body: { filter: null } });
    await engine.GET('/traces/live', { params: { query: { limit: 10 }, header: APP } });
    await engine.GET('/traces/live/stream', { params: { header: APP }, parseAs: 'text', signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    await engine.POST('/v1/traces', { params: { header: APP }, body: { resourceSpans: [] } });

    await management.POST('/organizations', { body: { name: 'Acme' } });
    await management.GET('/organizations', { params: { query: { page: 1, limit: 20 } } });
    await management.GET('/organizations/{org_id}', { params: { path: { org_id: 'org_x' } } });
    await management.PATCH('/organizations/{org_id}', { params: { path: { org_id: 'org_x' } }, body: { name: 'Acme Corp', address: { city: 'Lyon' } } });
    await management.DELETE('/organizations/{org_id}', { params: { path: { org_id: 'org_x' } } });
    await management.GET('/organizations/{org_id}/members', { params: { path: { org_id: 'org_x' } } });
    await management.POST('/organizations/{org_id}/members', { params: { path: { org_id: 'org_x' } }, body: { email: 'bob@example.com', role: 'member' } });
    await management.PATCH('/organizations/{org_id}/members/{user_id}', { params: { path: { org_id: 'org_x', user_id: 'usr_x' } }, body: { role: 'owner' } });
    await management.DELETE('/organizations/{org_id}/members/{user_id}', { params: { path: { org_id: 'org_x', user_id: 'usr_x' } } });
    await management.POST('/applications', { body: { organization_id: 'org_x', name: 'Checkout', region: 'EU', pricing_plan: 'pro' } });
    await management.GET('/applications', { params: { query: { organization_id: 'org_x', region: 'EU', pricing_plan: 'pro', page: 1, limit: 5 } } });
    await management.GET('/applications/{app_id}', { params: { path: { app_id: 'app_x' } } });
    await management.PATCH('/applications/{app_id}', { params: { path: { app_id: 'app_x' } }, body: { name: 'Checkout v2' } });
    await management.DELETE('/applications/{app_id}', { params: { path: { app_id: 'app_x' } } });
    await management.POST('/api-keys', { body: { app_id: 'app_x', name: 'ingest', permissions: ['write:traces'] } });
    await management.GET('/api-keys', { params: { query: { app_id: 'app_x' } } });
    await management.GET('/api-keys/{api_key}', { params: { path: { api_key: 'ak_x' } } });
    await management.PATCH('/api-keys/{api_key}', { params: { path: { api_key: 'ak_x' } }, body: { permissions: ['read:traces'] } });
    await management.POST('/api-keys/{api_key}/rotate-secret', { params: { path: { api_key: 'ak_x' } } });
    await management.DELETE('/api-keys/{api_key}', { params: { path: { api_key: 'ak_x' } } });
    await management.PUT('/users', { body: { name: 'Alice', email: 'alice@example.com' } });
    await management.GET('/users/me');
    await management.POST('/auth/token', { body: { grant_type: 'client_credentials', client_id: 'ak_x', client_secret: 'as_x' } });
    await management.GET('/.well-known/jwks.json');

    expect([...called].sort()).to.deep.equal((await allOperationIds()).sort());
  });
});
