// POST /v1/traces end to end, on every database: the official OpenTelemetry exporters (protobuf
// and JSON) send spans from a real tracer to the running service, and the stored rows are read
// back field by field. Every answer is checked against the engine document (call(), or the
// checking proxy for the exporters' own requests).
import { gzipSync } from 'node:zlib';
import { context, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { bigintAsText } from '../../src/storage/database.js';
import { seedUser } from '../support/accounts.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { assertMatchesContract, call } from '../support/contract.js';
import { contractCheckingProxy, expectExported, exportSpans, recordSpans, type CheckingProxy } from '../support/otel.js';
import { onEachDatabase } from '../support/test-server.js';

const LIMIT = 64 * 1024;
const T0 = 1795355100; // seconds: 2026-11-22
const RESOURCE = { 'service.name': 'summarizer', 'deployment.environment': 'production' };

/** A request → LLM call → database query trace, with the vendor attributes on every span. */
function summarizeTrace(tracer: Tracer): void {
  const root = tracer.startSpan('POST /api/summarize', {
    kind: SpanKind.SERVER,
    startTime: [T0, 123456789],
    attributes: { 'vendor.unit': 'summarizer', 'http.request.method': 'POST', 'http.response.status_code': 200 },
  });
  const llm = tracer.startSpan(
    'gemini.generate_content',
    {
      kind: SpanKind.CLIENT,
      startTime: [T0, 223456789],
      attributes: {
        'vendor.unit': 'llm',
        'vendor.parent_unit': 'summarizer',
        'vendor.cost': 0.0042,
        'vendor.billing.resource_type': 'llm_generate_content',
        'vendor.billing.resource_name': 'gemini-2.5-flash',
        'vendor.billing.service_id': 'svc-gemini',
        'vendor.billing.service_name': 'Gemini API',
        'vendor.billing.sku_id': 'sku-flash-out',
        'vendor.billing.sku_name': 'Gemini 2.5 Flash output tokens',
        'vendor.billing.region': 'europe-west4',
        'vendor.usage.amount': 1680,
        'vendor.usage.unit': 'tokens',
        'gen_ai.request.stop_sequences': ['END', 'STOP'],
      },
    },
    trace.setSpan(context.active(), root),
  );
  const query = tracer.startSpan(
    'SELECT documents',
    {
      kind: SpanKind.CLIENT,
      startTime: [T0, 300000000],
      attributes: {
        'vendor.unit': 'db',
        'vendor.parent_unit': 'llm',
        'vendor.cost': 0.0001,
        'vendor.billing.resource_type': 'db_job',
        'db.rows': 12,
        'db.cached': false,
      },
    },
    trace.setSpan(context.active(), llm),
  );
  query.end([T0, 350000001]);
  llm.end([T0 + 1, 423456789]);
  root.end([T0 + 1, 623456789]);
}

/** JSON columns come back as text (SQLite) or already parsed (mysql2 on MariaDB). */
function parseJsonColumn(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

function byName(spans: ReadableSpan[], name: string): ReadableSpan {
  const span = spans.find((candidate) => candidate.name === name);
  if (!span) throw new Error(`no span ${name}`);
  return span;
}

const NULL_BILLING = {
  billing_resource_type: null,
  billing_resource_name: null,
  billing_service_id: null,
  billing_service_name: null,
  billing_sku_id: null,
  billing_sku_name: null,
  billing_region: null,
};

onEachDatabase(
  'POST /v1/traces: OTLP ingestion',
  (app) => {
    const knex = () => app().server.knex;
    let proxy: CheckingProxy;
    before(async () => {
      proxy = await contractCheckingProxy(app().url);
    });
    afterEach(() => {
      expect(proxy.violations, 'answers outside the document').to.deep.equal([]);
    });
    after(async () => {
      await proxy.close();
    });

    function protoExporter(caller: EngineCaller, options: { gzip?: boolean; timeoutMillis?: number; url?: string } = {}) {
      return new ProtoTraceExporter({
        url: `${options.url ?? proxy.url}/v1/traces`,
        headers: caller.headers,
        timeoutMillis: options.timeoutMillis ?? 10_000,
        compression: options.gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
      });
    }

    function jsonExporter(caller: EngineCaller) {
      return new JsonTraceExporter({ url: `${proxy.url}/v1/traces`, headers: caller.headers, timeoutMillis: 10_000 });
    }

    async function exportOnce(exporter: ProtoTraceExporter | JsonTraceExporter, spans: ReadableSpan[]): Promise<void> {
      try {
        expectExported(await exportSpans(exporter, spans));
      } finally {
        await exporter.shutdown();
      }
    }

    async function storedRows(appId: string) {
      const rows = await knex()('spans')
        .where({ application_id: appId })
        .select('*')
        .select({ start: bigintAsText(knex(), 'start_time_unix_nano'), end: bigintAsText(knex(), 'end_time_unix_nano') })
        .orderBy([{ column: 'start_time_unix_nano' }, { column: 'span_id' }]);
      return rows.map(
        ({
          seq: _seq,
          start_time_unix_nano: _start,
          end_time_unix_nano: _end,
          received_at,
          resource_attributes,
          span_attributes,
          ...row
        }) => ({
          ...row,
          received_at: Number(received_at),
          resource_attributes: parseJsonColumn(resource_attributes),
          span_attributes: parseJsonColumn(span_attributes),
        }),
      );
    }

    async function expectSummarizeTraceStored(caller: EngineCaller, spans: ReadableSpan[], sentAt: number) {
      const [root, llm, query] = ['POST /api/summarize', 'gemini.generate_content', 'SELECT documents'].map((name) => byName(spans, name));
      const traceId = root.spanContext().traceId;
      const rows = await storedRows(caller.appId);
      expect(rows).to.have.length(3);
      for (const row of rows) {
        expect(row.received_at).to.be.within(sentAt, Date.now());
        expect(row.resource_attributes).to.include(RESOURCE);
      }
      const common = { application_id: caller.appId, trace_id: traceId, service_name: 'summarizer' };
      expect(rows[0]).to.deep.include({
        ...common,
        span_id: root.spanContext().spanId,
        parent_span_id: null,
        start: '1795355100123456789',
        end: '1795355101623456789',
        span_name: 'POST /api/summarize',
        span_kind: 'SPAN_KIND_SERVER',
        unit: 'summarizer',
        parent_unit: null,
        cost: null,
        ...NULL_BILLING,
        usage_amount: null,
        usage_unit: null,
        span_attributes: { 'vendor.unit': 'summarizer', 'http.request.method': 'POST', 'http.response.status_code': 200 },
      });
      expect(rows[0].duration_ms).to.be.closeTo(1500, 1e-9);
      expect(rows[1]).to.deep.include({
        ...common,
        span_id: llm.spanContext().spanId,
        parent_span_id: root.spanContext().spanId,
        start: '1795355100223456789',
        end: '1795355101423456789',
        span_name: 'gemini.generate_content',
        span_kind: 'SPAN_KIND_CLIENT',
        unit: 'llm',
        parent_unit: 'summarizer',
        cost: 0.0042,
        billing_resource_type: 'llm_generate_content',
        billing_resource_name: 'gemini-2.5-flash',
        billing_service_id: 'svc-gemini',
        billing_service_name: 'Gemini API',
        billing_sku_id: 'sku-flash-out',
        billing_sku_name: 'Gemini 2.5 Flash output tokens',
        billing_region: 'europe-west4',
        usage_amount: 1680,
        usage_unit: 'tokens',
      });
      expect(rows[1].duration_ms).to.be.closeTo(1200, 1e-9);
      expect(rows[1].span_attributes).to.deep.equal(llm.attributes);
      expect(rows[2]).to.deep.include({
        ...common,
        span_id: query.spanContext().spanId,
        parent_span_id: llm.spanContext().spanId,
        start: '1795355100300000000',
        end: '1795355100350000001',
        span_kind: 'SPAN_KIND_CLIENT',
        unit: 'db',
        parent_unit: 'llm',
        cost: 0.0001,
        ...NULL_BILLING,
        billing_resource_type: 'db_job',
        usage_amount: null,
        span_attributes: {
          'vendor.unit': 'db',
          'vendor.parent_unit': 'llm',
          'vendor.cost': 0.0001,
          'vendor.billing.resource_type': 'db_job',
          'db.rows': 12,
          'db.cached': false,
        },
      });
      expect(rows[2].duration_ms).to.be.closeTo(50.000001, 1e-9);
      const summary = await knex()('traces').where({ application_id: caller.appId, trace_id: traceId }).first();
      expect(summary).to.include({ root_span_id: root.spanContext().spanId, span_name: 'POST /api/summarize', spans_count: 3 });
      expect(summary.total_cost).to.be.closeTo(0.0043, 1e-12);
    }

    /** POSTs a raw body; the answer is checked against the document and its bytes kept. */
    async function post(caller: EngineCaller, body: Uint8Array | string, headers: Record<string, string>) {
      const response = await fetch(new URL('/v1/traces', app().url), { method: 'POST', headers: { ...caller.headers, ...headers }, body });
      const bytes = new Uint8Array(await response.arrayBuffer());
      const text = Buffer.from(bytes).toString('utf8');
      const json = (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
      await assertMatchesContract('POST', '/v1/traces', { status: response.status, headers: response.headers, body: json, text });
      return { status: response.status, headers: response.headers, bytes, body: json };
    }

    it('stores nested spans from the protobuf exporter with every mapped field, nanoseconds exact', async () => {
      const caller = await engineCaller(app());
      const spans = await recordSpans(RESOURCE, summarizeTrace);
      const sentAt = Date.now();
      await exportOnce(protoExporter(caller), spans);
      await expectSummarizeTraceStored(caller, spans, sentAt);
    });

    it('stores nested spans from the JSON exporter the same way', async () => {
      const caller = await engineCaller(app());
      const spans = await recordSpans(RESOURCE, summarizeTrace);
      const sentAt = Date.now();
      await exportOnce(jsonExporter(caller), spans);
      await expectSummarizeTraceStored(caller, spans, sentAt);
    });

    it('accepts gzip bodies, from the exporter and by hand', async () => {
      const caller = await engineCaller(app());
      const spans = await recordSpans(RESOURCE, summarizeTrace);
      const sentAt = Date.now();
      await exportOnce(protoExporter(caller, { gzip: true }), spans);
      await expectSummarizeTraceStored(caller, spans, sentAt);

      const other = await engineCaller(app());
      const jsonSpans = await recordSpans(RESOURCE, summarizeTrace);
      const body = gzipSync(Buffer.from(JsonTraceSerializer.serializeRequest(jsonSpans) as Uint8Array));
      const response = await post(other, body, { 'Content-Type': 'application/json', 'Content-Encoding': 'GZIP' });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({});
      await expectSummarizeTraceStored(other, jsonSpans, sentAt);
    });

    it('stores a batch sent twice once, and answers both with an empty protobuf response', async () => {
      const caller = await engineCaller(app());
      const spans = await recordSpans(RESOURCE, summarizeTrace);
      const body = ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array;
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const response = await post(caller, body, { 'Content-Type': 'application/x-protobuf' });
        expect(response.status).to.equal(200);
        expect(response.headers.get('content-type')).to.equal('application/x-protobuf');
        expect(response.bytes).to.have.length(0);
      }
      await exportOnce(protoExporter(caller), spans);
      expect(await storedRows(caller.appId)).to.have.length(3);
      const summary = await knex()('traces').where({ application_id: caller.appId }).first();
      expect(summary.spans_count).to.equal(3);
    });

    it('stores the good spans of a batch with a 5-byte trace id and reports the bad one as partial success', async () => {
      const caller = await engineCaller(app());
      const spans = await recordSpans(RESOURCE, summarizeTrace);
      const llm = byName(spans, 'gemini.generate_content');
      const badTraceId = 'abcdef0123';
      const bad: ReadableSpan = Object.create(llm, { spanContext: { value: () => ({ ...llm.spanContext(), traceId: badTraceId }) } });
      const batch = spans.map((span) => (span === llm ? bad : span));

      const response = await post(caller, ProtobufTraceSerializer.serializeRequest(batch) as Uint8Array, {
        'Content-Type': 'application/x-protobuf',
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('application/x-protobuf');
      const answer = ProtobufTraceSerializer.deserializeResponse(response.bytes);
      expect(answer.partialSuccess?.rejectedSpans).to.equal(1);
      expect(answer.partialSuccess?.errorMessage).to.equal(
        `span ${llm.spanContext().spanId}: invalid trace_id: must be 16 bytes (32 hex digits)`,
      );
      const stored = await storedRows(caller.appId);
      expect(stored.map((row) => row.span_name)).to.deep.equal(['POST /api/summarize', 'SELECT documents']);

      const jsonAnswer = await post(caller, JsonTraceSerializer.serializeRequest(batch) as Uint8Array, {
        'Content-Type': 'application/json',
      });
      expect(jsonAnswer.status).to.equal(200);
      expect(jsonAnswer.body).to.deep.equal({ partialSuccess: { rejectedSpans: '1', errorMessage: answer.partialSuccess?.errorMessage } });

      // The exporter counts a partial success as delivered.
      await exportOnce(protoExporter(caller), batch);
      expect(await storedRows(caller.appId)).to.have.length(2);
    });

    it('reads OTLP JSON written by hand: upper-case hex, enum names, bare and string int64, unknown fields', async () => {
      const caller = await engineCaller(app());
      const traceId = '4BF92F3577B34DA6A3CE929D0E0E4736';
      const text = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"hand"}}]},"futureField":{"x":1},
        "scopeSpans":[{"scope":{"name":"manual"},"spans":[
          {"traceId":"${traceId}","spanId":"00F067AA0BA902B7","parentSpanId":"","name":"a","kind":"SPAN_KIND_PRODUCER",
           "startTimeUnixNano":1795355100123456789,"endTimeUnixNano":"1795355100123456790",
           "attributes":[{"key":"big","value":{"intValue":"9007199254740993"}},{"key":"small","value":{"intValue":42}},
                         {"key":"vendor.cost","value":{"stringValue":"0.5"}},{"key":"nothing","value":{}}],
           "status":{"code":2},"events":[{"name":"e"}],"someNewField":true},
          {"trace_id":"${traceId.toLowerCase()}","span_id":"00f067aa0ba902b8","parent_span_id":"00f067aa0ba902b7","name":"b","kind":9,
           "start_time_unix_nano":"1795355100200000000","end_time_unix_nano":"1795355100300000000","attributes":null}]}]}]}`;
      const response = await post(caller, text, { 'Content-Type': 'application/json; charset=utf-8' });
      expect(response.status, response.bytes.toString()).to.equal(200);
      expect(response.body).to.deep.equal({});
      const rows = await storedRows(caller.appId);
      expect(rows).to.have.length(2);
      expect(rows[0]).to.deep.include({
        trace_id: traceId.toLowerCase(),
        span_id: '00f067aa0ba902b7',
        parent_span_id: null,
        span_kind: 'SPAN_KIND_PRODUCER',
        start: '1795355100123456789',
        end: '1795355100123456790',
        cost: 0.5,
        service_name: 'hand',
        span_attributes: { big: '9007199254740993', small: 42, 'vendor.cost': '0.5', nothing: null },
      });
      expect(rows[1]).to.deep.include({ parent_span_id: '00f067aa0ba902b7', span_kind: 'SPAN_KIND_UNSPECIFIED', span_attributes: null });
    });

    it('answers an empty protobuf body (an empty request) with 200', async () => {
      const caller = await engineCaller(app());
      const response = await post(caller, new Uint8Array(0), { 'Content-Type': 'application/x-protobuf' });
      expect(response.status).to.equal(200);
      expect(response.bytes).to.have.length(0);
    });

    const UNDECODABLE: Array<[string, Uint8Array | string, Record<string, string>, RegExp]> = [
      [
        'a corrupt protobuf body',
        Buffer.from('0a05ffffffffff12', 'hex'),
        { 'Content-Type': 'application/x-protobuf' },
        /invalid OTLP protobuf/,
      ],
      ['a truncated protobuf body', Buffer.from('0a7f0a03', 'hex'), { 'Content-Type': 'application/x-protobuf' }, /invalid OTLP protobuf/],
      ['malformed JSON', '{"resourceSpans": [', { 'Content-Type': 'application/json' }, /invalid OTLP JSON/],
      ['an empty JSON body', '', { 'Content-Type': 'application/json' }, /invalid OTLP JSON/],
      [
        'JSON that is not an export request',
        '{"resourceSpans": 5}',
        { 'Content-Type': 'application/json' },
        /resourceSpans must be an array/,
      ],
      [
        'a span time that is not an integer',
        '{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"soon"}]}]}]}',
        { 'Content-Type': 'application/json' },
        /startTimeUnixNano/,
      ],
      [
        'a body that is not gzip',
        'not gzip at all',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        /invalid gzip body/,
      ],
    ];
    for (const [name, body, headers, detail] of UNDECODABLE) {
      it(`answers 400, not 422, to ${name}`, async () => {
        const caller = await engineCaller(app());
        const response = await post(caller, body, headers);
        expect(response.status).to.equal(400);
        expect(response.body.detail).to.match(detail);
      });
    }

    it('answers 413 past INGEST_MAX_BODY_BYTES, measured after decompression', async () => {
      const caller = await engineCaller(app());
      const spans = await recordSpans(RESOURCE, (tracer) => tracer.startSpan('big', { attributes: { blob: 'x'.repeat(LIMIT) } }).end());
      const body = Buffer.from(JsonTraceSerializer.serializeRequest(spans) as Uint8Array);
      const plain = await post(caller, body, { 'Content-Type': 'application/json' });
      expect(plain.status).to.equal(413);
      const compressed = gzipSync(body);
      expect(compressed.length).to.be.below(LIMIT / 10);
      const gzipped = await post(caller, compressed, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      expect(gzipped.status).to.equal(413);
      expect(gzipped.body.detail).to.match(/after decompression/);
      expect(await storedRows(caller.appId)).to.have.length(0);
    });

    it('answers 415 to another content type or content encoding', async () => {
      const caller = await engineCaller(app());
      const text = await post(caller, 'hello', { 'Content-Type': 'text/plain' });
      expect(text.status).to.equal(415);
      expect(text.body.detail).to.match(/application\/x-protobuf or application\/json/);
      const brotli = await post(caller, '{}', { 'Content-Type': 'application/json', 'Content-Encoding': 'br' });
      expect(brotli.status).to.equal(415);
    });

    it('answers 422 to a user without X-Vendor-App-Id (API keys default to their own application: exporter-credentials.test.ts)', async () => {
      const user = await seedUser(app(), 'ingester');
      const response = await call(app().url, 'POST', '/v1/traces', {
        headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json' },
        rawBody: '{}',
      });
      expect(response.status).to.equal(422);
      expect(response.body.detail[0].loc).to.deep.equal(['header', 'x-vendor-app-id']);
    });

    it('refuses a key without write:traces (403) and a key of another application (403 or 404)', async () => {
      const reader = await engineCaller(app(), ['read:traces']);
      const spans = await recordSpans(RESOURCE, summarizeTrace);
      const body = ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array;
      expect((await post(reader, body, { 'Content-Type': 'application/x-protobuf' })).status).to.equal(403);
      const writer = await engineCaller(app());
      const victim = await engineCaller(app());
      const intruder = { appId: victim.appId, headers: { ...writer.headers, 'X-Vendor-App-Id': victim.appId } };
      expect((await post(intruder, body, { 'Content-Type': 'application/x-protobuf' })).status).to.be.oneOf([403, 404]);
      expect(await storedRows(reader.appId)).to.have.length(0);
      expect(await storedRows(victim.appId)).to.have.length(0);
    });
  },
  { INGEST_MAX_BODY_BYTES: String(LIMIT) },
);
