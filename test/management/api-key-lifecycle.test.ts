// Key lifecycle (management 1.4.0), through HTTP and OTLP/gRPC on every database: `expires_at`
// set, moved and cleared, and once past it every credential of the key refused at once (Basic on
// POST /v1/traces, a token issued before, the token exchange; over gRPC too); rotation with a
// grace period accepting both secrets (and the previous secret's tokens) until the grace ends,
// a second rotation ending it, and a rotation without a body answering exactly as before.
// "Time passes" by waiting a second or two where the path under test is the clock itself, and
// otherwise by moving the stored instant into the past (the service reads it on every request).
import { status as Status } from '@grpc/grpc-js';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { expect } from 'chai';
import { call, type ApiResponse } from '../support/contract.js';
import { rawExport } from '../support/grpc.js';
import { callerFor, exchange, expectStatus, keyToken, ownerWithApplication, type Caller } from '../support/management.js';
import { recordSpans } from '../support/otel.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const PERMISSIONS = ['write:traces', 'read:applications'];
const EXPIRED = /^API key expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z: /;

function basic(apiKey: string, secret: string): string {
  return `Basic ${Buffer.from(`${apiKey}:${secret}`, 'utf8').toString('base64')}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** POST /v1/traces with an empty OTLP/JSON request under the given Authorization. */
function exportWith(app: TestServer, authorization: string): Promise<ApiResponse> {
  return call(app.url, 'POST', '/v1/traces', {
    headers: { 'Content-Type': 'application/json', Authorization: authorization },
    rawBody: '{}',
  });
}

/** A call that only an API key's token (or nothing) passes: the key's own application. */
async function readOwnApplication(app: TestServer, token: string, appId: string): Promise<ApiResponse> {
  return callerFor(app, token)('GET', `/applications/${appId}`);
}

async function grpcExport(app: TestServer, authorization: string) {
  const spans = await recordSpans({ 'service.name': 'lifecycle' }, (tracer) => tracer.startSpan('lifecycle').end());
  return rawExport(app.grpcAddress as string, ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array, { authorization });
}

interface Key {
  apiKey: string;
  secret: string;
}

async function newKey(as: Caller, appId: string, extra: Record<string, unknown> = {}): Promise<ApiResponse & { key: Key }> {
  const response = await as('POST', '/api-keys', { json: { app_id: appId, name: 'exporter', permissions: PERMISSIONS, ...extra } });
  expectStatus(response, 201);
  return Object.assign(response, { key: { apiKey: response.body.api_key as string, secret: response.body.api_secret as string } });
}

/** Stands in for a clock moved forward: the key's expiry, as stored, lies in the past now. */
async function expireNow(app: TestServer, apiKey: string): Promise<void> {
  await app.server
    .knex('api_keys')
    .where({ id: apiKey })
    .update({ expires_at: Date.now() - 1000 });
}

onEachDatabase(
  'API key lifecycle',
  (app) => {
    describe('expires_at', () => {
      it('is set at creation, answered everywhere, moved and cleared by PATCH', async () => {
        const { as, appId } = await ownerWithApplication(app());
        const never = await newKey(as, appId);
        expect(never.body.expires_at).to.equal(null);
        const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
        const created = await newKey(as, appId, { expires_at: expiresAt });
        expect(created.body.expires_at).to.equal(expiresAt);
        const read = await as('GET', `/api-keys/${created.key.apiKey}`);
        expect(read.body).to.deep.include({ expires_at: expiresAt, rotation_grace_ends_at: null });
        const listed = await as('GET', '/api-keys', { query: { app_id: appId } });
        expect(listed.body.data.map((key: { expires_at: string | null }) => key.expires_at)).to.deep.equal([null, expiresAt]);

        // Any RFC 3339 offset is accepted and answered in UTC with milliseconds.
        const moved = await as('PATCH', `/api-keys/${created.key.apiKey}`, { json: { expires_at: '2030-01-01T02:00:00+02:00' } });
        expectStatus(moved, 200);
        expect(moved.body).to.have.all.keys('api_key', 'name', 'permissions', 'expires_at', 'updated_at');
        expect(moved.body.expires_at).to.equal('2030-01-01T00:00:00.000Z');
        expect((await as('GET', `/api-keys/${created.key.apiKey}`)).body.expires_at).to.equal('2030-01-01T00:00:00.000Z');

        const cleared = await as('PATCH', `/api-keys/${created.key.apiKey}`, { json: { expires_at: null } });
        expectStatus(cleared, 200);
        expect(cleared.body.expires_at).to.equal(null);
        expect((await as('GET', `/api-keys/${created.key.apiKey}`)).body.expires_at).to.equal(null);

        // A rename answers as it did before 1.4.0, and leaves the expiry alone.
        await as('PATCH', `/api-keys/${created.key.apiKey}`, { json: { expires_at: expiresAt } });
        const renamed = await as('PATCH', `/api-keys/${created.key.apiKey}`, { json: { name: 'renamed' } });
        expect(renamed.body).to.have.all.keys('api_key', 'name', 'permissions', 'updated_at');
        expect((await as('GET', `/api-keys/${created.key.apiKey}`)).body.expires_at).to.equal(expiresAt);
      });

      it('refuses an expiry in the past, beyond ten years, or not RFC 3339 with a time zone (422)', async () => {
        const { as, appId } = await ownerWithApplication(app());
        const { key } = await newKey(as, appId);
        const tooFar = new Date(Date.now() + 3651 * 86_400_000).toISOString();
        for (const value of [
          new Date(Date.now() - 60_000).toISOString(),
          tooFar,
          '2030-01-01T00:00:00',
          '2030-01-01',
          'tomorrow',
          1893456000,
          '2030-12-31T23:59:60Z',
        ]) {
          const created = await as('POST', '/api-keys', {
            json: { app_id: appId, name: 'x', permissions: ['read:traces'], expires_at: value },
          });
          expectStatus(created, 422);
          expect(created.body.detail[0].loc).to.deep.equal(['body', 'expires_at']);
          const patched = await as('PATCH', `/api-keys/${key.apiKey}`, { json: { expires_at: value } });
          expectStatus(patched, 422);
          expect(patched.body.detail[0].loc).to.deep.equal(['body', 'expires_at']);
        }
        const past = await as('PATCH', `/api-keys/${key.apiKey}`, { json: { expires_at: '2020-01-01T00:00:00Z' } });
        expect(past.body.detail[0].msg).to.include('in the future');
        expect((await as('GET', `/api-keys/${key.apiKey}`)).body.expires_at).to.equal(null);
      });

      it('refuses every credential at once when it passes: Basic, an earlier token, the exchange; PATCH brings the key back', async function () {
        this.timeout(30_000);
        const { as, appId } = await ownerWithApplication(app());
        const { key } = await newKey(as, appId, { expires_at: new Date(Date.now() + 1500).toISOString() });
        const token = await keyToken(app(), key.apiKey, key.secret);
        expectStatus(await exportWith(app(), basic(key.apiKey, key.secret)), 200);
        expectStatus(await readOwnApplication(app(), token, appId), 200);

        // The real clock passes the expiry; nothing else happens to the key.
        const expiresAt = Date.parse((await as('GET', `/api-keys/${key.apiKey}`)).body.expires_at);
        await sleep(Math.max(0, expiresAt - Date.now()) + 50);

        const byBasic = await exportWith(app(), basic(key.apiKey, key.secret));
        expectStatus(byBasic, 401);
        expect(byBasic.body.detail).to.match(EXPIRED);
        expect(byBasic.headers.get('www-authenticate')).to.match(/^Basic /);
        const byToken = await readOwnApplication(app(), token, appId);
        expectStatus(byToken, 401);
        expect(byToken.body.detail).to.match(EXPIRED);
        expect(byToken.headers.get('www-authenticate')).to.include('error="invalid_token"');
        const exchanged = await exchange(app(), key.apiKey, key.secret);
        expectStatus(exchanged, 401);
        expect(exchanged.body.error).to.equal('invalid_client');
        expect(exchanged.body.error_description).to.match(EXPIRED);
        // Only a holder of the secret learns that the key expired.
        const wrong = await exchange(app(), key.apiKey, `${key.secret}x`);
        expect(wrong.body.error_description).to.equal('unknown API key or wrong secret');
        expect((await exportWith(app(), basic(key.apiKey, `${key.secret}x`))).body.detail).to.not.match(EXPIRED);

        // Still readable by its owner, and revived by a new expiry: the same token works again.
        expectStatus(await as('GET', `/api-keys/${key.apiKey}`), 200);
        expectStatus(
          await as('PATCH', `/api-keys/${key.apiKey}`, { json: { expires_at: new Date(Date.now() + 3_600_000).toISOString() } }),
          200,
        );
        expectStatus(await readOwnApplication(app(), token, appId), 200);
        expectStatus(await exportWith(app(), basic(key.apiKey, key.secret)), 200);
        expectStatus(await exchange(app(), key.apiKey, key.secret), 200);
      });

      it('refuses Basic credentials and tokens of an expired key over OTLP/gRPC with UNAUTHENTICATED saying so', async () => {
        const { as, appId } = await ownerWithApplication(app());
        const { key } = await newKey(as, appId, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
        const token = await keyToken(app(), key.apiKey, key.secret);
        expect((await grpcExport(app(), basic(key.apiKey, key.secret))).error).to.equal(null);
        await expireNow(app(), key.apiKey);
        for (const authorization of [basic(key.apiKey, key.secret), `Bearer ${token}`]) {
          const { error } = await grpcExport(app(), authorization);
          expect(error?.code).to.equal(Status.UNAUTHENTICATED);
          expect(error?.details).to.match(EXPIRED);
        }
      });
    });

    describe('rotation with a grace period', () => {
      it('accepts both secrets, and the old secret tokens, until the grace ends; only the new one after', async function () {
        this.timeout(30_000);
        const { as, appId } = await ownerWithApplication(app());
        const { key } = await newKey(as, appId);
        const oldToken = await keyToken(app(), key.apiKey, key.secret);
        const rotated = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`, { json: { grace_period_seconds: 2 } });
        expectStatus(rotated, 200);
        expect(rotated.body).to.have.all.keys('api_key', 'api_secret', 'rotated_at', 'rotation_grace_ends_at');
        const graceEnds = Date.parse(rotated.body.rotation_grace_ends_at);
        expect(graceEnds - Date.parse(rotated.body.rotated_at)).to.equal(2000);
        expect((await as('GET', `/api-keys/${key.apiKey}`)).body.rotation_grace_ends_at).to.equal(rotated.body.rotation_grace_ends_at);
        const newSecret: string = rotated.body.api_secret;

        // During the grace: both secrets on every path, a token minted from the old secret now too.
        const graceToken = await keyToken(app(), key.apiKey, key.secret);
        const newToken = await keyToken(app(), key.apiKey, newSecret);
        for (const secret of [key.secret, newSecret]) expectStatus(await exportWith(app(), basic(key.apiKey, secret)), 200);
        for (const token of [oldToken, graceToken, newToken]) expectStatus(await readOwnApplication(app(), token, appId), 200);
        expect((await grpcExport(app(), basic(key.apiKey, key.secret))).error).to.equal(null);

        await sleep(Math.max(0, graceEnds - Date.now()) + 50);
        expectStatus(await exportWith(app(), basic(key.apiKey, key.secret)), 401);
        expect((await grpcExport(app(), basic(key.apiKey, key.secret))).error?.code).to.equal(Status.UNAUTHENTICATED);
        for (const token of [oldToken, graceToken]) expectStatus(await readOwnApplication(app(), token, appId), 401);
        expect((await exchange(app(), key.apiKey, key.secret)).body.error).to.equal('invalid_client');
        expectStatus(await exportWith(app(), basic(key.apiKey, newSecret)), 200);
        expectStatus(await readOwnApplication(app(), newToken, appId), 200);
        expect((await as('GET', `/api-keys/${key.apiKey}`)).body.rotation_grace_ends_at).to.equal(null);
      });

      it('ends an earlier grace at once on a second rotation: only the secret right before the newest can be in grace', async () => {
        const { as, appId } = await ownerWithApplication(app());
        const { key } = await newKey(as, appId);
        const firstToken = await keyToken(app(), key.apiKey, key.secret);
        const second = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`, { json: { grace_period_seconds: 3600 } });
        const secondToken = await keyToken(app(), key.apiKey, second.body.api_secret);
        expectStatus(await exportWith(app(), basic(key.apiKey, key.secret)), 200);

        // Rotating again with a grace: the first secret dies, the second is now the one in grace.
        const third = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`, { json: { grace_period_seconds: 3600 } });
        expectStatus(third, 200);
        expectStatus(await exportWith(app(), basic(key.apiKey, key.secret)), 401);
        expectStatus(await readOwnApplication(app(), firstToken, appId), 401);
        expectStatus(await exchange(app(), key.apiKey, key.secret), 401);
        expectStatus(await exportWith(app(), basic(key.apiKey, second.body.api_secret)), 200);
        expectStatus(await readOwnApplication(app(), secondToken, appId), 200);

        // Rotating without a body: no secret but the newest works, as before 1.4.0.
        const fourth = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`);
        expectStatus(fourth, 200);
        expect(fourth.body).to.have.all.keys('api_key', 'api_secret', 'rotated_at');
        for (const secret of [key.secret, second.body.api_secret, third.body.api_secret])
          expectStatus(await exportWith(app(), basic(key.apiKey, secret)), 401);
        expectStatus(await readOwnApplication(app(), secondToken, appId), 401);
        expectStatus(await exportWith(app(), basic(key.apiKey, fourth.body.api_secret)), 200);
        expect((await as('GET', `/api-keys/${key.apiKey}`)).body.rotation_grace_ends_at).to.equal(null);
      });

      it('treats {} and a grace of 0 as no grace, answered as null; bounds the grace (422)', async () => {
        const { as, appId } = await ownerWithApplication(app());
        const { key } = await newKey(as, appId);
        let secret = key.secret;
        for (const json of [{}, { grace_period_seconds: 0 }]) {
          const rotated = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`, { json });
          expectStatus(rotated, 200);
          expect(rotated.body.rotation_grace_ends_at).to.equal(null);
          expectStatus(await exportWith(app(), basic(key.apiKey, secret)), 401);
          secret = rotated.body.api_secret;
        }
        for (const json of [
          { grace_period_seconds: 604_801 },
          { grace_period_seconds: -1 },
          { grace_period_seconds: 1.5 },
          { grace_period_seconds: '60' },
          { grace: 60 },
        ]) {
          const refused = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`, { json });
          expectStatus(refused, 422);
        }
        expectStatus(await exportWith(app(), basic(key.apiKey, secret)), 200);
        expectStatus(await as('POST', `/api-keys/${key.apiKey}/rotate-secret`, { json: { grace_period_seconds: 604_800 } }), 200);
      });

      it('lets the key expiry win over a grace', async () => {
        const { as, appId } = await ownerWithApplication(app());
        const { key } = await newKey(as, appId, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
        const rotated = await as('POST', `/api-keys/${key.apiKey}/rotate-secret`, { json: { grace_period_seconds: 3600 } });
        await expireNow(app(), key.apiKey);
        for (const secret of [key.secret, rotated.body.api_secret])
          expect((await exportWith(app(), basic(key.apiKey, secret))).body.detail).to.match(EXPIRED);
      });
    });
  },
  { GRPC_PORT: '0' },
);
