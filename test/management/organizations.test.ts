// Organizations through HTTP: what create answers, PATCH changing only the fields sent (addresses
// merged field by field), who sees what, pagination, unicode, and the delete rules.
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

const EMPTY_ADDRESS = { street: '', city: '', state: '', postal_code: '', country: '' };

// Emoji (with a ZWJ sequence and a flag), right-to-left text, combining marks and a 255-character emoji name.
const UNICODE_NAMES = ['Café 🚀 👩‍💻 🇩🇪', 'שלום עולם مرحبا', 'e\u0301 a\u0308 n\u0303 Z\u0335\u0321\u0307', '🦄'.repeat(255)];

onEachDatabase('organizations', (app) => {
  it('creates an organization whose creator is its owner, with empty details', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    const created = await as('POST', '/organizations', { json: { name: 'Acme Corp' } });
    expectStatus(created, 201);
    expect(created.body).to.have.all.keys('id', 'role', 'created_at');
    expect(created.body.role).to.equal('owner');
    expect(created.body.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await as('GET', `/organizations/${created.body.id}`);
    expectStatus(read, 200);
    expect(read.body).to.deep.equal({
      id: created.body.id,
      name: 'Acme Corp',
      role: 'owner',
      created_at: created.body.created_at,
      updated_at: created.body.created_at,
      contract_email: '',
      tax_id: '',
      address: EMPTY_ADDRESS,
      billing_address: EMPTY_ADDRESS,
    });
  });

  it('changes only the fields sent and merges addresses field by field', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    const orgId = await createOrganization(as, 'Initech');
    const first = await as('PATCH', `/organizations/${orgId}`, {
      json: {
        contract_email: 'contracts@initech.example',
        tax_id: 'DE 123-456',
        address: { street: '1 Main Street', city: 'Springfield' },
        billing_address: { country: 'DE' },
      },
    });
    expectStatus(first, 200);
    expect(first.body).to.have.all.keys('id', 'updated_at');
    expect(first.body.id).to.equal(orgId);

    const second = await as('PATCH', `/organizations/${orgId}`, {
      json: { address: { city: 'Shelbyville', country: 'US' }, billing_address: { country: '' } },
    });
    expectStatus(second, 200);
    const read = await as('GET', `/organizations/${orgId}`);
    expect(read.body).to.deep.include({
      name: 'Initech',
      contract_email: 'contracts@initech.example',
      tax_id: 'DE 123-456',
      address: { street: '1 Main Street', city: 'Shelbyville', state: '', postal_code: '', country: 'US' },
      billing_address: EMPTY_ADDRESS,
      updated_at: second.body.updated_at,
    });

    const renamed = await as('PATCH', `/organizations/${orgId}`, { json: { name: 'Initrode', contract_email: '' } });
    expectStatus(renamed, 200);
    const again = await as('GET', `/organizations/${orgId}`);
    expect(again.body).to.deep.include({ name: 'Initrode', contract_email: '', tax_id: 'DE 123-456' });
    expect(again.body.address.street).to.equal('1 Main Street');
  });

  it('accepts a contract_email of 255 characters and a tax_id of 50 (the bounds themselves)', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    const orgId = await createOrganization(as);
    const email = `${'c'.repeat(243)}@example.com`;
    expectStatus(await as('PATCH', `/organizations/${orgId}`, { json: { contract_email: email, tax_id: `${'A1 -'.repeat(12)}ab` } }), 200);
    const read = await as('GET', `/organizations/${orgId}`);
    expect(read.body.contract_email).to.have.length(255);
    expect(read.body.tax_id).to.have.length(50);
  });

  it('stores and returns unicode names unchanged', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    for (const name of UNICODE_NAMES) {
      const orgId = await createOrganization(as, name);
      expect((await as('GET', `/organizations/${orgId}`)).body.name, name).to.equal(name);
      const renamed = `${name.slice(0, 200)} ✓`;
      expectStatus(await as('PATCH', `/organizations/${orgId}`, { json: { name: renamed, address: { city: name.slice(0, 100) } } }), 200);
      const read = await as('GET', `/organizations/${orgId}`);
      expect(read.body.name).to.equal(renamed);
      expect(read.body.address.city).to.equal(name.slice(0, 100));
    }
  });

  it('lists only the caller organizations, each with the caller role, oldest first and paginated', async () => {
    const alice = callerFor(app(), (await dashboardUser(app(), 'Alice')).token);
    const bob = await dashboardUser(app(), 'Bob');
    const asBob = callerFor(app(), bob.token);
    const owned = [];
    for (let index = 0; index < 5; index += 1) owned.push(await createOrganization(alice, `Alice ${index}`));
    const bobsOwn = await createOrganization(asBob, 'Bob only');
    expectStatus(await asBob('POST', `/organizations/${owned[2]}/members`, { json: { email: 'x@example.com' } }), 404);
    expectStatus(await alice('POST', `/organizations/${owned[2]}/members`, { json: { email: bob.email } }), 201);

    const pages = [];
    for (let page = 1; page <= 3; page += 1) {
      const response = await alice('GET', '/organizations', { query: { page, limit: 2 } });
      expectStatus(response, 200);
      expect(response.body.pagination).to.deep.equal({ page, limit: 2, total: 5 });
      pages.push(...response.body.organizations);
    }
    expect(pages.map((organization) => organization.id)).to.have.members(owned);
    expect(pages.every((organization) => organization.role === 'owner')).to.equal(true);
    const times = pages.map((organization) => Date.parse(organization.created_at));
    expect(times).to.deep.equal([...times].sort((a, b) => a - b));
    const beyond = await alice('GET', '/organizations', { query: { page: 4, limit: 2 } });
    expect(beyond.body.organizations).to.deep.equal([]);
    expect(beyond.body.pagination.total).to.equal(5);

    const bobs = await asBob('GET', '/organizations');
    expect(bobs.body.pagination).to.deep.equal({ page: 1, limit: 20, total: 2 });
    expect(
      bobs.body.organizations.map((organization: { id: string; role: string }) => [organization.id, organization.role]),
    ).to.have.deep.members([
      [bobsOwn, 'owner'],
      [owned[2], 'member'],
    ]);
  });

  it('shows an API key only its own organization, as a member', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app());
    await createOrganization(as, 'Another of mine');
    const key = await createApiKey(as, appId, ['read:organizations']);
    const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
    const listed = await asKey('GET', '/organizations');
    expectStatus(listed, 200);
    expect(listed.body.organizations.map((organization: { id: string }) => organization.id)).to.deep.equal([orgId]);
    expect(listed.body.organizations[0].role).to.equal('member');
    expect(listed.body.pagination.total).to.equal(1);
    expect((await asKey('GET', '/organizations', { query: { page: 2 } })).body.organizations).to.deep.equal([]);
  });

  it('lets an API key holding update:organizations PATCH its own organization only', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app());
    const otherOrg = await createOrganization(as, 'Other');
    const key = await createApiKey(as, appId, ['update:organizations']);
    const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
    expectStatus(await asKey('PATCH', `/organizations/${orgId}`, { json: { tax_id: 'FR-1' } }), 200);
    expect((await as('GET', `/organizations/${orgId}`)).body.tax_id).to.equal('FR-1');
    expectStatus(await asKey('PATCH', `/organizations/${otherOrg}`, { json: { tax_id: 'FR-2' } }), 404);
    expectStatus(await asKey('GET', `/organizations/${orgId}`), 403); // no read:organizations
    expectStatus(await asKey('DELETE', `/organizations/${orgId}`), 404); // deletes are for owners only
  });

  it('refuses a member the owner-only operations with 403, and hides other organizations with 404', async () => {
    const { as, orgId } = await ownerWithApplication(app());
    const member = await dashboardUser(app(), 'Member');
    const asMember = callerFor(app(), member.token);
    expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email: member.email } }), 201);
    expectStatus(await asMember('GET', `/organizations/${orgId}`), 200);
    expect((await asMember('GET', `/organizations/${orgId}`)).body.role).to.equal('member');
    expectStatus(await asMember('PATCH', `/organizations/${orgId}`, { json: { name: 'Mine now' } }), 403);
    expectStatus(await asMember('DELETE', `/organizations/${orgId}`), 404);

    const stranger = callerFor(app(), (await dashboardUser(app(), 'Stranger')).token);
    expectStatus(await stranger('GET', `/organizations/${orgId}`), 404);
    expectStatus(await stranger('PATCH', `/organizations/${orgId}`, { json: { name: 'Mine now' } }), 404);
    expectStatus(await stranger('DELETE', `/organizations/${orgId}`), 404);
    expect((await as('GET', `/organizations/${orgId}`)).body.name).to.not.equal('Mine now');
  });

  it('refuses to delete an organization with active applications (400), then deletes it once they are gone', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app());
    const refused = await as('DELETE', `/organizations/${orgId}`);
    expectStatus(refused, 400);
    expect(refused.body.detail).to.match(/active applications/);
    expectStatus(await as('GET', `/organizations/${orgId}`), 200);

    expectStatus(await as('DELETE', `/applications/${appId}`), 200);
    const deleted = await as('DELETE', `/organizations/${orgId}`);
    expectStatus(deleted, 200);
    expect(deleted.body).to.have.all.keys('id', 'message', 'deleted_at');
    expectStatus(await as('DELETE', `/organizations/${orgId}`), 404);
    expectStatus(await as('GET', `/organizations/${orgId}`), 404);
    expectStatus(await as('PATCH', `/organizations/${orgId}`, { json: { name: 'Back' } }), 404);
    expectStatus(await as('GET', `/organizations/${orgId}/members`), 404);
    expectStatus(await as('GET', '/applications', { query: { organization_id: orgId } }), 404);
    expectStatus(await as('POST', '/applications', { json: { organization_id: orgId, name: 'Late', region: 'EU' } }), 404);
  });

  it('answers 404 for an unknown organization', async () => {
    const as = callerFor(app(), (await dashboardUser(app())).token);
    expectStatus(await as('GET', '/organizations/org_doesnotexist'), 404);
    expectStatus(await as('DELETE', '/organizations/org_doesnotexist'), 404);
  });

  it('keeps an organization with a deleted application but a live second one undeletable', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app());
    await createApplication(as, orgId, { name: 'Second' });
    expectStatus(await as('DELETE', `/applications/${appId}`), 200);
    expectStatus(await as('DELETE', `/organizations/${orgId}`), 400);
  });
});
