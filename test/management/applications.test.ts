// Applications through HTTP: create, list filters and pagination, who sees what, rename only,
// and delete taking the API keys with it.
import { expect } from 'chai';
import { onEachDatabase } from '../support/test-server.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  ownerWithApplication,
} from '../support/management.js';

onEachDatabase('applications', (app) => {
  it('creates an application with the free plan by default, and with the plan asked for', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    const orgId = await createOrganization(as);
    const free = await as('POST', '/applications', { json: { organization_id: orgId, name: 'Checkout', region: 'US' } });
    expectStatus(free, 201);
    // daily_span_quota and quota_state: management 1.4.0.
    expect(free.body).to.have.all.keys(
      'id',
      'organization_id',
      'name',
      'region',
      'pricing_plan',
      'retention_days',
      'indexed_attributes',
      'daily_span_quota',
      'quota_state',
      'created_at',
      'updated_at',
    );
    expect(free.body).to.include({ organization_id: orgId, name: 'Checkout', region: 'US', pricing_plan: 'free' });
    expect(free.body.id).to.match(/^app_[A-Za-z0-9]+$/);
    const pro = await as('POST', '/applications', {
      json: { organization_id: orgId, name: 'Search', region: 'EU', pricing_plan: 'enterprise' },
    });
    expect(pro.body).to.include({ region: 'EU', pricing_plan: 'enterprise' });
    expect((await as('GET', `/applications/${pro.body.id}`)).body).to.deep.equal(pro.body);
  });

  it('filters by organization, region and pricing plan (combined with AND) and paginates', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    const first = await createOrganization(as, 'First');
    const second = await createOrganization(as, 'Second');
    const made: Record<string, string> = {};
    for (const [org, region, plan, name] of [
      [first, 'EU', 'free', 'a'],
      [first, 'EU', 'pro', 'b'],
      [first, 'US', 'pro', 'c'],
      [second, 'EU', 'pro', 'd'],
      [second, 'US', 'enterprise', 'e'],
    ]) {
      made[name] = await createApplication(as, org, { name, region, pricing_plan: plan });
    }
    const names = async (query: Record<string, string | number>) => {
      const response = await as('GET', '/applications', { query });
      expectStatus(response, 200);
      return response.body.data.map((application: { name: string }) => application.name).sort();
    };
    expect(await names({})).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    expect(await names({ organization_id: first })).to.deep.equal(['a', 'b', 'c']);
    expect(await names({ region: 'EU' })).to.deep.equal(['a', 'b', 'd']);
    expect(await names({ pricing_plan: 'pro' })).to.deep.equal(['b', 'c', 'd']);
    expect(await names({ organization_id: first, region: 'EU', pricing_plan: 'pro' })).to.deep.equal(['b']);
    expect(await names({ organization_id: second, pricing_plan: 'free' })).to.deep.equal([]);

    const seen = [];
    for (let page = 1; page <= 3; page += 1) {
      const response = await as('GET', '/applications', { query: { page, limit: 2 } });
      expect(response.body.pagination).to.deep.equal({ page, limit: 2, total: 5 });
      expect(response.body.data).to.have.length(page === 3 ? 1 : 2);
      seen.push(...response.body.data);
    }
    expect(seen.map((application) => application.id)).to.have.members(Object.values(made));
    const times = seen.map((application) => Date.parse(application.created_at));
    expect(times).to.deep.equal([...times].sort((a, b) => a - b));
    const filtered = await as('GET', '/applications', { query: { region: 'EU', limit: 1, page: 2 } });
    expect(filtered.body.pagination).to.deep.equal({ page: 2, limit: 1, total: 3 });
  });

  it('lists only the applications of the caller organizations and hides the others (404)', async () => {
    const mine = await ownerWithApplication(app(), 'Mine');
    const theirs = await ownerWithApplication(app(), 'Theirs');
    const listed = await mine.as('GET', '/applications');
    expect(listed.body.data.map((application: { id: string }) => application.id)).to.deep.equal([mine.appId]);
    expectStatus(await mine.as('GET', '/applications', { query: { organization_id: theirs.orgId } }), 404);
    expectStatus(await mine.as('GET', `/applications/${theirs.appId}`), 404);
    expectStatus(await mine.as('PATCH', `/applications/${theirs.appId}`, { json: { name: 'Taken' } }), 404);
    expectStatus(await mine.as('DELETE', `/applications/${theirs.appId}`), 404);
    expectStatus(await mine.as('POST', '/applications', { json: { organization_id: theirs.orgId, name: 'Intruder', region: 'EU' } }), 404);
    expectStatus(await mine.as('POST', '/applications', { json: { organization_id: 'org_nothere', name: 'Nowhere', region: 'EU' } }), 404);
    expectStatus(await mine.as('GET', '/applications/app_nothere'), 404);
    expect((await theirs.as('GET', `/applications/${theirs.appId}`)).body.name).to.equal('Checkout');
  });

  it('shows an API key its own application only', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app());
    const sibling = await createApplication(as, orgId, { name: 'Sibling' });
    const key = await createApiKey(as, appId, ['read:applications']);
    const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
    const listed = await asKey('GET', '/applications');
    expectStatus(listed, 200);
    expect(listed.body.data.map((application: { id: string }) => application.id)).to.deep.equal([appId]);
    expect(listed.body.pagination.total).to.equal(1);
    const byOrg = await asKey('GET', '/applications', { query: { organization_id: orgId } });
    expect(byOrg.body.data.map((application: { id: string }) => application.id)).to.deep.equal([appId]);
    expectStatus(await asKey('GET', `/applications/${appId}`), 200);
    expectStatus(await asKey('GET', `/applications/${sibling}`), 404);
    expectStatus(await asKey('PATCH', `/applications/${appId}`, { json: { name: 'x' } }), 403); // no update:applications
    expectStatus(await asKey('POST', '/applications', { json: { organization_id: orgId, name: 'x', region: 'EU' } }), 403);
    expectStatus(await asKey('DELETE', `/applications/${appId}`), 403);
  });

  it('renames an application (also by an API key holding update:applications); region and plan stay', async () => {
    const { as, appId } = await ownerWithApplication(app());
    const renamed = await as('PATCH', `/applications/${appId}`, { json: { name: 'Checkout (prod)' } });
    expectStatus(renamed, 200);
    expect(renamed.body).to.have.all.keys('id', 'name', 'updated_at');
    expect(renamed.body).to.include({ id: appId, name: 'Checkout (prod)' });
    const key = await createApiKey(as, appId, ['update:applications', 'read:applications']);
    const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
    expectStatus(await asKey('PATCH', `/applications/${appId}`, { json: { name: 'Renamed by key' } }), 200);
    const read = await asKey('GET', `/applications/${appId}`);
    expect(read.body).to.include({ name: 'Renamed by key', region: 'EU', pricing_plan: 'free' });
    const refused = await as('PATCH', `/applications/${appId}`, { json: { name: 'x', region: 'US' } });
    expectStatus(refused, 422);
    expect((await as('GET', `/applications/${appId}`)).body.region).to.equal('EU');
  });

  it('stores and returns unicode application names unchanged', async () => {
    const { as, orgId } = await ownerWithApplication(app());
    for (const name of ['🚀 Zahlungsdienst ✓', 'تطبيق الدفع', 'Ǹ̸o̧͂ ma\u0301rks', '💳'.repeat(255)]) {
      const appId = await createApplication(as, orgId, { name });
      expect((await as('GET', `/applications/${appId}`)).body.name).to.equal(name);
      const renamed = await as('PATCH', `/applications/${appId}`, { json: { name: `${name.slice(0, 100)}☃` } });
      expect(renamed.body.name).to.equal(`${name.slice(0, 100)}☃`);
    }
  });

  it('lets a member create, rename and delete applications; deleting takes its keys along', async () => {
    const { as, orgId } = await ownerWithApplication(app());
    const member = await dashboardUser(app(), 'Member');
    const asMember = callerFor(app(), member.token);
    expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email: member.email } }), 201);
    const appId = await createApplication(asMember, orgId, { name: 'Member app' });
    const keys = [await createApiKey(asMember, appId), await createApiKey(asMember, appId, ['write:traces'])];
    const tokens = await Promise.all(keys.map((key) => keyToken(app(), key.apiKey, key.secret)));

    const deleted = await asMember('DELETE', `/applications/${appId}`);
    expectStatus(deleted, 200);
    expect(deleted.body).to.have.all.keys('id', 'message', 'deleted_at');
    expect(deleted.body.id).to.equal(appId);
    expectStatus(await asMember('DELETE', `/applications/${appId}`), 404);
    expectStatus(await asMember('PATCH', `/applications/${appId}`, { json: { name: 'Ghost' } }), 404);
    expectStatus(await asMember('POST', '/api-keys', { json: { app_id: appId, name: 'late', permissions: ['read:traces'] } }), 404);
    for (const key of keys) expectStatus(await as('GET', `/api-keys/${key.apiKey}`), 404);
    for (const token of tokens) expectStatus(await callerFor(app(), token)('GET', '/organizations'), 401);
    const rows = await app().server.knex('api_keys').where({ application_id: appId }).whereNull('deleted_at');
    expect(rows).to.deep.equal([]);
    expect(
      (await as('GET', '/applications', { query: { organization_id: orgId } })).body.data.map(
        (application: { id: string }) => application.id,
      ),
    ).to.not.include(appId);
  });
});
