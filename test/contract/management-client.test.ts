// The management lifecycle story told by a client generated from openapi/management.yaml
// (openapi-typescript types + openapi-fetch): `tsc` type-checks every request and the use of
// every answer; at run time each answer is also checked against the document.
import { expect } from 'chai';
import createClient, { type Client } from 'openapi-fetch';
import { DASHBOARD_USER_PERMISSIONS } from '../../src/permissions.js';
import type { paths as EnginePaths } from '../../src/generated/engine.js';
import type { paths as ManagementPaths } from '../../src/generated/management.js';
import { assertMatchesContract } from '../support/contract.js';
import { onEachDatabase } from '../support/test-server.js';

async function checkingFetch(input: Request): Promise<Response> {
  const response = await fetch(input);
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const body = contentType.includes('json') && text ? JSON.parse(text) : text;
  await assertMatchesContract(input.method, new URL(input.url).pathname, {
    status: response.status,
    headers: response.headers,
    body,
    text,
  });
  return new Response(text, { status: response.status, headers: response.headers });
}

/** The value of a successful call, or a failure that names the answer. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.status}: ${JSON.stringify(result.error)}`);
  return result.data;
}

onEachDatabase('generated management client runs the lifecycle story', (app) => {
  it('creates, uses, rotates and deletes its way from organization to nothing, type-checked', async () => {
    const baseUrl = app().url;
    const as = (token: string): Client<ManagementPaths> =>
      createClient<ManagementPaths>({ baseUrl, fetch: checkingFetch, headers: { Authorization: `Bearer ${token}` } });
    const anonymous = createClient<ManagementPaths>({ baseUrl, fetch: checkingFetch });
    const userToken = (subject: string, email: string, name: string) =>
      app().server.tokens.signUserToken(
        { subject: `${subject}-${Date.now()}`, email, name, permissions: [...DASHBOARD_USER_PERMISSIONS] },
        3600,
      );
    const suffix = Date.now().toString(36);

    const alice = as(await userToken('alice', `alice-${suffix}@example.com`, 'Alice'));
    const organization = ok(await alice.POST('/organizations', { body: { name: 'Acme Corp' } }));
    expect(organization.role).to.equal('owner');
    const orgId = organization.id;

    const bobEmail = `bob-${suffix}@example.com`;
    const invitation = ok(
      await alice.POST('/organizations/{org_id}/members', {
        params: { path: { org_id: orgId } },
        body: { email: bobEmail, role: 'member' },
      }),
    );
    expect(invitation.status).to.equal('invited');

    const bob = as(await userToken('bob', bobEmail, 'Bob'));
    const bobProfile = ok(await bob.GET('/users/me'));
    expect(bobProfile.id).to.equal(invitation.user_id);
    const members = ok(
      await alice.GET('/organizations/{org_id}/members', { params: { path: { org_id: orgId }, query: { page: 1, limit: 10 } } }),
    );
    expect(members.data.map((member) => member.status)).to.deep.equal(['active', 'active']);

    const application = ok(
      await bob.POST('/applications', { body: { organization_id: orgId, name: 'Checkout', region: 'EU', pricing_plan: 'pro' } }),
    );
    const appId = application.id;
    const created = ok(
      await bob.POST('/api-keys', {
        body: { app_id: appId, name: 'reader', permissions: ['read:traces', 'read:organizations', 'read:applications'] },
      }),
    );

    const token = ok(
      await anonymous.POST('/auth/token', {
        body: { grant_type: 'client_credentials', client_id: created.api_key, client_secret: created.api_secret },
      }),
    );
    const asKey = as(token.access_token);
    expect(ok(await asKey.GET('/organizations/{org_id}', { params: { path: { org_id: orgId } } })).role).to.equal('member');
    expect(ok(await asKey.GET('/applications/{app_id}', { params: { path: { app_id: appId } } })).pricing_plan).to.equal('pro');
    const engine = createClient<EnginePaths>({ baseUrl, fetch: checkingFetch, headers: { Authorization: `Bearer ${token.access_token}` } });
    const traces = await engine.POST('/engine/query', {
      params: { query: { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' }, header: { 'X-Vendor-App-Id': appId } },
      body: { filter: null },
    });
    expect(traces.response.status).to.equal(200);

    const rotated = ok(await bob.POST('/api-keys/{api_key}/rotate-secret', { params: { path: { api_key: created.api_key } } }));
    expect((await asKey.GET('/organizations/{org_id}', { params: { path: { org_id: orgId } } })).response.status).to.equal(401);
    const stale = await anonymous.POST('/auth/token', {
      body: { grant_type: 'client_credentials', client_id: created.api_key, client_secret: created.api_secret },
    });
    expect(stale.response.status).to.equal(401);
    expect(stale.error).to.include({ error: 'invalid_client' });
    const fresh = ok(
      await anonymous.POST('/auth/token', {
        body: { grant_type: 'client_credentials', client_id: created.api_key, client_secret: rotated.api_secret },
      }),
    );

    const updated = ok(
      await bob.PATCH('/api-keys/{api_key}', { params: { path: { api_key: created.api_key } }, body: { permissions: ['read:traces'] } }),
    );
    expect(updated.permissions).to.deep.equal(['read:traces']);
    const listed = ok(await bob.GET('/api-keys', { params: { query: { app_id: appId } } }));
    expect(listed.pagination.total).to.equal(1);
    expect(listed.data[0]).to.not.have.property('api_secret');

    ok(await bob.DELETE('/api-keys/{api_key}', { params: { path: { api_key: created.api_key } } }));
    expect((await as(fresh.access_token).GET('/applications/{app_id}', { params: { path: { app_id: appId } } })).response.status).to.equal(
      401,
    );

    const second = ok(await bob.POST('/api-keys', { body: { app_id: appId, name: 'writer', permissions: ['write:traces'] } }));
    const renamed = ok(
      await bob.PATCH('/applications/{app_id}', { params: { path: { app_id: appId } }, body: { name: 'Checkout (prod)' } }),
    );
    expect(renamed.name).to.equal('Checkout (prod)');
    const blocked = await alice.DELETE('/organizations/{org_id}', { params: { path: { org_id: orgId } } });
    expect(blocked.response.status).to.equal(400);
    ok(await bob.DELETE('/applications/{app_id}', { params: { path: { app_id: appId } } }));
    expect((await bob.GET('/api-keys/{api_key}', { params: { path: { api_key: second.api_key } } })).response.status).to.equal(404);
    const applications = ok(await alice.GET('/applications', { params: { query: { organization_id: orgId, region: 'EU' } } }));
    expect(applications.data).to.deep.equal([]);

    ok(await alice.PATCH('/organizations/{org_id}', { params: { path: { org_id: orgId } }, body: { billing_address: { country: 'DE' } } }));
    ok(await alice.PUT('/users', { body: { name: 'Alice A.', email: `alice.a-${suffix}@example.com` } }));
    const deleted = ok(await alice.DELETE('/organizations/{org_id}', { params: { path: { org_id: orgId } } }));
    expect(deleted.id).to.equal(orgId);
    expect(ok(await alice.GET('/organizations')).organizations.map((item) => item.id)).to.not.include(orgId);
  });
});
