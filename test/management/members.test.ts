// Members through HTTP: adding by e-mail (active at once, or invited until first sign-in),
// duplicates, roles, removal, and the rule that the last owner can be neither removed nor demoted.
import { expect } from 'chai';
import { newId } from '../../src/storage/accounts/ids.js';
import { onEachDatabase } from '../support/test-server.js';
import {
  callerFor,
  createApiKey,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  ownerWithApplication,
  type Caller,
} from '../support/management.js';

async function myUserId(as: Caller): Promise<string> {
  return (await as('GET', '/users/me')).body.id;
}

onEachDatabase('members', (app) => {
  it('adds a signed-in user by e-mail as active, case-insensitively, and refuses a second add with 409', async () => {
    const owner = await dashboardUser(app(), 'Owner');
    const as = callerFor(app(), owner.token);
    const orgId = await createOrganization(as);
    const carol = await dashboardUser(app(), 'Carol');
    const carolId = await myUserId(callerFor(app(), carol.token));

    const added = await as('POST', `/organizations/${orgId}/members`, { json: { email: carol.email.toUpperCase() } });
    expectStatus(added, 201);
    expect(added.body).to.deep.include({ user_id: carolId, email: carol.email, name: 'Carol', role: 'member', status: 'active' });

    const again = await as('POST', `/organizations/${orgId}/members`, { json: { email: carol.email, role: 'owner' } });
    expectStatus(again, 409);
    expect(again.body.detail).to.match(/already a member/);
    expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email: owner.email } }), 409);

    const listed = await as('GET', `/organizations/${orgId}/members`);
    expectStatus(listed, 200);
    expect(listed.body.pagination).to.deep.equal({ page: 1, limit: 20, total: 2 });
    expect(listed.body.data.map((member: { role: string; status: string }) => [member.role, member.status])).to.deep.equal([
      ['owner', 'active'],
      ['member', 'active'],
    ]);
  });

  it('invites an unknown e-mail; the membership binds at first sign-in and then grants access', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
    const orgId = await createOrganization(as);
    const otherOrg = await createOrganization(as, 'Second');
    const email = `dave-${orgId.slice(4, 12)}@example.com`;
    const invited = await as('POST', `/organizations/${orgId}/members`, { json: { email, role: 'owner' } });
    expectStatus(invited, 201);
    expect(invited.body).to.deep.include({ email, name: null, role: 'owner', status: 'invited' });
    expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email: email.toUpperCase() } }), 409);
    // A second invitation of the same person elsewhere uses the same placeholder user.
    const second = await as('POST', `/organizations/${otherOrg}/members`, { json: { email } });
    expect(second.body.user_id).to.equal(invited.body.user_id);

    const dave = await dashboardUser(app(), 'Dave', email);
    const asDave = callerFor(app(), dave.token);
    expect(await myUserId(asDave)).to.equal(invited.body.user_id);
    const organizations = await asDave('GET', '/organizations');
    expect(
      organizations.body.organizations.map((organization: { id: string; role: string }) => [organization.id, organization.role]),
    ).to.have.deep.members([
      [orgId, 'owner'],
      [otherOrg, 'member'],
    ]);
    const member = (await as('GET', `/organizations/${orgId}/members`)).body.data.find(
      (entry: { user_id: string }) => entry.user_id === invited.body.user_id,
    );
    expect(member).to.deep.include({ status: 'active', name: 'Dave' });
  });

  it('keeps an invitation that raced another one for the same new e-mail: the first sign-in gets both', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
    const orgId = await createOrganization(as);
    const otherOrg = await createOrganization(as, 'Second');
    const email = `frank-${orgId.slice(4, 12)}@example.com`;
    const invited = await as('POST', `/organizations/${orgId}/members`, { json: { email } });
    expectStatus(invited, 201);
    // The state two simultaneous invitations leave on MariaDB: each made its own placeholder.
    const knex = app().server.knex;
    const raced = newId('usr');
    const later = Date.now() + 1;
    await knex('users').insert({
      id: raced,
      issuer: null,
      subject: null,
      email: email.toUpperCase(),
      name: null,
      created_at: later,
      updated_at: later,
    });
    await knex('memberships').insert({ organization_id: otherOrg, user_id: raced, role: 'owner', created_at: later, updated_at: later });

    const asFrank = callerFor(app(), (await dashboardUser(app(), 'Frank', email)).token);
    expect(await myUserId(asFrank)).to.equal(invited.body.user_id);
    const organizations = await asFrank('GET', '/organizations');
    expect(
      organizations.body.organizations.map((organization: { id: string; role: string }) => [organization.id, organization.role]),
    ).to.have.deep.members([
      [orgId, 'member'],
      [otherOrg, 'owner'],
    ]);
    expect(await knex('users').where({ id: raced }).first()).to.equal(undefined);
  });

  it('changes roles; a promoted member can then manage members', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
    const orgId = await createOrganization(as);
    const erin = await dashboardUser(app(), 'Erin');
    const asErin = callerFor(app(), erin.token);
    const added = await as('POST', `/organizations/${orgId}/members`, { json: { email: erin.email } });
    expectStatus(await asErin('POST', `/organizations/${orgId}/members`, { json: { email: 'x@example.com' } }), 403);
    expectStatus(await asErin('PATCH', `/organizations/${orgId}/members/${added.body.user_id}`, { json: { role: 'owner' } }), 403);
    expectStatus(await asErin('GET', `/organizations/${orgId}/members`), 200);

    const promoted = await as('PATCH', `/organizations/${orgId}/members/${added.body.user_id}`, { json: { role: 'owner' } });
    expectStatus(promoted, 200);
    expect(promoted.body).to.deep.include({ user_id: added.body.user_id, role: 'owner', status: 'active' });
    expectStatus(await asErin('POST', `/organizations/${orgId}/members`, { json: { email: `f-${orgId.slice(4, 12)}@example.com` } }), 201);
    expectStatus(await asErin('PATCH', `/organizations/${orgId}`, { json: { name: 'Renamed by Erin' } }), 200);
  });

  it('never removes or demotes the last owner (409), but does once another owner has signed in', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
    const ownerId = await myUserId(as);
    const orgId = await createOrganization(as);

    const demote = await as('PATCH', `/organizations/${orgId}/members/${ownerId}`, { json: { role: 'member' } });
    expectStatus(demote, 409);
    expect(demote.body.detail).to.match(/last owner/);
    const remove = await as('DELETE', `/organizations/${orgId}/members/${ownerId}`);
    expectStatus(remove, 409);
    expect(remove.body.detail).to.match(/last owner/);
    expectStatus(await as('PATCH', `/organizations/${orgId}/members/${ownerId}`, { json: { role: 'owner' } }), 200); // no change, no conflict

    // An invited owner cannot act yet, so does not count.
    const email = `g-${orgId.slice(4, 12)}@example.com`;
    expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email, role: 'owner' } }), 201);
    expectStatus(await as('DELETE', `/organizations/${orgId}/members/${ownerId}`), 409);

    const asGrace = callerFor(app(), (await dashboardUser(app(), 'Grace', email)).token);
    await myUserId(asGrace); // first sign-in binds the invitation
    expectStatus(await as('PATCH', `/organizations/${orgId}/members/${ownerId}`, { json: { role: 'member' } }), 200);
    const graceId = await myUserId(asGrace);
    expectStatus(await asGrace('DELETE', `/organizations/${orgId}/members/${graceId}`), 409);
    expectStatus(await asGrace('DELETE', `/organizations/${orgId}/members/${ownerId}`), 200);
    expectStatus(await as('GET', `/organizations/${orgId}`), 404);
  });

  it('removes a member, who loses access at once, and can add them again', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app(), 'Owner');
    const henry = await dashboardUser(app(), 'Henry');
    const asHenry = callerFor(app(), henry.token);
    const added = await as('POST', `/organizations/${orgId}/members`, { json: { email: henry.email } });
    expectStatus(await asHenry('GET', `/applications/${appId}`), 200);

    const removed = await as('DELETE', `/organizations/${orgId}/members/${added.body.user_id}`);
    expectStatus(removed, 200);
    expect(removed.body).to.include({ user_id: added.body.user_id });
    expect(removed.body.deleted_at).to.be.a('string');
    expectStatus(await asHenry('GET', `/applications/${appId}`), 404);
    expectStatus(await asHenry('GET', `/organizations/${orgId}`), 404);
    expect((await asHenry('GET', '/organizations')).body.organizations).to.deep.equal([]);
    expectStatus(await as('DELETE', `/organizations/${orgId}/members/${added.body.user_id}`), 404);
    expectStatus(await as('PATCH', `/organizations/${orgId}/members/${added.body.user_id}`, { json: { role: 'owner' } }), 404);
    expect((await as('GET', `/organizations/${orgId}/members`)).body.pagination.total).to.equal(1);

    const readded = await as('POST', `/organizations/${orgId}/members`, { json: { email: henry.email, role: 'owner' } });
    expectStatus(readded, 201);
    expect(readded.body).to.include({ user_id: added.body.user_id, role: 'owner', status: 'active' });
    expectStatus(await asHenry('GET', `/applications/${appId}`), 200);
  });

  it('withdraws an invitation', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
    const orgId = await createOrganization(as);
    const email = `i-${orgId.slice(4, 12)}@example.com`;
    const invited = await as('POST', `/organizations/${orgId}/members`, { json: { email } });
    expectStatus(await as('DELETE', `/organizations/${orgId}/members/${invited.body.user_id}`), 200);
    const asIvan = callerFor(app(), (await dashboardUser(app(), 'Ivan', email)).token);
    expectStatus(await asIvan('GET', `/organizations/${orgId}`), 404);
  });

  it('answers 404 for a user who is not a member and for another organization', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
    const orgId = await createOrganization(as);
    const outsider = callerFor(app(), (await dashboardUser(app(), 'Outsider')).token);
    const outsiderId = await myUserId(outsider);
    expectStatus(await as('PATCH', `/organizations/${orgId}/members/${outsiderId}`, { json: { role: 'owner' } }), 404);
    expectStatus(await as('DELETE', `/organizations/${orgId}/members/${outsiderId}`), 404);
    expectStatus(await outsider('GET', `/organizations/${orgId}/members`), 404);
    expectStatus(await outsider('POST', `/organizations/${orgId}/members`, { json: { email: 'me@example.com' } }), 404);
  });

  it('keeps members for dashboard users: an API key gets 403', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app());
    const key = await createApiKey(as, appId, ['read:organizations', 'update:organizations']);
    const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
    expectStatus(await asKey('GET', `/organizations/${orgId}/members`), 403);
    expectStatus(await asKey('POST', `/organizations/${orgId}/members`, { json: { email: 'k@example.com' } }), 403);
  });

  it('paginates members', async () => {
    const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
    const orgId = await createOrganization(as);
    for (let index = 0; index < 4; index += 1) {
      expectStatus(
        await as('POST', `/organizations/${orgId}/members`, { json: { email: `p${index}-${orgId.slice(4, 12)}@example.com` } }),
        201,
      );
    }
    const seen = [];
    for (let page = 1; page <= 3; page += 1) {
      const response = await as('GET', `/organizations/${orgId}/members`, { query: { page, limit: 2 } });
      expect(response.body.pagination).to.deep.equal({ page, limit: 2, total: 5 });
      seen.push(...response.body.data.map((member: { user_id: string }) => member.user_id));
    }
    expect(new Set(seen).size).to.equal(5);
  });
});
