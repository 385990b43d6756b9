// Bearer token verification: a loopback JWKS server plays the external OIDC provider. Valid
// tokens get in; every forged, stale or misdirected one is a 401 with WWW-Authenticate: Bearer.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { call } from '../support/contract.js';
import { startJwksProvider, type JwksProvider } from '../support/jwks-provider.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { testDatabases } from '../support/databases.js';
import { closedPort } from '../support/ports.js';

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

function unsignedToken(payload: object): string {
  return `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}.`;
}

function hs256Token(payload: object, secret: string, kid: string): string {
  const head = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid }))}.${base64url(JSON.stringify(payload))}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

const USER_CLAIMS = {
  sub: 'auth0|alice',
  email: 'alice@example.com',
  name: 'Alice',
  permissions: ['read:organizations', 'create:organizations'],
};

for (const database of testDatabases()) {
  describe(`token verification [${database.name}]`, function () {
    let provider: JwksProvider;
    let app: TestServer & { stop(): Promise<void> };

    before(async () => {
      provider = await startJwksProvider();
      app = await startTestServer(database, {
        OIDC_ISSUER: provider.issuer,
        OIDC_AUDIENCE: provider.audience,
        OIDC_JWKS_URL: provider.jwksUrl,
      });
    });
    after(async () => {
      await app?.stop();
      await provider?.close();
    });

    const listOrganizations = (headers: Record<string, string>) => call(app.url, 'GET', '/organizations', { headers });

    it('accepts a valid provider token and creates the user on the first call', async () => {
      const token = await provider.sign(USER_CLAIMS);
      const response = await listOrganizations({ Authorization: `Bearer ${token}` });
      expect(response.status, response.text).not.to.be.oneOf([401, 403]);
      const user = await app.server.knex('users').where({ issuer: provider.issuer, subject: 'auth0|alice' }).first();
      expect(user).to.include({ email: 'alice@example.com', name: 'Alice' });
    });

    it('takes permissions from `scope` when there is no `permissions` claim', async () => {
      const withScope = await provider.sign({ sub: 'auth0|bob', scope: 'openid read:organizations' });
      expect((await listOrganizations({ Authorization: `Bearer ${withScope}` })).status).not.to.be.oneOf([401, 403]);
      const withoutPermission = await provider.sign({ sub: 'auth0|carol', scope: 'openid profile' });
      const refused = await listOrganizations({ Authorization: `Bearer ${withoutPermission}` });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.include('read:organizations');
    });

    it("accepts the service's own user tokens (npm run token)", async () => {
      const token = await app.server.tokens.signUserToken({ subject: 'local-dave', permissions: ['read:organizations'] }, 600);
      expect((await listOrganizations({ Authorization: `Bearer ${token}` })).status).not.to.be.oneOf([401, 403]);
    });

    it('reads the scheme name case-insensitively (RFC 9110 §11.1): bearer and BEARER are Bearer', async () => {
      const token = await app.server.tokens.signUserToken({ subject: 'local-erin', permissions: ['read:organizations'] }, 600);
      for (const scheme of ['bearer', 'BEARER', 'BeArEr'])
        expect((await listOrganizations({ Authorization: `${scheme} ${token}` })).status, scheme).to.equal(200);
      const pasted = await listOrganizations({ Authorization: 'bearer not-a-jwt' });
      expect(pasted.status).to.equal(401);
      expect(pasted.body.detail).to.match(/^Authorization: Bearer takes a JWT/);
    });

    const now = () => Math.floor(Date.now() / 1000);
    const REJECTED: Array<[string, () => Promise<Record<string, string>>]> = [
      ['no token', async () => ({})],
      ['Basic instead of Bearer', async () => ({ Authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` })],
      ['a token that is not a JWT', async () => ({ Authorization: 'Bearer not-a-jwt' })],
      [
        'alg: none',
        async () => ({
          Authorization: `Bearer ${unsignedToken({ ...USER_CLAIMS, iss: provider.issuer, aud: provider.audience, exp: now() + 600 })}`,
        }),
      ],
      [
        'HS256 signed with the public key as secret',
        async () => ({
          Authorization: `Bearer ${hs256Token({ ...USER_CLAIMS, iss: provider.issuer, aud: provider.audience, exp: now() + 600 }, provider.publicPem, 'provider-key-1')}`,
        }),
      ],
      ['expired', async () => ({ Authorization: `Bearer ${await provider.sign(USER_CLAIMS, { expiresIn: now() - 120 })}` })],
      ['not yet valid', async () => ({ Authorization: `Bearer ${await provider.sign(USER_CLAIMS, { notBefore: now() + 600 })}` })],
      ['wrong audience', async () => ({ Authorization: `Bearer ${await provider.sign(USER_CLAIMS, { audience: 'someone-else' })}` })],
      ['wrong issuer', async () => ({ Authorization: `Bearer ${await provider.sign(USER_CLAIMS, { issuer: 'https://evil.example/' })}` })],
      [
        'tampered payload',
        async () => {
          const [head, , signature] = (await provider.sign(USER_CLAIMS)).split('.');
          const forged = base64url(
            JSON.stringify({
              ...USER_CLAIMS,
              permissions: ['delete:organizations'],
              iss: provider.issuer,
              aud: provider.audience,
              exp: now() + 600,
            }),
          );
          return { Authorization: `Bearer ${head}.${forged}.${signature}` };
        },
      ],
      ['unknown kid', async () => ({ Authorization: `Bearer ${await provider.sign(USER_CLAIMS, { kid: 'rotated-away' })}` })],
      [
        "a user token claiming the service's issuer but signed by the provider",
        async () => ({
          Authorization: `Bearer ${await provider.sign(USER_CLAIMS, { issuer: app.config.auth.tokenIssuer, audience: app.config.auth.tokenAudience })}`,
        }),
      ],
    ];
    for (const [name, headers] of REJECTED) {
      it(`rejects ${name} with 401 and WWW-Authenticate: Bearer`, async () => {
        const response = await listOrganizations(await headers());
        expect(response.status, response.text).to.equal(401);
        expect(response.headers.get('www-authenticate')).to.match(/^Bearer/);
        expect(response.body.detail).to.be.a('string');
      });
    }
  });
}

for (const database of testDatabases()) {
  describe(`token verification while the provider's key set cannot be fetched [${database.name}]`, function () {
    let provider: JwksProvider;
    const apps: Array<TestServer & { stop(): Promise<void> }> = [];

    before(async () => {
      provider = await startJwksProvider();
    });
    after(async () => {
      for (const app of apps) await app.stop();
      await provider?.close();
    });

    it('answers 503 with Retry-After, not 401, to a provider token it cannot check (refused, not a 200)', async () => {
      const urls = [`http://127.0.0.1:${await closedPort()}/.well-known/jwks.json`, `${provider.issuer}no-such-key-set`];
      for (const jwksUrl of urls) {
        const app = await startTestServer(database, {
          OIDC_ISSUER: provider.issuer,
          OIDC_AUDIENCE: provider.audience,
          OIDC_JWKS_URL: jwksUrl,
        });
        apps.push(app);
        const answer = await call(app.url, 'GET', '/organizations', {
          headers: { Authorization: `Bearer ${await provider.sign(USER_CLAIMS)}` },
        });
        expect(answer.status, jwksUrl).to.equal(503);
        expect(Number(answer.headers.get('retry-after'))).to.be.greaterThan(0);
        // The service's own tokens do not depend on the provider.
        const own = await app.server.tokens.signUserToken({ subject: 'local-frank', permissions: ['read:organizations'] }, 600);
        expect((await call(app.url, 'GET', '/organizations', { headers: { Authorization: `Bearer ${own}` } })).status).to.equal(200);
      }
    });
  });
}
