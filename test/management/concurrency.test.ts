// Concurrent requests never leave a half-done state: of two conflicting writes one wins and the
// other is refused, and the invariants hold afterwards (checked in the database itself).
import { expect } from 'chai';
import { onEachDatabase } from '../support/test-server.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  exchange,
  expectStatus,
  ownerWithApplication,
} from '../support/management.js';

const ROUNDS = 4;

function statuses(responses: Array<{ status: number }>): number[] {
  return responses.map((response) => response.status).sort();
}

onEachDatabase('concurrent management writes', (app) => {
  it('lets exactly one of two DELETEs of the same key succeed', async () => {
    const { as, appId } = await ownerWithApplication(app());
    for (let round = 0; round < ROUNDS; round += 1) {
      const { apiKey } = await createApiKey(as, appId);
      const responses = await Promise.all([as('DELETE', `/api-keys/${apiKey}`), as('DELETE', `/api-keys/${apiKey}`)]);
      expect(statuses(responses)).to.deep.equal([200, 404]);
    }
  });

  it('lets exactly one of two DELETEs of the same application succeed', async () => {
    const { as, orgId } = await ownerWithApplication(app());
    for (let round = 0; round < ROUNDS; round += 1) {
      const appId = await createApplication(as, orgId, { name: `round ${round}` });
      const responses = await Promise.all([as('DELETE', `/applications/${appId}`), as('DELETE', `/applications/${appId}`)]);
      expect(statuses(responses)).to.deep.equal([200, 404]);
    }
  });

  it('never leaves a live key on an application deleted while keys were being created for it', async () => {
    const { as, orgId } = await ownerWithApplication(app());
    for (let round = 0; round < ROUNDS; round += 1) {
      const appId = await createApplication(as, orgId, { name: `round ${round}` });
      const creates = Array.from({ length: 4 }, (_, index) =>
        as('POST', '/api-keys', { json: { app_id: appId, name: `k${index}`, permissions: ['read:traces'] } }),
      );
      const [deleted, ...created] = await Promise.all([as('DELETE', `/applications/${appId}`), ...creates]);
      expectStatus(deleted, 200);
      for (const response of created) expect([201, 404]).to.include(response.status);
      const live = await app().server.knex('api_keys').where({ application_id: appId }).whereNull('deleted_at');
      expect(live).to.deep.equal([]);
      for (const response of created.filter((entry) => entry.status === 201)) {
        expectStatus(await exchange(app(), response.body.api_key, response.body.api_secret), 401);
      }
    }
  });

  it('never deletes an organization while an application is being created in it', async () => {
    const user = await dashboardUser(app());
    const as = callerFor(app(), user.token);
    for (let round = 0; round < ROUNDS; round += 1) {
      const orgId = await createOrganization(as, `round ${round}`);
      const [deleted, created] = await Promise.all([
        as('DELETE', `/organizations/${orgId}`),
        as('POST', '/applications', { json: { organization_id: orgId, name: 'racing', region: 'US' } }),
      ]);
      // Either the delete went first (and the create found no organization) or the create did (and the delete was refused).
      expect([
        [200, 404],
        [400, 201],
      ]).to.deep.include([deleted.status, created.status]);
      const orphans = await app()
        .server.knex('applications as a')
        .join('organizations as o', 'o.id', 'a.organization_id')
        .whereNull('a.deleted_at')
        .whereNotNull('o.deleted_at')
        .where('o.id', orgId);
      expect(orphans).to.deep.equal([]);
    }
  });

  it('keeps one owner when two owners demote each other at once', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const first = await dashboardUser(app(), 'First');
      const second = await dashboardUser(app(), 'Second');
      const asFirst = callerFor(app(), first.token);
      const asSecond = callerFor(app(), second.token);
      const orgId = await createOrganization(asFirst);
      const firstId = (await asFirst('GET', '/users/me')).body.id;
      const added = await asFirst('POST', `/organizations/${orgId}/members`, { json: { email: second.email, role: 'owner' } });
      expectStatus(added, 201);
      const responses = await Promise.all([
        asFirst('PATCH', `/organizations/${orgId}/members/${added.body.user_id}`, { json: { role: 'member' } }),
        asSecond('PATCH', `/organizations/${orgId}/members/${firstId}`, { json: { role: 'member' } }),
      ]);
      // The loser is refused either by the last-owner rule (409) or, already demoted, by its role (403).
      expect(responses.filter((response) => response.status === 200)).to.have.length(1);
      for (const response of responses.filter((entry) => entry.status !== 200)) expect([403, 409]).to.include(response.status);
      const owners = await app().server.knex('memberships').where({ organization_id: orgId, role: 'owner' }).whereNull('deleted_at');
      expect(owners).to.have.length(1);
    }
  });

  it('keeps one owner when two owners remove themselves at once', async () => {
    const first = await dashboardUser(app(), 'First');
    const second = await dashboardUser(app(), 'Second');
    const asFirst = callerFor(app(), first.token);
    const asSecond = callerFor(app(), second.token);
    const orgId = await createOrganization(asFirst);
    const firstId = (await asFirst('GET', '/users/me')).body.id;
    const added = await asFirst('POST', `/organizations/${orgId}/members`, { json: { email: second.email, role: 'owner' } });
    const responses = await Promise.all([
      asFirst('DELETE', `/organizations/${orgId}/members/${firstId}`),
      asSecond('DELETE', `/organizations/${orgId}/members/${added.body.user_id}`),
    ]);
    expect(statuses(responses)).to.deep.equal([200, 409]);
  });

  it('adds a person once when the same e-mail is added twice at once', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    const orgId = await createOrganization(as);
    const email = `twice-${orgId.slice(4, 12)}@example.com`;
    const responses = await Promise.all([
      as('POST', `/organizations/${orgId}/members`, { json: { email } }),
      as('POST', `/organizations/${orgId}/members`, { json: { email } }),
    ]);
    expect(statuses(responses)).to.deep.equal([201, 409]);
  });

  it('keeps both of two concurrent PATCHes of different address fields', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    const orgId = await createOrganization(as);
    const responses = await Promise.all([
      as('PATCH', `/organizations/${orgId}`, { json: { address: { city: 'Lyon' } } }),
      as('PATCH', `/organizations/${orgId}`, { json: { address: { country: 'FR' } } }),
      as('PATCH', `/organizations/${orgId}`, { json: { address: { street: '1 Rue de la Paix' } } }),
    ]);
    expect(statuses(responses)).to.deep.equal([200, 200, 200]);
    const read = await as('GET', `/organizations/${orgId}`);
    expect(read.body.address).to.include({ city: 'Lyon', country: 'FR', street: '1 Rue de la Paix' });
  });

  it('leaves exactly one working secret after two rotations at once', async () => {
    const { as, appId } = await ownerWithApplication(app());
    const key = await createApiKey(as, appId);
    const rotations = await Promise.all([
      as('POST', `/api-keys/${key.apiKey}/rotate-secret`),
      as('POST', `/api-keys/${key.apiKey}/rotate-secret`),
    ]);
    expect(statuses(rotations)).to.deep.equal([200, 200]);
    const exchanges = await Promise.all(rotations.map((rotation) => exchange(app(), key.apiKey, rotation.body.api_secret)));
    expect(statuses(exchanges)).to.deep.equal([200, 401]);
  });
});
