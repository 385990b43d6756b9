// The calling user's profile: GET /users/me and PUT /users.
import { expect } from 'chai';
import { DASHBOARD_USER_PERMISSIONS } from '../../src/permissions.js';
import { onEachDatabase } from '../support/test-server.js';
import {
  callerFor,
  createApiKey,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  ownerWithApplication,
} from '../support/management.js';

onEachDatabase('users', (app) => {
  it('returns the profile started from the token claims', async () => {
    const alice = await dashboardUser(app(), 'Alice');
    const me = await callerFor(app(), alice.token)('GET', '/users/me');
    expectStatus(me, 200);
    expect(me.body).to.have.all.keys('id', 'name', 'email', 'created_at', 'updated_at');
    expect(me.body).to.include({ name: 'Alice', email: alice.email });
    expect(me.body.id).to.match(/^usr_[A-Za-z0-9]+$/);
  });

  it('answers the declared 422 to a query parameter it does not take', async () => {
    const alice = await dashboardUser(app(), 'Alice');
    const me = await callerFor(app(), alice.token)('GET', '/users/me', { query: { x: '1' } });
    expectStatus(me, 422);
    expect(me.body.detail[0].loc).to.deep.equal(['query', 'x']);
  });

  it('answers null name and e-mail when the token carried none', async () => {
    const token = await app().server.tokens.signUserToken(
      { subject: `anon-${Date.now()}`, permissions: [...DASHBOARD_USER_PERMISSIONS] },
      3600,
    );
    const me = await callerFor(app(), token)('GET', '/users/me');
    expectStatus(me, 200);
    expect(me.body).to.include({ name: null, email: null });
    // Such a user can still own an organization and be listed as a member.
    const as = callerFor(app(), token);
    const orgId = await createOrganization(as);
    const members = await as('GET', `/organizations/${orgId}/members`);
    expectStatus(members, 200);
    expect(members.body.data[0]).to.include({ email: null, name: null, role: 'owner', status: 'active' });
  });

  it('updates name and e-mail; later sign-ins keep them', async () => {
    const bob = await dashboardUser(app(), 'Bob');
    const as = callerFor(app(), bob.token);
    const before = (await as('GET', '/users/me')).body;
    const updated = await as('PUT', '/users', { json: { name: 'Robert 🎸 روبرت', email: 'robert@example.org' } });
    expectStatus(updated, 200);
    expect(updated.body).to.have.all.keys('updated_at');
    const after = await as('GET', '/users/me');
    expect(after.body).to.deep.equal({
      ...before,
      name: 'Robert 🎸 روبرت',
      email: 'robert@example.org',
      updated_at: updated.body.updated_at,
    });
  });

  it('is for dashboard users only: an API key gets 403', async () => {
    const { as, appId } = await ownerWithApplication(app());
    const key = await createApiKey(as, appId, ['read:applications']);
    const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
    expectStatus(await asKey('GET', '/users/me'), 403);
    expectStatus(await asKey('PUT', '/users', { json: { name: 'Key', email: 'key@example.com' } }), 403);
  });

  it('answers 401 without a token', async () => {
    const anonymous = callerFor(app());
    const response = await anonymous('GET', '/users/me');
    expectStatus(response, 401);
    expect(response.headers.get('www-authenticate')).to.match(/^Bearer/);
  });
});
