// Credentials are checked before anything else a request carries: every bad credential, sent to
// every operation of both documents that needs one, with a request that is wrong in every other
// way (no or a wrong content type, a body that is not JSON, parameters out of range, an empty
// application header), is a 401 with WWW-Authenticate, never a 415 or 422 that would tell an
// unauthenticated caller what the operation accepts.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { seedOwnedResources } from '../support/accounts.js';
import { call, documentOperations, type CallOptions } from '../support/contract.js';
import { startJwksProvider, type JwksProvider } from '../support/jwks-provider.js';
import { buildRequest, type ResourceIds } from '../support/operation-requests.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { testDatabases } from '../support/databases.js';

// An operation that also takes no credentials (`{}` among its requirements: the token endpoint,
// whose client may authenticate in the form body) has nothing to check before the body.
const guarded = (await documentOperations()).filter(({ operation }) => {
  const requirements = operation.security ?? [];
  return requirements.length > 0 && requirements.every((requirement) => Object.keys(requirement).length > 0);
});

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');
const now = (): number => Math.floor(Date.now() / 1000);
const CLAIMS = {
  sub: 'auth0|mallory',
  email: 'mallory@example.com',
  name: 'Mallory',
  permissions: ['read:organizations', 'create:organizations', 'read:traces', 'write:traces'],
};

/** Everything about the request but its credentials is wrong as well. */
const WRONG_REQUESTS: Array<[string, Record<string, string>]> = [
  ['no Content-Type', {}],
  ['text/plain', { 'content-type': 'text/plain' }],
  ['JSON that does not parse', { 'content-type': 'application/json' }],
];
const WRONG_QUERY = { limit: '-5', start_time: 'yesterday', end_time: 'not a time', cursor: '%%%', page: 'x' };

for (const database of testDatabases()) {
  describe(`credentials are checked first, on every operation [${database.name}]`, function () {
    let provider: JwksProvider;
    let app: TestServer & { stop(): Promise<void> };
    let ids: ResourceIds;

    before(async () => {
      provider = await startJwksProvider();
      app = await startTestServer(database, {
        OIDC_ISSUER: provider.issuer,
        OIDC_AUDIENCE: provider.audience,
        OIDC_JWKS_URL: provider.jwksUrl,
      });
      ({ ids } = await seedOwnedResources(app));
    });
    after(async () => {
      await app?.stop();
      await provider?.close();
    });

    const BAD_CREDENTIALS: Array<[string, () => Promise<Record<string, string>>]> = [
      ['no credentials', async () => ({})],
      ['a token that is not a JWT', async () => ({ authorization: 'Bearer not-a-jwt' })],
      [
        'alg: none',
        async () => ({
          authorization: `Bearer ${base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url(JSON.stringify({ ...CLAIMS, iss: provider.issuer, aud: provider.audience, exp: now() + 600 }))}.`,
        }),
      ],
      [
        'HS256 signed with the public key',
        async () => {
          const head = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'provider-key-1' }))}.${base64url(JSON.stringify({ ...CLAIMS, iss: provider.issuer, aud: provider.audience, exp: now() + 600 }))}`;
          return { authorization: `Bearer ${head}.${createHmac('sha256', provider.publicPem).update(head).digest('base64url')}` };
        },
      ],
      ['expired', async () => ({ authorization: `Bearer ${await provider.sign(CLAIMS, { expiresIn: now() - 120 })}` })],
      ['wrong audience', async () => ({ authorization: `Bearer ${await provider.sign(CLAIMS, { audience: 'someone-else' })}` })],
      ['wrong issuer', async () => ({ authorization: `Bearer ${await provider.sign(CLAIMS, { issuer: 'https://evil.example/' })}` })],
      [
        'Basic credentials of no key',
        async () => ({ authorization: `Basic ${Buffer.from('key_doesnotexist:secret').toString('base64')}` }),
      ],
      ['malformed Basic credentials', async () => ({ authorization: 'Basic %%%' })],
    ];

    it('covers operations of both documents, with and without a body', () => {
      const operationIds = guarded.map(({ operationId }) => operationId);
      expect(operationIds).to.include.members([
        'exportTraces',
        'querySpans',
        'listTraces',
        'getTraceMetrics',
        'createOrganization',
        'listOrganizations',
        'rotateApiKeySecret',
      ]);
    });

    for (const [credentialName, credentials] of BAD_CREDENTIALS) {
      it(`${credentialName}: 401 with WWW-Authenticate from every operation, whatever else is wrong`, async function () {
        this.timeout(120_000);
        const headersOf = await credentials();
        const failures: string[] = [];
        for (const entry of guarded) {
          const request = buildRequest(entry, ids);
          for (const [requestName, contentHeaders] of WRONG_REQUESTS) {
            const options: CallOptions = {
              query: { ...request.options.query, ...WRONG_QUERY },
              headers: { ...contentHeaders, 'x-vendor-app-id': '', ...headersOf },
              // Bytes, so that fetch adds no Content-Type of its own.
              rawBody: new TextEncoder().encode(requestName === 'JSON that does not parse' ? '{"filter": ' : 'field=span_name&op=eq'),
            };
            // fetch sends no body with GET; those operations get the wrong parameters alone.
            if (request.method === 'GET') delete options.rawBody;
            const response = await call(app.url, request.method, request.path, options);
            if (response.status !== 401 || !response.headers.get('www-authenticate')) {
              failures.push(`${entry.operationId} (${requestName}): ${response.status} ${response.text.slice(0, 120)}`);
            }
          }
        }
        expect(failures, failures.join('\n')).to.deep.equal([]);
      });
    }
  });
}
