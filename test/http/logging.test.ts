// What the service writes to its log, read back from a captured logger on every database:
// a client leaving a live stream is not an error, a real failure still is; a refused token's
// access-log line says why; error lines stay a few KB and never carry a secret or a token.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SignJWT, generateKeyPair, type CryptoKey } from 'jose';
import { loadSigningKey } from '../../src/auth/signing-key.js';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization } from '../support/accounts.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { testDatabases } from '../support/databases.js';
import { call } from '../support/contract.js';
import { callerFor, createApiKey, createApplication, createOrganization, dashboardUser, keyToken } from '../support/management.js';
import { captureLogs, LEVEL, type CapturedLogs } from '../support/log-capture.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const UNREACHABLE_ISSUER = 'https://id.unreachable.example/';
const WINDOW = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };

/** Waits for a condition on the log; the bound is generous, the wait ends as soon as it holds. */
async function logged(logs: CapturedLogs, predicate: (raw: string[]) => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate(logs.raw())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for a log line; log so far:\n${logs.raw().join('\n').slice(0, 4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const database of testDatabases()) {
  describe(`logging [${database.name}]`, function () {
    let app: TestServer & { stop(): Promise<void> };
    let logs: CapturedLogs;
    let caller: EngineCaller;

    before(async () => {
      logs = captureLogs('debug');
      // An OIDC provider whose keys cannot be fetched (nothing listens on port 1).
      app = await startTestServer(
        database,
        { OIDC_ISSUER: UNREACHABLE_ISSUER, OIDC_AUDIENCE: 'dashboard', OIDC_JWKS_URL: 'http://127.0.0.1:1/jwks.json' },
        { logger: logs.logger },
      );
      caller = await engineCaller(app);
    });
    after(async () => {
      await app?.stop();
    });

    const errorLines = () => logs.lines().filter((line) => line.level >= LEVEL.error);

    it('logs a client leaving a live stream at debug, not as an error', async () => {
      const controller = new AbortController();
      const response = await fetch(`${app.url}/traces/live/stream`, { headers: caller.headers, signal: controller.signal });
      expect(response.status).to.equal(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read(); // the first heartbeat: the stream is open
      const before = logs.raw().length;
      controller.abort();
      await reader.read().catch(() => undefined);
      // Koa reports the aborted response as ERR_STREAM_PREMATURE_CLOSE, whatever level it logs it at.
      await logged(logs, (raw) => raw.slice(before).some((line) => line.includes('ERR_STREAM_PREMATURE_CLOSE')));
      const disconnect = logs
        .lines()
        .slice(before)
        .filter((line) => JSON.stringify(line).includes('ERR_STREAM_PREMATURE_CLOSE'));
      expect(disconnect.map((line) => line.level)).to.deep.equal([LEVEL.debug]);
      expect(errorLines(), JSON.stringify(errorLines()).slice(0, 2000)).to.deep.equal([]);
    });

    it('still logs a real failure at error level', async () => {
      const knex = app.server.knex;
      await knex.schema.renameTable('spans', 'spans_away');
      try {
        // A 500 is declared by no operation, so this call skips the contract check.
        const url = `${app.url}/engine/query?${new URLSearchParams(WINDOW)}`;
        const response = await fetch(url, {
          method: 'POST',
          headers: { ...caller.headers, 'content-type': 'application/json' },
          body: '{}',
        });
        expect(response.status).to.equal(500);
      } finally {
        await knex.schema.renameTable('spans_away', 'spans');
      }
      expect(errorLines().map((line) => line.msg)).to.deep.equal(['unhandled error']);
    });

    describe('a refused token', () => {
      const now = () => Math.floor(Date.now() / 1000);
      /** A token shaped like the service's own, signed with any key. */
      const serviceShaped = (claims: Record<string, unknown>, key: CryptoKey, kid: string, exp = now() + 600) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
          .setIssuer(app.config.auth.tokenIssuer)
          .setAudience(app.config.auth.tokenAudience)
          .setSubject('local-erin')
          .setIssuedAt()
          .setExpirationTime(exp)
          .sign(key);
      const ownKey = () => loadSigningKey(app.config.auth.signingKeyFile);
      const userToken = () => app.server.tokens.signUserToken({ subject: 'local-erin', permissions: ['read:organizations'] }, 600);
      const keyToken = async (change: (apiKey: string) => Promise<unknown>) => {
        const appId = await seedApplication(app.server.knex, await seedOrganization(app.server.knex, []));
        const key = await seedApiKey(app.server.knex, appId, ['read:traces']);
        const token = await apiKeyToken(app, key);
        await change(key.apiKey);
        return token;
      };

      // [reason logged, Authorization header, what the client is told]
      const CASES: Array<[string, () => Promise<string | undefined>, string]> = [
        ['missing', async () => undefined, 'Not authenticated: send Authorization: Bearer <token>'],
        ['malformed', async () => 'Token abc', 'Authorization must use the Bearer scheme with a JWT'],
        [
          'basic_not_accepted',
          async () => `Basic ${Buffer.from('alice:secret').toString('base64')}`,
          'Authorization: Basic is accepted by POST /v1/traces only: exchange the API key and secret at POST /auth/token for a token and send Authorization: Bearer <token>',
        ],
        [
          'malformed',
          async () => 'Bearer not-a-jwt',
          'Authorization: Bearer takes a JWT, not an API key or secret: exchange the key and secret at POST /auth/token for a token (POST /v1/traces also accepts Authorization: Basic base64(api_key:api_secret))',
        ],
        ['malformed', async () => 'Bearer eyJhbGciOiJFUzI1NiJ9.not-json.sig', 'malformed token'],
        [
          'untrusted_issuer',
          async () =>
            `Bearer ${await new SignJWT({})
              .setProtectedHeader({ alg: 'ES256' })
              .setIssuer('https://evil.example/')
              .setExpirationTime('10m')
              .sign((await ownKey()).privateKey)}`,
          'token issuer is not trusted',
        ],
        [
          'unknown_signing_key',
          async () => `Bearer ${await serviceShaped({}, (await generateKeyPair('ES256')).privateKey, 'some-other-key')}`,
          'token rejected: ERR_JWKS_NO_MATCHING_KEY',
        ],
        [
          'bad_signature',
          async () => {
            const [head, , signature] = (await userToken()).split('.');
            const forged = Buffer.from(
              JSON.stringify({
                sub: 'local-erin',
                permissions: ['*'],
                iss: app.config.auth.tokenIssuer,
                aud: app.config.auth.tokenAudience,
                exp: now() + 600,
              }),
            ).toString('base64url');
            return `Bearer ${head}.${forged}.${signature}`;
          },
          'token rejected: ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
        ],
        [
          'algorithm_not_allowed',
          async () => {
            const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
            return `Bearer ${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'local-erin', iss: app.config.auth.tokenIssuer, aud: app.config.auth.tokenAudience, exp: now() + 600 })}.`;
          },
          'token rejected: ERR_JOSE_ALG_NOT_ALLOWED',
        ],
        [
          'invalid_claims',
          async () =>
            `Bearer ${await new SignJWT({})
              .setProtectedHeader({ alg: 'ES256', kid: (await ownKey()).kid })
              .setIssuer(app.config.auth.tokenIssuer)
              .setAudience('someone-else')
              .setSubject('x')
              .setExpirationTime('10m')
              .sign((await ownKey()).privateKey)}`,
          'token rejected: ERR_JWT_CLAIM_VALIDATION_FAILED',
        ],
        [
          'expired',
          async () => `Bearer ${await serviceShaped({}, (await ownKey()).privateKey, (await ownKey()).kid, now() - 3600)}`,
          'token rejected: ERR_JWT_EXPIRED',
        ],
        [
          'unknown_key',
          async () => `Bearer ${await keyToken((apiKey) => app.server.knex('api_keys').where({ id: apiKey }).delete())}`,
          'token revoked: the API key was deleted or its secret rotated',
        ],
        [
          'revoked',
          async () =>
            `Bearer ${await keyToken((apiKey) => app.server.knex('api_keys').where({ id: apiKey }).update({ secret_generation: 2 }))}`,
          'token revoked: the API key was deleted or its secret rotated',
        ],
      ];

      for (const [reason, authorization, detail] of CASES) {
        it(`puts auth_failure: "${reason}" on the 401's log line, and tells the client ${detail}`, async () => {
          const requestId = randomUUID();
          const header = await authorization();
          const headers: Record<string, string> = { 'X-Request-Id': requestId, ...(header ? { Authorization: header } : {}) };
          const response = await call(app.url, 'GET', '/organizations', { headers });
          expect(response.status).to.equal(401);
          expect(response.body.detail).to.equal(detail);
          const line = logs.lines().find((entry) => entry.request_id === requestId && entry.msg === 'request');
          expect(line, 'the access-log line').to.include({ status: 401, auth_failure: reason });
        });
      }

      // [reason logged, Basic credentials on POST /v1/traces]
      const BASIC_CASES: Array<[string, (key: { apiKey: string; secret: string }) => string]> = [
        ['malformed', () => `Basic ${Buffer.from('no colon').toString('base64')}`],
        ['unknown_key', (key) => `Basic ${Buffer.from(`ak_unknown0000000000000:${key.secret}`).toString('base64')}`],
        ['wrong_secret', (key) => `Basic ${Buffer.from(`${key.apiKey}:as_wrong`).toString('base64')}`],
      ];
      for (const [reason, authorization] of BASIC_CASES) {
        it(`puts auth_failure: "${reason}" on the log line of a 401 to Basic credentials on ingestion`, async () => {
          const appId = await seedApplication(app.server.knex, await seedOrganization(app.server.knex, []));
          const key = await seedApiKey(app.server.knex, appId, ['write:traces']);
          const requestId = randomUUID();
          const headers = { 'X-Request-Id': requestId, Authorization: authorization(key), 'Content-Type': 'application/json' };
          const response = await call(app.url, 'POST', '/v1/traces', { headers, rawBody: '{}' });
          expect(response.status).to.equal(401);
          const line = logs.lines().find((entry) => entry.request_id === requestId && entry.msg === 'request');
          expect(line, 'the access-log line').to.include({ status: 401, auth_failure: reason });
        });
      }

      // [reason logged, client credentials sent to POST /auth/token]
      const TOKEN_CASES: Array<[string, (key: { apiKey: string; secret: string }) => Record<string, string>]> = [
        ['missing', () => ({ grant_type: 'client_credentials' })],
        ['unknown_key', (key) => ({ grant_type: 'client_credentials', client_id: 'ak_unknown0000000000000', client_secret: key.secret })],
        ['wrong_secret', (key) => ({ grant_type: 'client_credentials', client_id: key.apiKey, client_secret: 'as_wrong' })],
      ];
      for (const [reason, form] of TOKEN_CASES) {
        it(`puts auth_failure: "${reason}" on the log line of the token endpoint's 401`, async () => {
          const appId = await seedApplication(app.server.knex, await seedOrganization(app.server.knex, []));
          const key = await seedApiKey(app.server.knex, appId, ['read:traces']);
          const requestId = randomUUID();
          const headers = { 'X-Request-Id': requestId, 'Content-Type': 'application/x-www-form-urlencoded' };
          const response = await call(app.url, 'POST', '/auth/token', { headers, rawBody: new URLSearchParams(form(key)).toString() });
          expect(response.status).to.equal(401);
          const line = logs.lines().find((entry) => entry.request_id === requestId && entry.msg === 'request');
          expect(line, 'the access-log line').to.include({ status: 401, auth_failure: reason });
        });
      }

      it('puts no auth_failure on a request that authenticates', async () => {
        const requestId = randomUUID();
        const response = await call(app.url, 'GET', '/organizations', {
          headers: { 'X-Request-Id': requestId, Authorization: `Bearer ${await userToken()}` },
        });
        expect(response.status).to.equal(200);
        const line = logs.lines().find((entry) => entry.request_id === requestId && entry.msg === 'request');
        expect(line).to.include({ status: 200 });
        expect(line).not.to.have.property('auth_failure');
      });
    });

    describe('error lines', () => {
      it('are bounded: a failed query with a 900 KB filter value logs a few KB that still say what failed', async () => {
        const knex = app.server.knex;
        const huge = `needle-${'v'.repeat(900_000)}`;
        const before = logs.raw().length;
        await knex.schema.renameTable('spans', 'spans_away');
        try {
          const url = `${app.url}/engine/query?${new URLSearchParams(WINDOW)}`;
          const body = JSON.stringify({ filter: { and: [{ field: 'service_name', op: 'eq', value: huge }] } });
          const response = await fetch(url, { method: 'POST', headers: { ...caller.headers, 'content-type': 'application/json' }, body });
          expect(response.status).to.equal(500);
        } finally {
          await knex.schema.renameTable('spans_away', 'spans');
        }
        const raw = logs.raw().slice(before);
        const failure = raw.find((line) => line.includes('"unhandled error"'));
        expect(failure, 'the error line').to.be.a('string');
        expect((failure as string).length, 'bytes in the error line').to.be.below(16_384);
        // The database's own reason, which Knex puts after the statement, is kept.
        expect(JSON.parse(failure as string).err.message).to.match(/no such table: spans|spans' doesn't exist/);
        for (const line of raw) expect(line.length).to.be.below(16_384);
      });

      it('never carry a secret or a token: key creation, token exchange, authenticated calls, rotation, a failed exchange', async () => {
        const user = await dashboardUser(app, 'Grace');
        const as = callerFor(app, user.token);
        const orgId = await createOrganization(as, 'Secretive');
        const appId = await createApplication(as, orgId);
        const key = await createApiKey(as, appId, ['read:traces', 'write:traces']);
        const token = await keyToken(app, key.apiKey, key.secret);
        const headers = { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId };
        expect((await call(app.url, 'GET', '/traces/live', { headers })).status).to.equal(200);
        const rotated = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`);
        expect(rotated.status).to.equal(200);
        const newSecret = rotated.body.api_secret as string;
        // A failed exchange (its table gone) logs an error; the secret it was given stays out.
        await app.server.knex.schema.renameTable('api_keys', 'api_keys_away');
        try {
          const response = await fetch(`${app.url}/auth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ grant_type: 'client_credentials', client_id: key.apiKey, client_secret: newSecret }),
          });
          expect(response.status).to.be.at.least(500);
        } finally {
          await app.server.knex.schema.renameTable('api_keys_away', 'api_keys');
        }
        expect((await call(app.url, 'GET', '/traces/live', { headers })).status).to.equal(401); // rotated: the old token is refused
        const secrets = [key.secret, newSecret, token, token.split('.')[2] as string, user.token, user.token.split('.')[2] as string];
        for (const line of logs.raw()) {
          for (const secret of secrets) expect(line.includes(secret), `a secret in: ${line.slice(0, 300)}`).to.equal(false);
        }
      });
    });
  });
}

describe('logger redaction', () => {
  it('censors secret-bearing fields and passwords in URLs, and bounds error text', () => {
    const logs = captureLogs('info');
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJodW50ZXIxMiJ9.c2lnbmF0dXJlaHVudGVy';
    const basic = Buffer.from('ak_demo:as_hunter14').toString('base64');
    const error = Object.assign(
      new Error(
        `connect failed: mysql://spanledger:hunter2@db:3306/x with Bearer hunter13 and Basic ${basic} and ${jwt} ${'x'.repeat(100_000)} ${jwt}`,
      ),
      {
        sql: `select * from t where secret = 'hunter3' ${'y'.repeat(100_000)}`,
        bindings: ['hunter4'],
      },
    );
    logs.logger.error(
      {
        err: error,
        headers: { authorization: 'Bearer hunter5' },
        authorization: 'Bearer hunter6',
        body: { client_secret: 'hunter7', api_secret: 'hunter8', access_token: 'hunter9' },
        database_url: 'mysql://spanledger:hunter10@db/x',
        password: 'hunter11',
      },
      'failed',
    );
    const [line] = logs.raw();
    expect(line).not.to.match(/hunter/);
    expect(line).not.to.include(basic);
    expect((line as string).length).to.be.below(16_384);
    expect(JSON.parse(line as string).err.message).to.match(/^connect failed: mysql:\/\/spanledger:\*+@db:3306\/x/);
  });
});

describe('logger bounds on crafted error texts', () => {
  // Error texts carry callers' values: a pattern that backtracks over them would stall the
  // service. Each of these took 10 to 30 s per 200 KB with backtracking patterns.
  for (const unit of ['a://b:', 'a.a.', 'eyJ-', 'Bearer  x', 'Basic  x', 'u://x:y@']) {
    it(`logs a megabyte of ${JSON.stringify(unit)} as a bounded line`, () => {
      const logs = captureLogs('info');
      logs.logger.error({ err: new Error(unit.repeat(Math.ceil(1_000_000 / unit.length))) }, 'failed');
      expect((logs.raw()[0] as string).length).to.be.below(16_384);
    });
  }
});
