// Usage metering and the daily span quota (docs/usage-and-quotas.md), on every database, through
// the real HTTP and gRPC ingestion: the usage equals the spans stored under concurrent exporters
// and retries, bytes are counted before and after decompression, the per-key breakdown adds up,
// and the quota turns ingestion into 429 / RESOURCE_EXHAUSTED at the limit and back the next UTC
// day, by a settable clock. Every HTTP answer is checked against the documents (call()).
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { status as Status } from '@grpc/grpc-js';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { expect } from 'chai';
import { call, type ApiResponse } from '../support/contract.js';
import { testDatabases } from '../support/databases.js';
import { rawExport, retryDelaySeconds } from '../support/grpc.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  type Caller,
} from '../support/management.js';
import { recordSpans } from '../support/otel.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const T0 = 1795355100; // seconds: 2026-11-22 (the spans' own times)
/** The service's clock starts at 2026-11-22T20:30:00Z: 3.5 hours to midnight UTC. */
const START = Date.UTC(2026, 10, 22, 20, 30, 0);
const DAY_WINDOW = { start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-24T00:00:00Z' };

interface OtlpSpan {
  traceId: string;
  spanId: string;
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function newSpans(count: number): OtlpSpan[] {
  const traceId = hex(16);
  return Array.from({ length: count }, () => ({ traceId, spanId: hex(8) }));
}

/** An OTLP JSON export request of the spans (and `invalid` spans with an all-zero span id, which are rejected). */
function exportBody(spans: OtlpSpan[], invalid = 0): string {
  const all = [...spans, ...Array.from({ length: invalid }, () => ({ traceId: hex(16), spanId: '0000000000000000' }))];
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'metered' } }] },
        scopeSpans: [
          {
            scope: { name: 'usage-test' },
            spans: all.map((span, index) => ({
              ...span,
              name: `op ${index}`,
              kind: 1,
              startTimeUnixNano: `${T0}000000000`,
              endTimeUnixNano: `${T0}005000000`,
            })),
          },
        ],
      },
    ],
  });
}

function basic(apiKey: string, secret: string): string {
  return `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}`;
}

function send(
  app: TestServer,
  authorization: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return call(app.url, 'POST', '/v1/traces', { rawBody: body, headers: { 'content-type': 'application/json', authorization, ...headers } });
}

async function storedSpans(app: TestServer, appId: string): Promise<number> {
  const [row] = (await app.server.knex('spans').where('application_id', appId).count({ count: '*' })) as Array<{ count: number | string }>;
  return Number(row?.count);
}

interface Fixture {
  owner: Caller;
  ownerToken: string;
  appId: string;
  keys: Array<{ apiKey: string; secret: string }>;
}

async function fixture(app: TestServer, keys = 2): Promise<Fixture> {
  const ownerToken = (await dashboardUser(app, 'Owner')).token;
  const owner = callerFor(app, ownerToken);
  const orgId = await createOrganization(owner);
  const appId = await createApplication(owner, orgId);
  const made = [];
  for (let index = 0; index < keys; index += 1) made.push(await createApiKey(owner, appId, ['write:traces', 'read:applications']));
  return { owner, ownerToken, appId, keys: made };
}

for (const database of testDatabases()) {
  describe(`usage metering and daily span quota [${database.name}]`, function () {
    this.timeout(60_000);
    let now = START;
    let running: (TestServer & { stop(): Promise<void> }) | undefined;
    const app = () => running as TestServer;

    before(async () => {
      running = await startTestServer(database, { GRPC_PORT: '0' }, { clock: () => now });
    });
    after(async () => {
      await running?.stop();
    });
    beforeEach(() => {
      now = START;
    });

    it('counts exactly the spans stored under concurrent exporters and retries, per key and in total', async () => {
      const { owner, ownerToken: userToken, appId, keys } = await fixture(app());
      // Four exporters at once (two keys, each twice), eight batches each; every batch is sent twice (a retry).
      const exporters = [keys[0], keys[0], keys[1], keys[1]].map((key) => ({
        key,
        batches: Array.from({ length: 8 }, (_, index) => ({ spans: newSpans(1 + (index % 5)), invalid: index % 3 === 0 ? 1 : 0 })),
      }));
      await Promise.all(
        exporters.map(async ({ key, batches }) => {
          for (const batch of batches) {
            const body = exportBody(batch.spans, batch.invalid);
            const [first, retry] = await Promise.all([
              send(app(), basic(key.apiKey, key.secret), body),
              send(app(), basic(key.apiKey, key.secret), body),
            ]);
            expectStatus(first, 200);
            expectStatus(retry, 200);
          }
        }),
      );
      // A dashboard user's token: counted under api_key null.
      expectStatus(await send(app(), `Bearer ${userToken}`, exportBody(newSpans(2)), { 'x-vendor-app-id': appId }), 200);

      const sentSpans = exporters.flatMap(({ batches }) => batches).reduce((sum, batch) => sum + batch.spans.length, 0);
      const invalid = exporters.flatMap(({ batches }) => batches).reduce((sum, batch) => sum + batch.invalid, 0);
      const stored = await storedSpans(app(), appId);
      expect(stored).to.equal(sentSpans + 2);

      const usage = await owner('GET', `/applications/${appId}/usage`, { query: DAY_WINDOW });
      expectStatus(usage, 200);
      expect(usage.body.totals).to.deep.equal({
        spans_accepted: stored,
        spans_duplicate: sentSpans,
        spans_rejected: invalid * 2,
        bytes_received: usage.body.totals.bytes_decompressed,
        bytes_decompressed: usage.body.totals.bytes_decompressed,
        requests: 4 * 8 * 2 + 1,
        requests_refused: 0,
      });
      expect(usage.body.buckets).to.have.length(1);
      expect(usage.body.buckets[0].start_time).to.equal('2026-11-22T20:00:00.000Z');

      const perKey = await owner('GET', `/applications/${appId}/usage`, { query: { ...DAY_WINDOW, by_api_key: true } });
      expectStatus(perKey, 200);
      const byKey = new Map(
        perKey.body.buckets.map((bucket: { api_key: string | null; spans_accepted: number; requests: number }) => [bucket.api_key, bucket]),
      );
      expect([...byKey.keys()]).to.deep.equal([null, ...[keys[0]?.apiKey, keys[1]?.apiKey].sort()]);
      for (const [index, key] of keys.entries()) {
        const sent = exporters.filter((exporter) => exporter.key === key).flatMap(({ batches }) => batches);
        const bucket = byKey.get(key.apiKey) as { spans_accepted: number; requests: number };
        expect(bucket.spans_accepted, `key ${index}`).to.equal(sent.reduce((sum, batch) => sum + batch.spans.length, 0));
        expect(bucket.requests).to.equal(sent.length * 2);
      }
      expect((byKey.get(null) as { spans_accepted: number }).spans_accepted).to.equal(2);
    });

    it('counts the bytes of a gzip body before and after decompression, in the hour and the UTC day received', async () => {
      const { owner, appId, keys } = await fixture(app(), 1);
      const key = keys[0] as { apiKey: string; secret: string };
      const plain = exportBody(newSpans(20));
      const compressed = gzipSync(plain);
      now = Date.UTC(2026, 10, 23, 1, 15, 0);
      expectStatus(await send(app(), basic(key.apiKey, key.secret), compressed, { 'content-encoding': 'gzip' }), 200);
      now = Date.UTC(2026, 10, 23, 3, 59, 59);
      expectStatus(await send(app(), basic(key.apiKey, key.secret), plain), 200);

      const hourly = await owner('GET', `/applications/${appId}/usage`, {
        query: { start_time: '2026-11-23T01:30:00Z', end_time: '2026-11-23T03:00:01Z' },
      });
      expectStatus(hourly, 200);
      expect(hourly.body.start_time).to.equal('2026-11-23T01:00:00.000Z');
      expect(hourly.body.end_time).to.equal('2026-11-23T04:00:00.000Z');
      expect(
        hourly.body.buckets.map((bucket: { start_time: string; bytes_received: number; bytes_decompressed: number }) => [
          bucket.start_time,
          bucket.bytes_received,
          bucket.bytes_decompressed,
        ]),
      ).to.deep.equal([
        ['2026-11-23T01:00:00.000Z', compressed.length, Buffer.byteLength(plain)],
        ['2026-11-23T03:00:00.000Z', Buffer.byteLength(plain), Buffer.byteLength(plain)],
      ]);
      const daily = await owner('GET', `/applications/${appId}/usage`, { query: { ...DAY_WINDOW, granularity: 'day' } });
      expectStatus(daily, 200);
      expect(daily.body.buckets).to.have.length(1);
      expect(daily.body.buckets[0]).to.include({
        start_time: '2026-11-23T00:00:00.000Z',
        spans_accepted: 20,
        spans_duplicate: 20,
        bytes_received: compressed.length + Buffer.byteLength(plain),
        requests: 2,
      });
      // An API key holding read:applications reads its own application's usage.
      const keyRead = await call(app().url, 'GET', `/applications/${appId}/usage`, {
        query: DAY_WINDOW,
        token: await keyToken(app(), key.apiKey, key.secret),
      });
      expectStatus(keyRead, 200);
      expect(keyRead.body.totals.spans_accepted).to.equal(20);
    });

    it('refuses ingestion with 429 and RESOURCE_EXHAUSTED once the daily span quota is used up, and accepts again the next UTC day', async () => {
      const { owner, appId, keys } = await fixture(app(), 1);
      const key = keys[0] as { apiKey: string; secret: string };
      const authorization = basic(key.apiKey, key.secret);
      const patched = await owner('PATCH', `/applications/${appId}`, { json: { daily_span_quota: 5 } });
      expectStatus(patched, 200);
      expect(patched.body.daily_span_quota).to.equal(5);

      expectStatus(await send(app(), authorization, exportBody(newSpans(3))), 200);
      // Crosses the quota: stored whole (a soft limit).
      expectStatus(await send(app(), authorization, exportBody(newSpans(3))), 200);
      const refused = await send(app(), authorization, exportBody(newSpans(1)));
      expectStatus(refused, 429);
      expect(refused.headers.get('retry-after')).to.equal(String(3.5 * 3600));
      expect(refused.body.detail).to.contain('daily span quota of 5 spans');

      const spans = await recordSpans({ 'service.name': 'grpc-metered' }, (tracer) =>
        tracer.startSpan('over gRPC', { startTime: [T0, 0] }).end([T0, 1_000_000]),
      );
      const overGrpc = await rawExport(app().grpcAddress as string, ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array, {
        authorization,
      });
      expect(overGrpc.error?.code).to.equal(Status.RESOURCE_EXHAUSTED);
      expect(retryDelaySeconds(overGrpc.error as NonNullable<typeof overGrpc.error>)).to.equal(3.5 * 3600);

      const shown = await owner('GET', `/applications/${appId}`);
      expectStatus(shown, 200);
      expect(shown.body.daily_span_quota).to.equal(5);
      expect(shown.body.quota_state).to.deep.equal({ spans_accepted_today: 6, exceeded: true, resets_at: '2026-11-23T00:00:00.000Z' });
      expect(await storedSpans(app(), appId)).to.equal(6);

      // Midnight UTC: the quota starts again, over HTTP and gRPC.
      now = Date.UTC(2026, 10, 23, 0, 0, 0);
      expectStatus(await send(app(), authorization, exportBody(newSpans(2))), 200);
      const nextDay = await rawExport(app().grpcAddress as string, ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array, {
        authorization,
      });
      expect(nextDay.error).to.equal(null);
      const listed = await owner('GET', '/applications', { query: { organization_id: shown.body.organization_id } });
      expect(listed.body.data[0].quota_state).to.deep.equal({
        spans_accepted_today: 3,
        exceeded: false,
        resets_at: '2026-11-24T00:00:00.000Z',
      });

      const usage = await owner('GET', `/applications/${appId}/usage`, { query: { ...DAY_WINDOW, granularity: 'day' } });
      expect(
        usage.body.buckets.map((bucket: { start_time: string; spans_accepted: number; requests: number; requests_refused: number }) => [
          bucket.start_time,
          bucket.spans_accepted,
          bucket.requests,
          bucket.requests_refused,
        ]),
      ).to.deep.equal([
        ['2026-11-22T00:00:00.000Z', 6, 2, 2],
        ['2026-11-23T00:00:00.000Z', 3, 2, 0],
      ]);

      // Removing the quota lifts the refusal at once.
      const removed = await owner('PATCH', `/applications/${appId}`, { json: { daily_span_quota: null } });
      expect(removed.body.daily_span_quota).to.equal(null);
    });

    it('takes a quota at creation and answers null without one', async () => {
      const owner = callerFor(app(), (await dashboardUser(app(), 'Creator')).token);
      const orgId = await createOrganization(owner);
      const created = await owner('POST', '/applications', {
        json: { organization_id: orgId, name: 'Capped', region: 'US', daily_span_quota: 1000 },
      });
      expectStatus(created, 201);
      expect(created.body.daily_span_quota).to.equal(1000);
      expect(created.body.quota_state).to.deep.equal({ spans_accepted_today: 0, exceeded: false, resets_at: '2026-11-23T00:00:00.000Z' });
      const plain = await owner('POST', '/applications', { json: { organization_id: orgId, name: 'Open', region: 'US' } });
      expect(plain.body.daily_span_quota).to.equal(null);
      expectStatus(
        await owner('POST', '/applications', { json: { organization_id: orgId, name: 'Zero', region: 'US', daily_span_quota: 0 } }),
        422,
      );
    });

    it('refuses usage windows that end before they start or hold too many buckets (422 at end_time)', async () => {
      const { owner, appId } = await fixture(app(), 0);
      const backwards = await owner('GET', `/applications/${appId}/usage`, {
        query: { start_time: '2026-11-23T00:00:00Z', end_time: '2026-11-22T00:00:00Z' },
      });
      expectStatus(backwards, 422);
      expect(backwards.body.detail[0].loc).to.deep.equal(['query', 'end_time']);
      const tooLong = await owner('GET', `/applications/${appId}/usage`, {
        query: { start_time: '2026-10-01T00:00:00Z', end_time: '2026-11-22T00:00:00Z' },
      });
      expectStatus(tooLong, 422);
      const byDay = await owner('GET', `/applications/${appId}/usage`, {
        query: { start_time: '2026-10-01T00:00:00Z', end_time: '2026-11-22T00:00:00Z', granularity: 'day' },
      });
      expectStatus(byDay, 200);
      expect(byDay.body).to.deep.include({ buckets: [], granularity: 'day', by_api_key: false });
    });
  });
}
