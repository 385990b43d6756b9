// POST /auth/token (OAuth 2.0 client credentials) and revocation that holds: a deleted key or a
// rotated secret kills earlier tokens at once; a permission change applies on the next request.
import { expect } from 'chai';
import { newSecret } from '../../src/storage/accounts/ids.js';
import { hashSecret } from '../../src/accounts/secrets.js';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization, type SeededKey } from '../support/accounts.js';
import { call } from '../support/contract.js';
import { onEachDatabase } from '../support/test-server.js';

onEachDatabase('API key token exchange', (app) => {
  let appId: string;
  let orgId: string;
  before(async () => {
    orgId = await seedOrganization(app().server.knex, []);
    appId = await seedApplication(app().server.knex, orgId);
  });
  const newKey = (permissions = ['read:organizations', 'read:applications']) => seedApiKey(app().server.knex, appId, permissions);
  const getApplication = (token: string) => call(app().url, 'GET', `/applications/${appId}`, { token });
  const readOrganization = (token: string) => call(app().url, 'GET', `/organizations/${orgId}`, { token });

  const token = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(app().url, 'POST', '/auth/token', { json: body, headers });

  it('exchanges the right secret, sent as JSON, as a form or by HTTP Basic', async () => {
    const key = await newKey();
    const asJson = await token({ grant_type: 'client_credentials', client_id: key.apiKey, client_secret: key.secret });
    expect(asJson.status).to.equal(200);
    expect(asJson.body).to.include({ token_type: 'Bearer', expires_in: app().config.auth.accessTokenTtlSeconds });
    expect(asJson.headers.get('cache-control')).to.equal('no-store');
    const asForm = await call(app().url, 'POST', '/auth/token', {
      rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: key.apiKey, client_secret: key.secret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(asForm.status, asForm.text).to.equal(200);
    const asBasic = await token(
      { grant_type: 'client_credentials' },
      { Authorization: `Basic ${Buffer.from(`${key.apiKey}:${key.secret}`).toString('base64')}` },
    );
    expect(asBasic.status, asBasic.text).to.equal(200);
    for (const issued of [asJson, asForm, asBasic]) {
      expect((await readOrganization(issued.body.access_token)).status).not.to.be.oneOf([401, 403, 404]);
    }
    const claims = JSON.parse(Buffer.from(asJson.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims).to.include({ sub: key.apiKey, app_id: appId, org_id: orgId });
  });

  const refusals: Array<[string, (key: SeededKey) => Record<string, unknown>]> = [
    ['a wrong secret', (key) => ({ grant_type: 'client_credentials', client_id: key.apiKey, client_secret: newSecret() })],
    ['an unknown key', (key) => ({ grant_type: 'client_credentials', client_id: 'ak_doesnotexist000000', client_secret: key.secret })],
    ['no credentials at all', () => ({ grant_type: 'client_credentials' })],
  ];
  for (const [name, body] of refusals) {
    it(`refuses ${name} with 401 invalid_client`, async () => {
      const response = await token(body(await newKey()));
      expect(response.status).to.equal(401);
      expect(response.body.error).to.equal('invalid_client');
    });
  }

  it('answers a wrong grant type with 400 unsupported_grant_type and a missing one with 400 invalid_request', async () => {
    const key = await newKey();
    const password = await token({ grant_type: 'password', client_id: key.apiKey, client_secret: key.secret });
    expect(password.status).to.equal(400);
    expect(password.body.error).to.equal('unsupported_grant_type');
    const missing = await token({ client_id: key.apiKey, client_secret: key.secret });
    expect(missing.status).to.equal(400);
    expect(missing.body.error).to.equal('invalid_request');
    const both = await token(
      { grant_type: 'client_credentials', client_id: key.apiKey, client_secret: key.secret },
      { Authorization: `Basic ${Buffer.from(`${key.apiKey}:${key.secret}`).toString('base64')}` },
    );
    expect(both.status).to.equal(400);
    expect(both.body.error).to.equal('invalid_request');
  });

  it('kills every earlier token and the old secret when the secret is rotated', async () => {
    const key = await newKey();
    const before = await apiKeyToken(app(), key);
    expect((await readOrganization(before)).status).not.to.be.oneOf([401, 403, 404]);
    // What rotate-secret does: a new secret hash and the next generation.
    await app()
      .server.knex('api_keys')
      .where({ id: key.apiKey })
      .update({ secret_hash: hashSecret(newSecret()), secret_generation: 2 });
    const stale = await readOrganization(before);
    expect(stale.status).to.equal(401);
    expect(stale.headers.get('www-authenticate')).to.match(/^Bearer/);
    const oldSecret = await token({ grant_type: 'client_credentials', client_id: key.apiKey, client_secret: key.secret });
    expect(oldSecret.status).to.equal(401);
  });

  it('kills every token of a deleted key and refuses the exchange afterwards', async () => {
    const key = await newKey();
    const issued = await apiKeyToken(app(), key);
    expect((await readOrganization(issued)).status).not.to.be.oneOf([401, 403, 404]);
    await app().server.knex('api_keys').where({ id: key.apiKey }).update({ deleted_at: Date.now() });
    expect((await readOrganization(issued)).status).to.equal(401);
    expect((await token({ grant_type: 'client_credentials', client_id: key.apiKey, client_secret: key.secret })).status).to.equal(401);
  });

  it('applies a permission change on the very next request', async () => {
    const key = await newKey(['read:organizations']);
    const issued = await apiKeyToken(app(), key);
    expect((await readOrganization(issued)).status).not.to.be.oneOf([401, 403, 404]);
    expect((await getApplication(issued)).status).to.equal(403);
    await app()
      .server.knex('api_keys')
      .where({ id: key.apiKey })
      .update({ permissions: JSON.stringify(['read:applications']) });
    expect((await readOrganization(issued)).status).to.equal(403);
    expect((await getApplication(issued)).status).to.not.be.oneOf([401, 403]);
  });

  it('records when a key was last used', async () => {
    const key = await newKey();
    await readOrganization(await apiKeyToken(app(), key));
    const row = await app().server.knex('api_keys').where({ id: key.apiKey }).first('last_used_at');
    expect(Number(row.last_used_at)).to.be.closeTo(Date.now(), 60_000);
  });
});
