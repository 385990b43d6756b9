// API keys through HTTP: the secret shown once, permissions de-duplicated and replaced whole,
// metadata-only reads with last_used_at, rotation and deletion revoking at once.
import { expect } from 'chai';
import { onEachDatabase } from '../support/test-server.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  dashboardUser,
  exchange,
  expectStatus,
  keyToken,
  ownerWithApplication,
} from '../support/management.js';

const METADATA_KEYS = [
  'name',
  'api_key',
  'app_id',
  'permissions',
  'created_at',
  'updated_at',
  'last_used_at',
  'expires_at',
  'rotation_grace_ends_at',
];

onEachDatabase('API keys', (app) => {
  it('creates a key with its secret shown once and duplicate permissions removed', async () => {
    const { as, appId } = await ownerWithApplication(app());
    const created = await as('POST', '/api-keys', {
      json: { app_id: appId, name: 'OTLP exporter', permissions: ['write:traces', 'read:traces', 'write:traces', 'read:traces'] },
    });
    expectStatus(created, 201);
    expect(created.body).to.have.all.keys('name', 'api_key', 'api_secret', 'app_id', 'permissions', 'created_at', 'expires_at');
    expect(created.body.permissions).to.deep.equal(['write:traces', 'read:traces']);
    expect(created.body.api_key).to.match(/^ak_[A-Za-z0-9]+$/);
    expect(created.body.api_secret).to.match(/^as_[A-Za-z0-9]{40,}$/);
    expect(created.headers.get('cache-control')).to.equal('no-store');

    const read = await as('GET', `/api-keys/${created.body.api_key}`);
    expectStatus(read, 200);
    expect(read.body).to.have.all.keys(...METADATA_KEYS);
    expect(read.body).to.deep.include({
      name: 'OTLP exporter',
      app_id: appId,
      permissions: ['write:traces', 'read:traces'],
      last_used_at: null,
    });
    expect(read.text).to.not.include(created.body.api_secret);
    const stored = await app().server.knex('api_keys').where({ id: created.body.api_key }).first();
    expect(JSON.stringify(stored)).to.not.include(created.body.api_secret);
  });

  it('lists an application keys as metadata only, oldest first, paginated', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app());
    const otherApp = await createApplication(as, orgId, { name: 'Other' });
    const secrets = [];
    const ids = [];
    for (let index = 0; index < 3; index += 1) {
      const key = await createApiKey(as, appId, ['read:traces']);
      ids.push(key.apiKey);
      secrets.push(key.secret);
    }
    await createApiKey(as, otherApp);
    const seen = [];
    for (let page = 1; page <= 2; page += 1) {
      const response = await as('GET', '/api-keys', { query: { app_id: appId, page, limit: 2 } });
      expectStatus(response, 200);
      expect(response.body.pagination).to.deep.equal({ page, limit: 2, total: 3 });
      for (const key of response.body.data) expect(key).to.have.all.keys(...METADATA_KEYS);
      for (const secret of secrets) expect(response.text).to.not.include(secret);
      expect(response.text).to.not.match(/secret|hash/);
      seen.push(...response.body.data.map((key: { api_key: string }) => key.api_key));
    }
    expect(seen).to.have.members(ids);
    expect(seen).to.have.length(3);
  });

  it('changes only the fields sent and replaces the permission list whole, effective on the next request', async () => {
    const { as, orgId, appId } = await ownerWithApplication(app());
    const key = await createApiKey(as, appId, ['read:organizations', 'read:applications']);
    const token = await keyToken(app(), key.apiKey, key.secret);
    const asKey = callerFor(app(), token);
    expectStatus(await asKey('GET', `/organizations/${orgId}`), 200);

    const renamed = await as('PATCH', `/api-keys/${key.apiKey}`, { json: { name: 'renamed' } });
    expectStatus(renamed, 200);
    expect(renamed.body).to.have.all.keys('api_key', 'name', 'permissions', 'updated_at');
    expect(renamed.body).to.deep.include({
      api_key: key.apiKey,
      name: 'renamed',
      permissions: ['read:organizations', 'read:applications'],
    });

    const replaced = await as('PATCH', `/api-keys/${key.apiKey}`, {
      json: { permissions: ['read:applications', 'read:traces', 'read:applications'] },
    });
    expectStatus(replaced, 200);
    expect(replaced.body).to.deep.include({ name: 'renamed', permissions: ['read:applications', 'read:traces'] });
    // The token issued before the change carries no permissions of its own: the new list applies now.
    expectStatus(await asKey('GET', `/organizations/${orgId}`), 403);
    expectStatus(await asKey('GET', `/applications/${appId}`), 200);
    expect((await as('GET', `/api-keys/${key.apiKey}`)).body.permissions).to.deep.equal(['read:applications', 'read:traces']);
  });

  it('records when a key was last used', async () => {
    const { as, appId } = await ownerWithApplication(app());
    const key = await createApiKey(as, appId, ['read:applications']);
    expect((await as('GET', `/api-keys/${key.apiKey}`)).body.last_used_at).to.equal(null);
    const before = Date.now();
    const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
    expectStatus(await asKey('GET', `/applications/${appId}`), 200);
    const read = await as('GET', `/api-keys/${key.apiKey}`);
    expect(Date.parse(read.body.last_used_at)).to.be.within(before - 1000, Date.now() + 1000);
    const listed = await as('GET', '/api-keys', { query: { app_id: appId } });
    expect(listed.body.data[0].last_used_at).to.equal(read.body.last_used_at);
  });

  it('rotates the secret: the new one works, the old one and its tokens fail at once', async () => {
    const { as, appId } = await ownerWithApplication(app());
    const key = await createApiKey(as, appId, ['read:applications']);
    const oldToken = await keyToken(app(), key.apiKey, key.secret);
    const rotated = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`);
    expectStatus(rotated, 200);
    expect(rotated.body).to.have.all.keys('api_key', 'api_secret', 'rotated_at');
    expect(rotated.body.api_key).to.equal(key.apiKey);
    expect(rotated.body.api_secret).to.match(/^as_/).and.not.equal(key.secret);
    expect(rotated.headers.get('cache-control')).to.equal('no-store');
    expectStatus(await callerFor(app(), oldToken)('GET', `/applications/${appId}`), 401);
    const refused = await exchange(app(), key.apiKey, key.secret);
    expectStatus(refused, 401);
    expect(refused.body.error).to.equal('invalid_client');
    const newToken = await keyToken(app(), key.apiKey, rotated.body.api_secret);
    expectStatus(await callerFor(app(), newToken)('GET', `/applications/${appId}`), 200);
    expect((await as('GET', `/api-keys/${key.apiKey}`)).body.updated_at).to.equal(rotated.body.rotated_at);
  });

  it('deletes a key: its tokens die, it vanishes from reads, and it is gone for good', async () => {
    const { as, appId } = await ownerWithApplication(app());
    const key = await createApiKey(as, appId, ['read:applications']);
    const keep = await createApiKey(as, appId, ['read:applications']);
    const token = await keyToken(app(), key.apiKey, key.secret);
    const deleted = await as('DELETE', `/api-keys/${key.apiKey}`);
    expectStatus(deleted, 200);
    expect(deleted.body).to.have.all.keys('message', 'deleted_at');
    expectStatus(await callerFor(app(), token)('GET', `/applications/${appId}`), 401);
    expectStatus(await exchange(app(), key.apiKey, key.secret), 401);
    for (const [method, path, json] of [
      ['GET', `/api-keys/${key.apiKey}`],
      ['PATCH', `/api-keys/${key.apiKey}`, { name: 'zombie' }],
      ['POST', `/api-keys/${key.apiKey}/rotate-secret`],
      ['DELETE', `/api-keys/${key.apiKey}`],
    ] as const) {
      expectStatus(await as(method, path, json ? { json } : {}), 404);
    }
    const listed = await as('GET', '/api-keys', { query: { app_id: appId } });
    expect(listed.body.data.map((entry: { api_key: string }) => entry.api_key)).to.deep.equal([keep.apiKey]);
  });

  it('keeps keys inside their organization (404) and for dashboard users (403 for API keys)', async () => {
    const mine = await ownerWithApplication(app(), 'Mine');
    const theirs = await ownerWithApplication(app(), 'Theirs');
    const theirKey = await createApiKey(theirs.as, theirs.appId);
    expectStatus(await mine.as('GET', `/api-keys/${theirKey.apiKey}`), 404);
    expectStatus(await mine.as('PATCH', `/api-keys/${theirKey.apiKey}`, { json: { name: 'mine' } }), 404);
    expectStatus(await mine.as('POST', `/api-keys/${theirKey.apiKey}/rotate-secret`), 404);
    expectStatus(await mine.as('DELETE', `/api-keys/${theirKey.apiKey}`), 404);
    expectStatus(await mine.as('GET', '/api-keys', { query: { app_id: theirs.appId } }), 404);
    expectStatus(await mine.as('POST', '/api-keys', { json: { app_id: theirs.appId, name: 'x', permissions: ['read:traces'] } }), 404);
    expectStatus(await exchange(app(), theirKey.apiKey, theirKey.secret), 200);

    const allPowerful = await createApiKey(mine.as, mine.appId, [
      'read:organizations',
      'update:organizations',
      'read:applications',
      'update:applications',
      'read:traces',
      'write:traces',
    ]);
    const asKey = callerFor(app(), await keyToken(app(), allPowerful.apiKey, allPowerful.secret));
    expectStatus(await asKey('GET', '/api-keys', { query: { app_id: mine.appId } }), 403);
    expectStatus(await asKey('POST', '/api-keys', { json: { app_id: mine.appId, name: 'child', permissions: ['read:traces'] } }), 403);
    expectStatus(await asKey('POST', `/api-keys/${allPowerful.apiKey}/rotate-secret`), 403);
    expectStatus(await asKey('DELETE', `/api-keys/${allPowerful.apiKey}`), 403);
  });

  it('stores and returns unicode key names unchanged', async () => {
    const { as, appId } = await ownerWithApplication(app());
    for (const name of ['🔑 Schlüssel', 'מפתח ראשי', 'ke\u0301y\u0308', '🗝'.repeat(255)]) {
      const created = await as('POST', '/api-keys', { json: { app_id: appId, name, permissions: ['read:traces'] } });
      expectStatus(created, 201);
      expect(created.body.name).to.equal(name);
      expect((await as('GET', `/api-keys/${created.body.api_key}`)).body.name).to.equal(name);
    }
    const member = await dashboardUser(app(), 'Nobody');
    expectStatus(await callerFor(app(), member.token)('GET', '/api-keys', { query: { app_id: appId } }), 404);
  });
});
