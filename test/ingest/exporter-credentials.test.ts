// Credentials an exporter can hold: POST /v1/traces takes `Authorization: Basic
// base64(api_key:api_secret)`, so an OpenTelemetry SDK exporter configured by environment variables
// alone keeps working past any token's lifetime, and stops at once when its key is deleted or its
// secret rotated. Also: X-Vendor-App-Id optional for keys, what a raw key pasted as a Bearer
// token is told, and every way Basic can be wrong. On every database, every answer checked
// against the documents.
import { SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExportResultCode } from '@opentelemetry/core';
import { expect } from 'chai';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization, seedUser, type SeededKey } from '../support/accounts.js';
import { call, type ApiResponse } from '../support/contract.js';
import { createApiKey, expectStatus, ownerWithApplication } from '../support/management.js';
import {
  contractCheckingProxy,
  expectExported,
  exportSpans,
  recordSpans,
  withOtlpEnvironment,
  type CheckingProxy,
} from '../support/otel.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const T0 = 1795355100; // seconds: 2026-11-22

function basic(apiKey: string, secret: string): string {
  return `Basic ${Buffer.from(`${apiKey}:${secret}`, 'utf8').toString('base64')}`;
}

/**
 * A protobuf exporter configured the way the README's "First run" shows: the endpoint and the
 * Basic credentials in OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS (whose values
 * are URL-encoded: `Basic%20` and base64's `+`, `/`, `=` percent-encoded), nothing in code.
 */
function environmentExporter(endpoint: string, key: SeededKey): ProtoTraceExporter {
  const headers = `Authorization=${encodeURIComponent(basic(key.apiKey, key.secret))}`;
  return withOtlpEnvironment(
    { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_HEADERS: headers },
    () => new ProtoTraceExporter(),
  );
}

let spanCounter = 0;

/** One fresh span, so every export stores something new. */
function oneSpan() {
  spanCounter += 1;
  const name = `export ${spanCounter}`;
  return recordSpans({ 'service.name': 'exporter' }, (tracer) =>
    tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: [T0, 0] }).end([T0, 1000]),
  ).then((spans) => ({ name, spans }));
}

async function storedNames(app: TestServer, appId: string): Promise<string[]> {
  const rows = await app.server.knex('spans').where({ application_id: appId }).select('span_name');
  return rows.map((row: { span_name: string }) => row.span_name).sort();
}

/** Waits, without a deadline of its own, until `check` holds (the suite timeout bounds it). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 200));
}

function postJson(app: TestServer, headers: Record<string, string>): Promise<ApiResponse> {
  return call(app.url, 'POST', '/v1/traces', { headers: { 'Content-Type': 'application/json', ...headers }, rawBody: '{}' });
}

async function keyOfNewApplication(
  app: TestServer,
  permissions = ['write:traces'],
): Promise<{ orgId: string; appId: string; key: SeededKey }> {
  const orgId = await seedOrganization(app.server.knex, []);
  const appId = await seedApplication(app.server.knex, orgId);
  return { orgId, appId, key: await seedApiKey(app.server.knex, appId, permissions) };
}

onEachDatabase(
  'an exporter configured by OTEL_EXPORTER_OTLP_* with Basic key credentials',
  (app) => {
    let proxy: CheckingProxy;
    beforeEach(async () => {
      proxy = await contractCheckingProxy(app().url);
    });
    afterEach(async () => {
      await proxy.close();
      expect(proxy.violations).to.deep.equal([]);
    });

    it('keeps exporting past the access-token lifetime, while a token minted at the start is refused', async function () {
      this.timeout(60_000);
      const { appId, key } = await keyOfNewApplication(app());
      const token = await apiKeyToken(app(), key);
      const exporter = environmentExporter(proxy.url, key);
      const first = await oneSpan();
      expectExported(await exportSpans(exporter, first.spans));
      // ACCESS_TOKEN_TTL_SECONDS=1 and no clock tolerance: the token dies within a few seconds.
      let refused: ApiResponse | undefined;
      await eventually(async () => {
        refused = await postJson(app(), { Authorization: `Bearer ${token}` });
        return refused.status === 401;
      });
      expect(refused?.headers.get('www-authenticate')).to.match(/^Bearer error="invalid_token"/);
      const second = await oneSpan();
      expectExported(await exportSpans(exporter, second.spans));
      expect(await storedNames(app(), appId)).to.deep.equal([first.name, second.name].sort());
      await exporter.shutdown();
    });

    it("stops with 401 the moment the key's secret is rotated, and works again with the new secret", async () => {
      const { as, appId } = await ownerWithApplication(app());
      const created = await createApiKey(as, appId, ['write:traces']);
      const exporter = environmentExporter(proxy.url, { apiKey: created.apiKey, secret: created.secret });
      expectExported(await exportSpans(exporter, (await oneSpan()).spans));
      const rotated = await as('POST', `/api-keys/${created.apiKey}/rotate-secret`);
      expectStatus(rotated, 200);
      const refused = await exportSpans(exporter, (await oneSpan()).spans);
      expect(refused.code).to.equal(ExportResultCode.FAILED);
      expect(proxy.statuses.at(-1)).to.equal(401);
      const renewed = environmentExporter(proxy.url, { apiKey: created.apiKey, secret: rotated.body.api_secret });
      expectExported(await exportSpans(renewed, (await oneSpan()).spans));
      await exporter.shutdown();
      await renewed.shutdown();
    });

    it('stops with 401 the moment the key is deleted, and a permission change applies on the next request', async () => {
      const { as, appId } = await ownerWithApplication(app());
      const created = await createApiKey(as, appId, ['write:traces']);
      const exporter = environmentExporter(proxy.url, { apiKey: created.apiKey, secret: created.secret });
      expectExported(await exportSpans(exporter, (await oneSpan()).spans));
      expectStatus(await as('PATCH', `/api-keys/${created.apiKey}`, { json: { permissions: ['read:traces'] } }), 200);
      expect((await exportSpans(exporter, (await oneSpan()).spans)).code).to.equal(ExportResultCode.FAILED);
      expect(proxy.statuses.at(-1)).to.equal(403);
      expectStatus(await as('PATCH', `/api-keys/${created.apiKey}`, { json: { permissions: ['write:traces'] } }), 200);
      expectExported(await exportSpans(exporter, (await oneSpan()).spans));
      expectStatus(await as('DELETE', `/api-keys/${created.apiKey}`), 200);
      expect((await exportSpans(exporter, (await oneSpan()).spans)).code).to.equal(ExportResultCode.FAILED);
      expect(proxy.statuses.at(-1)).to.equal(401);
      await exporter.shutdown();
    });
  },
  { ACCESS_TOKEN_TTL_SECONDS: '1', CLOCK_TOLERANCE_SECONDS: '0' },
);

onEachDatabase('Basic credentials and X-Vendor-App-Id on POST /v1/traces', (app) => {
  it("takes the key's own application when X-Vendor-App-Id is absent (Basic or the key's token)", async () => {
    const { appId, key } = await keyOfNewApplication(app());
    const viaBasic = await postJson(app(), { Authorization: basic(key.apiKey, key.secret) });
    expectStatus(viaBasic, 200);
    const token = await apiKeyToken(app(), key);
    expectStatus(await postJson(app(), { Authorization: `Bearer ${token}` }), 200);
    const exporterSpans = await oneSpan();
    const proxy = await contractCheckingProxy(app().url);
    try {
      const exporter = environmentExporter(proxy.url, key);
      expectExported(await exportSpans(exporter, exporterSpans.spans));
      await exporter.shutdown();
    } finally {
      await proxy.close();
    }
    expect(proxy.violations).to.deep.equal([]);
    expect(await storedNames(app(), appId)).to.deep.equal([exporterSpans.name]);
  });

  it('still checks X-Vendor-App-Id when given: its own application 200, another of its organization 403, of another organization or none 404', async () => {
    const { orgId, appId, key } = await keyOfNewApplication(app());
    const sibling = await seedApplication(app().server.knex, orgId);
    const foreign = (await keyOfNewApplication(app())).appId;
    const authorization = basic(key.apiKey, key.secret);
    expectStatus(await postJson(app(), { Authorization: authorization, 'X-Vendor-App-Id': appId }), 200);
    const mismatching = await postJson(app(), { Authorization: authorization, 'X-Vendor-App-Id': sibling });
    expectStatus(mismatching, 403);
    expect(mismatching.body.detail).to.match(/own application/);
    expectStatus(await postJson(app(), { Authorization: authorization, 'X-Vendor-App-Id': foreign }), 404);
    expectStatus(await postJson(app(), { Authorization: authorization, 'X-Vendor-App-Id': 'app_doesnotexist0000000' }), 404);
    const token = await apiKeyToken(app(), key);
    expectStatus(await postJson(app(), { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': sibling }), 403);
  });

  it('refuses Basic for a key without write:traces (403)', async () => {
    const { key } = await keyOfNewApplication(app(), ['read:traces']);
    const refused = await postJson(app(), { Authorization: basic(key.apiKey, key.secret) });
    expectStatus(refused, 403);
    expect(refused.body.detail).to.include('write:traces');
  });

  it('still requires X-Vendor-App-Id of dashboard users (422)', async () => {
    const user = await seedUser(app(), 'ingester');
    const orgId = await seedOrganization(app().server.knex, [[user.userId, 'member']]);
    const appId = await seedApplication(app().server.knex, orgId);
    const missing = await postJson(app(), { Authorization: `Bearer ${user.token}` });
    expectStatus(missing, 422);
    expect(missing.body.detail[0].loc).to.deep.equal(['header', 'x-vendor-app-id']);
    expectStatus(await postJson(app(), { Authorization: `Bearer ${user.token}`, 'X-Vendor-App-Id': appId }), 200);
  });

  for (const [name, authorization, reason] of [
    ['malformed base64', () => 'Basic !!!not*base64', /Basic/],
    ['no colon', () => `Basic ${Buffer.from('ak_nocolonatall').toString('base64')}`, /Basic/],
    ['an empty value', () => 'Basic ', /Basic/],
  ] as const) {
    it(`answers Basic with ${name} 401 and WWW-Authenticate: Basic`, async () => {
      const refused = await postJson(app(), { Authorization: authorization() });
      expectStatus(refused, 401);
      expect(refused.headers.get('www-authenticate')).to.match(/^Basic realm=/);
      expect(refused.body.detail).to.match(reason);
    });
  }

  it('offers both schemes to a request without credentials', async () => {
    const refused = await postJson(app(), {});
    expectStatus(refused, 401);
    expect(refused.headers.get('www-authenticate')).to.equal('Bearer, Basic realm="spanledger ingestion", charset="UTF-8"');
    expect(refused.body.detail).to.include('Basic base64(api_key:api_secret)');
  });

  it('answers Basic with an unknown key or a wrong secret 401 and WWW-Authenticate: Basic, the same for both', async () => {
    const { key } = await keyOfNewApplication(app());
    const unknown = await postJson(app(), { Authorization: basic('ak_unknown0000000000000', key.secret) });
    const wrong = await postJson(app(), {
      Authorization: basic(key.apiKey, `${key.secret.slice(0, -1)}${key.secret.endsWith('x') ? 'y' : 'x'}`),
    });
    const secretAsKey = await postJson(app(), { Authorization: basic(key.secret, key.apiKey) });
    for (const refused of [unknown, wrong, secretAsKey]) {
      expectStatus(refused, 401);
      expect(refused.headers.get('www-authenticate')).to.match(/^Basic realm=/);
      expect(refused.body.detail).to.equal(unknown.body.detail);
    }
  });

  it('answers Basic on any other operation 401, saying to exchange the key at POST /auth/token', async () => {
    const { appId, key } = await keyOfNewApplication(app(), ['read:traces', 'write:traces', 'read:applications']);
    const authorization = basic(key.apiKey, key.secret);
    const engine = await call(app().url, 'POST', '/engine/query', {
      headers: { Authorization: authorization, 'X-Vendor-App-Id': appId },
      json: { start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-23T00:00:00Z' },
    });
    const management = await call(app().url, 'GET', `/applications/${appId}`, { headers: { Authorization: authorization } });
    for (const refused of [engine, management]) {
      expectStatus(refused, 401);
      expect(refused.headers.get('www-authenticate')).to.match(/^Bearer/);
      expect(refused.body.detail).to.include('POST /auth/token');
    }
  });

  it('tells a caller who pastes the raw key or secret as a Bearer token what to send instead', async () => {
    const { appId, key } = await keyOfNewApplication(app());
    for (const value of [key.apiKey, key.secret, `${key.apiKey}:${key.secret}`]) {
      const ingest = await postJson(app(), { Authorization: `Bearer ${value}` });
      expectStatus(ingest, 401);
      expect(ingest.body.detail).to.include('Basic base64(api_key:api_secret)');
      expect(ingest.body.detail).to.include('POST /auth/token');
      const query = await call(app().url, 'POST', '/engine/query', {
        headers: { Authorization: `Bearer ${value}`, 'X-Vendor-App-Id': appId },
        json: { start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-23T00:00:00Z' },
      });
      expectStatus(query, 401);
      expect(query.body.detail).to.include('POST /auth/token');
    }
  });
});
