// The whole account lifecycle as one story, through HTTP: organization, member, application,
// API key and its token, rotation, deletion of the key, the application and the organization.
import { expect } from 'chai';
import { onEachDatabase } from '../support/test-server.js';
import { callerFor, dashboardUser, exchange, expectStatus, keyToken } from '../support/management.js';

const WINDOW = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };

onEachDatabase('management lifecycle', (app) => {
  it('runs from organization creation to organization deletion', async () => {
    const alice = await dashboardUser(app(), 'Alice');
    const asAlice = callerFor(app(), alice.token);

    // A user creates an organization and becomes its owner.
    const created = await asAlice('POST', '/organizations', { json: { name: 'Acme Corp' } });
    expectStatus(created, 201);
    expect(created.body.role).to.equal('owner');
    const orgId: string = created.body.id;
    expect(orgId).to.match(/^org_[A-Za-z0-9]+$/);

    // ...adds a member by e-mail before that person ever signed in: the membership waits.
    const bob = await dashboardUser(app(), 'Bob', `bob-${orgId.slice(4, 10)}@Example.com`);
    const invited = await asAlice('POST', `/organizations/${orgId}/members`, { json: { email: bob.email.toLowerCase(), role: 'member' } });
    expectStatus(invited, 201);
    expect(invited.body).to.include({ status: 'invited', role: 'member', name: null });

    // The member signs in (first call) and the membership binds to them, keeping its user id.
    const asBob = callerFor(app(), bob.token);
    const me = await asBob('GET', '/users/me');
    expectStatus(me, 200);
    expect(me.body.id).to.equal(invited.body.user_id);
    const members = await asAlice('GET', `/organizations/${orgId}/members`);
    expectStatus(members, 200);
    expect(members.body.data.find((member: { user_id: string }) => member.user_id === me.body.id)).to.include({
      status: 'active',
      role: 'member',
      name: 'Bob',
    });

    // The member creates an application and a key for it.
    const application = await asBob('POST', '/applications', { json: { organization_id: orgId, name: 'Checkout', region: 'EU' } });
    expectStatus(application, 201);
    expect(application.body).to.include({ organization_id: orgId, name: 'Checkout', region: 'EU', pricing_plan: 'free' });
    const appId: string = application.body.id;
    const key = await asBob('POST', '/api-keys', {
      json: { app_id: appId, name: 'reader', permissions: ['read:traces', 'read:organizations', 'read:applications'] },
    });
    expectStatus(key, 201);
    const { api_key: apiKey, api_secret: firstSecret } = key.body;

    // The key gets a token and reads its organization, its application and traces.
    const firstToken = await keyToken(app(), apiKey, firstSecret);
    const asKey = callerFor(app(), firstToken);
    const org = await asKey('GET', `/organizations/${orgId}`);
    expectStatus(org, 200);
    expect(org.body).to.include({ id: orgId, name: 'Acme Corp', role: 'member' });
    expectStatus(await asKey('GET', `/applications/${appId}`), 200);
    const traces = await asKey('POST', '/engine/query', { query: WINDOW, headers: { 'X-Vendor-App-Id': appId }, json: {} });
    // Authorized: the engine answers, never 401/403/404.
    expect(traces.status, traces.text).to.equal(200);
    const used = await asBob('GET', `/api-keys/${apiKey}`);
    expect(used.body.last_used_at, 'last_used_at after the key was used').to.be.a('string');

    // The secret is rotated: the old secret and every token issued under it fail at once.
    const rotated = await asBob('POST', `/api-keys/${apiKey}/rotate-secret`);
    expectStatus(rotated, 200);
    expect(rotated.body.api_secret).to.not.equal(firstSecret);
    expectStatus(await asKey('GET', `/organizations/${orgId}`), 401);
    expectStatus(await exchange(app(), apiKey, firstSecret), 401);
    const secondToken = await keyToken(app(), apiKey, rotated.body.api_secret);
    expectStatus(await callerFor(app(), secondToken)('GET', `/applications/${appId}`), 200);

    // The key is deleted: its token fails, it is gone from reads and cannot get new tokens.
    const deletedKey = await asBob('DELETE', `/api-keys/${apiKey}`);
    expectStatus(deletedKey, 200);
    expect(deletedKey.body.message).to.be.a('string');
    expectStatus(await callerFor(app(), secondToken)('GET', `/applications/${appId}`), 401);
    expectStatus(await asBob('GET', `/api-keys/${apiKey}`), 404);
    expectStatus(await exchange(app(), apiKey, rotated.body.api_secret), 401);

    // The application is deleted and its keys vanish with it.
    const other = await asBob('POST', '/api-keys', { json: { app_id: appId, name: 'writer', permissions: ['write:traces'] } });
    expectStatus(other, 201);
    const otherToken = await keyToken(app(), other.body.api_key, other.body.api_secret);
    expectStatus(await asBob('DELETE', `/applications/${appId}`), 200);
    expectStatus(await asBob('GET', `/applications/${appId}`), 404);
    expectStatus(await asBob('GET', `/api-keys/${other.body.api_key}`), 404);
    expectStatus(await asBob('GET', '/api-keys', { query: { app_id: appId } }), 404);
    expectStatus(
      await callerFor(app(), otherToken)('POST', '/engine/query', { query: WINDOW, headers: { 'X-Vendor-App-Id': appId }, json: {} }),
      401,
    );
    const listed = await asAlice('GET', '/applications', { query: { organization_id: orgId } });
    expect(listed.body.data).to.deep.equal([]);

    // The organization, with no active application left, is deleted by its owner.
    expectStatus(await asBob('DELETE', `/organizations/${orgId}`), 404); // a member is not an owner
    const deletedOrg = await asAlice('DELETE', `/organizations/${orgId}`);
    expectStatus(deletedOrg, 200);
    expect(deletedOrg.body).to.include({ id: orgId });
    expect(Date.parse(deletedOrg.body.deleted_at)).to.be.closeTo(Date.now(), 60_000);
    expectStatus(await asAlice('GET', `/organizations/${orgId}`), 404);
    const organizations = await asAlice('GET', '/organizations');
    expect(organizations.body.organizations.map((item: { id: string }) => item.id)).to.not.include(orgId);
  });
});
