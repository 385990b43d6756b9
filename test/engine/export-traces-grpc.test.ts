// OTLP over gRPC (TraceService/Export) end to end, on every database: the official gRPC exporter
// sends spans that read back through POST /engine/query exactly as the same spans sent over
// OTLP/HTTP; a raw grpc-js client sees each status code the OTLP specification asks for.
import { gzipSync } from 'node:zlib';
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { context, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization, seedUser } from '../support/accounts.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { parseExact } from '../support/engine-helpers.js';
import { grpcCallCount, http2Export, metadataOf, rawExport, retryDelaySeconds, untilMoreCalls } from '../support/grpc.js';
import { expectExported, exportSpans, recordSpans } from '../support/otel.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const T0 = 1795355100; // seconds: 2026-11-22
const WINDOW = { start_time: '2026-11-22T00:00:00Z', end_time: '2026-11-23T00:00:00Z' };
const LIMIT = 64 * 1024;

/** A request → LLM call → database query trace, with cost, billing and usage attributes. */
function nestedTrace(tracer: Tracer): void {
  const root = tracer.startSpan('POST /api/summarize', {
    kind: SpanKind.SERVER,
    startTime: [T0, 123456789],
    attributes: { 'vendor.unit': 'summarizer', 'http.response.status_code': 200 },
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
        'vendor.billing.sku_name': 'Gemini 2.5 Flash output tokens',
        'vendor.usage.amount': 1680,
        'vendor.usage.unit': 'tokens',
        'gen_ai.request.stop_sequences': ['END', 'STOP'],
      },
    },
    trace.setSpan(context.active(), root),
  );
  const query = tracer.startSpan(
    'SELECT documents',
    { kind: SpanKind.CLIENT, startTime: [T0, 300000000], attributes: { 'vendor.unit': 'db', 'vendor.cost': 0.0001, 'db.cached': false } },
    trace.setSpan(context.active(), llm),
  );
  query.end([T0, 350000001]);
  llm.end([T0 + 1, 423456789]);
  root.end([T0 + 1, 623456789]);
}

function grpcExporter(app: TestServer, headers: Record<string, string>): GrpcTraceExporter {
  return new GrpcTraceExporter({
    url: `http://${app.grpcAddress}`,
    metadata: metadataOf(headers),
    compression: CompressionAlgorithm.GZIP,
    timeoutMillis: 20_000,
  });
}

async function querySpans(app: TestServer, caller: EngineCaller) {
  const answer = await call(app.url, 'POST', '/engine/query', { query: WINDOW, headers: caller.headers, json: {} });
  expect(answer.status).to.equal(200);
  return parseExact<{ data: Array<Record<string, unknown>> }>(answer.text).data;
}

function withoutApplication(items: Array<Record<string, unknown>>) {
  return items.map(({ application_id: _app, ...item }) => item);
}

function oneSpan(name: string): Promise<ReadableSpan[]> {
  return recordSpans({ 'service.name': 'grpc-test' }, (tracer) => tracer.startSpan(name, { startTime: [T0, 0] }).end([T0, 5_000_000]));
}

onEachDatabase(
  'OTLP/gRPC TraceService/Export',
  (app) => {
    it('stores nested spans from the official gRPC exporter (gzip) exactly as OTLP/HTTP stores them', async function () {
      this.timeout(30_000);
      const spans = await recordSpans({ 'service.name': 'summarizer', 'deployment.environment': 'production' }, nestedTrace);
      const overGrpc = await engineCaller(app());
      const overHttp = await engineCaller(app());
      const exporter = grpcExporter(app(), overGrpc.headers);
      try {
        expectExported(await exportSpans(exporter, spans));
      } finally {
        await exporter.shutdown();
      }
      const reference = new ProtoTraceExporter({
        url: `${app().url}/v1/traces`,
        headers: overHttp.headers,
        compression: CompressionAlgorithm.GZIP,
      });
      try {
        expectExported(await exportSpans(reference, spans));
      } finally {
        await reference.shutdown();
      }
      const stored = await querySpans(app(), overGrpc);
      expect(stored).to.have.length(3);
      expect(withoutApplication(stored)).to.deep.equal(withoutApplication(await querySpans(app(), overHttp)));
      const [root, llm, query] = ['POST /api/summarize', 'gemini.generate_content', 'SELECT documents'].map(
        (name) => spans.find((span) => span.name === name) as ReadableSpan,
      );
      const byId = (span: ReadableSpan) => stored.find((item) => item.span_id === span.spanContext().spanId) as Record<string, unknown>;
      expect(byId(root)).to.deep.include({
        parent_span_id: null,
        span_start_time_unix_nano: '1795355100123456789',
        span_kind: 'SPAN_KIND_SERVER',
        service_name: 'summarizer',
      });
      expect(byId(llm)).to.deep.include({
        parent_span_id: root.spanContext().spanId,
        cost: 0.0042,
        unit: 'llm',
        parent_unit: 'summarizer',
      });
      expect(byId(llm).span_attributes).to.deep.equal(llm.attributes);
      expect(byId(query)).to.deep.include({
        parent_span_id: llm.spanContext().spanId,
        cost: 0.0001,
        span_end_time_unix_nano: '1795355100350000001',
      });
    });

    it('stores a span sent twice once, and reports invalid spans through partial success', async () => {
      const caller = await engineCaller(app());
      const good = await oneSpan('kept');
      const body = ProtobufTraceSerializer.serializeRequest(good) as Uint8Array;
      for (let round = 0; round < 2; round += 1) {
        const { error, response } = await rawExport(app().grpcAddress as string, body, caller.headers);
        expect(error).to.equal(null);
        expect(ProtobufTraceSerializer.deserializeResponse(response as Buffer).partialSuccess).to.equal(undefined);
      }
      expect(await querySpans(app(), caller)).to.have.length(1);

      const bad = await oneSpan('no trace id');
      (bad[0] as { spanContext(): { traceId: string } }).spanContext().traceId = '0'.repeat(32);
      const { error, response } = await rawExport(
        app().grpcAddress as string,
        ProtobufTraceSerializer.serializeRequest([...bad, ...(await oneSpan('also kept'))]) as Uint8Array,
        caller.headers,
      );
      expect(error).to.equal(null);
      const partial = ProtobufTraceSerializer.deserializeResponse(response as Buffer).partialSuccess;
      expect(Number(partial?.rejectedSpans)).to.equal(1);
      expect(partial?.errorMessage).to.include('trace_id');
      expect(await querySpans(app(), caller)).to.have.length(2);
    });

    it("takes Basic base64(api_key:api_secret) from the official exporter configured by OTEL_EXPORTER_OTLP_* alone (the documented recipe); the key's application is the default", async function () {
      this.timeout(30_000);
      const organizationId = await seedOrganization(app().server.knex, []);
      const appId = await seedApplication(app().server.knex, organizationId);
      const key = await seedApiKey(app().server.knex, appId, ['write:traces', 'read:traces']);
      const spans = await recordSpans({ 'service.name': 'basic' }, nestedTrace);
      const basic = Buffer.from(`${key.apiKey}:${key.secret}`)
        .toString('base64')
        .replace(/\+/g, '%2B')
        .replace(/\//g, '%2F')
        .replace(/=/g, '%3D');
      const env = {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://${app().grpcAddress}`,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Basic%20${basic}`,
        OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      };
      const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
      Object.assign(process.env, env);
      let exporter: GrpcTraceExporter;
      try {
        exporter = new GrpcTraceExporter();
      } finally {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
      try {
        expectExported(await exportSpans(exporter, spans));
      } finally {
        await exporter.shutdown();
      }
      const reader = { appId, headers: { Authorization: `Bearer ${await apiKeyToken(app(), key)}`, 'X-Vendor-App-Id': appId } };
      expect(await querySpans(app(), reader)).to.have.length(3);
      // The secret with its last character changed (to one it cannot already be).
      const wrongSecret = `${key.secret.slice(0, -1)}${key.secret.endsWith('x') ? 'y' : 'x'}`;
      const wrong = `Basic ${Buffer.from(`${key.apiKey}:${wrongSecret}`).toString('base64')}`;
      const { error } = await rawExport(
        app().grpcAddress as string,
        ProtobufTraceSerializer.serializeRequest(await oneSpan('refused')) as Uint8Array,
        { authorization: wrong },
      );
      expect(error?.code).to.equal(Status.UNAUTHENTICATED);
      expect(await querySpans(app(), reader)).to.have.length(3);
    });

    describe('status codes', () => {
      let caller: EngineCaller;
      let body: Uint8Array;
      before(async () => {
        caller = await engineCaller(app());
        body = ProtobufTraceSerializer.serializeRequest(await oneSpan('status')) as Uint8Array;
      });

      async function expectCode(
        code: Status,
        headers: Record<string, string>,
        payload: Uint8Array = body,
        gzip = false,
      ): Promise<ServiceError> {
        const { error } = await rawExport(app().grpcAddress as string, payload, headers, { gzip });
        expect(error?.code, error?.details).to.equal(code);
        return error as ServiceError;
      }

      it('UNAUTHENTICATED without credentials or with a bad token', async () => {
        await expectCode(Status.UNAUTHENTICATED, { 'x-vendor-app-id': caller.appId });
        await expectCode(Status.UNAUTHENTICATED, { authorization: 'Bearer not.a.jwt', 'x-vendor-app-id': caller.appId });
      });

      it('PERMISSION_DENIED for a key without write:traces, or naming another application of its organization', async () => {
        const readOnly = await engineCaller(app(), ['read:traces']);
        await expectCode(Status.PERMISSION_DENIED, readOnly.headers);
        const organizationId = await seedOrganization(app().server.knex, []);
        const own = await seedApplication(app().server.knex, organizationId);
        const sibling = await seedApplication(app().server.knex, organizationId);
        const token = await apiKeyToken(app(), await seedApiKey(app().server.knex, own, ['write:traces']));
        await expectCode(Status.PERMISSION_DENIED, { authorization: `Bearer ${token}`, 'x-vendor-app-id': sibling });
      });

      it('NOT_FOUND for an application that does not exist or a user outside its organization', async () => {
        await expectCode(Status.NOT_FOUND, { ...caller.headers, 'x-vendor-app-id': 'app_doesnotexist0000000' });
        const outsider = await seedUser(app(), 'outsider');
        await expectCode(Status.NOT_FOUND, { authorization: `Bearer ${outsider.token}`, 'x-vendor-app-id': caller.appId });
      });

      it('accepts a member user with write:traces, like POST /v1/traces', async () => {
        const member = await seedUser(app(), 'member');
        const organizationId = await seedOrganization(app().server.knex, [[member.userId, 'member']]);
        const appId = await seedApplication(app().server.knex, organizationId);
        const { error } = await rawExport(app().grpcAddress as string, body, {
          authorization: `Bearer ${member.token}`,
          'x-vendor-app-id': appId,
        });
        expect(error).to.equal(null);
      });

      it('INVALID_ARGUMENT for bytes that are not an export request, or for a user without x-vendor-app-id', async () => {
        await expectCode(Status.INVALID_ARGUMENT, caller.headers, Buffer.from('not protobuf at all'));
        const member = await seedUser(app(), 'member');
        await seedOrganization(app().server.knex, [[member.userId, 'member']]);
        await expectCode(Status.INVALID_ARGUMENT, { authorization: `Bearer ${member.token}` });
      });

      it('INVALID_ARGUMENT for an x-vendor-app-id longer than 64 characters, as the header is a 422 over HTTP (also when sent empty)', async () => {
        const authorization = caller.headers.Authorization as string;
        await expectCode(Status.INVALID_ARGUMENT, { authorization, 'x-vendor-app-id': 'a'.repeat(65) });
        // gRPC drops an empty metadata value on the way (absent: the key's own application).
        for (const sent of ['', '   ', 'a'.repeat(65)]) {
          const overHttp = await call(app().url, 'POST', '/v1/traces', {
            headers: { authorization, 'x-vendor-app-id': sent, 'content-type': 'application/x-protobuf' },
            rawBody: body,
          });
          expect(overHttp.status, `${JSON.stringify(sent)}: ${overHttp.text}`).to.equal(422);
          expect(overHttp.body.detail[0].loc).to.deep.equal(['header', 'x-vendor-app-id']);
        }
      });

      it('INVALID_ARGUMENT, never INTERNAL, for a message flagged gzip or deflate that does not decompress, or a malformed grpc-timeout', async () => {
        const truncated = gzipSync(body).subarray(0, 12);
        const sent: Array<[Record<string, string>, Uint8Array, boolean]> = [
          [{ 'grpc-encoding': 'gzip' }, Buffer.from('not gzip at all'), true],
          [{ 'grpc-encoding': 'gzip' }, truncated, true],
          [{ 'grpc-encoding': 'deflate' }, Buffer.from('not deflate either'), true],
          [{ 'grpc-timeout': 'soon' }, body, false],
        ];
        const own = await engineCaller(app());
        const before = await grpcCallCount(app().url, 'INVALID_ARGUMENT');
        for (const [headers, message, compressed] of sent) {
          const answer = await http2Export(app().grpcAddress as string, message, { ...own.headers, ...headers }, compressed);
          expect(answer.code, `${JSON.stringify(headers)}: ${answer.details}`).to.equal(Status.INVALID_ARGUMENT);
        }
        // The same gzip, whole, is stored: only the broken bytes were refused.
        const whole = await http2Export(app().grpcAddress as string, gzipSync(body), { ...own.headers, 'grpc-encoding': 'gzip' }, true);
        expect(whole.code, whole.details).to.equal(Status.OK);
        expect(await querySpans(app(), own)).to.have.length(1);
        // Answered by grpc-js before the service has the message, and still counted.
        expect(await grpcCallCount(app().url, 'INVALID_ARGUMENT')).to.equal(before + sent.length);
        expect(await grpcCallCount(app().url, 'INTERNAL')).to.equal(0);
      });

      it('UNAUTHENTICATED, not INVALID_ARGUMENT or RESOURCE_EXHAUSTED, for what grpc-js refuses when the credentials are bad', async () => {
        const truncated = gzipSync(body).subarray(0, 12);
        const own = await engineCaller(app());
        const oversized = Buffer.alloc(LIMIT + 1024, 1);
        const sent: Array<[Record<string, string>, Uint8Array, boolean]> = [
          [{ 'grpc-encoding': 'gzip' }, Buffer.from('not gzip at all'), true],
          [{ 'grpc-encoding': 'gzip' }, truncated, true],
          [{ 'grpc-timeout': 'soon' }, body, false],
          [{}, oversized, false],
        ];
        const badCredentials: Array<Record<string, string>> = [
          {},
          { authorization: 'Bearer not.a.jwt' },
          { authorization: `Basic ${Buffer.from('key_nosuchkey:secret').toString('base64')}` },
        ];
        for (const credentials of badCredentials) {
          for (const [headers, message, compressed] of sent) {
            const answer = await http2Export(
              app().grpcAddress as string,
              message,
              { 'x-vendor-app-id': own.appId, ...credentials, ...headers },
              compressed,
            );
            expect(answer.code, `${JSON.stringify({ ...credentials, ...headers })}: ${answer.details}`).to.equal(Status.UNAUTHENTICATED);
          }
        }
      });

      it('RESOURCE_EXHAUSTED (without retry info) for a message over INGEST_MAX_BODY_BYTES, compressed or not', async () => {
        const big = await recordSpans({ 'service.name': 'big' }, (tracer) =>
          tracer.startSpan('big', { startTime: [T0, 0], attributes: { payload: 'x'.repeat(LIMIT) } }).end([T0, 1]),
        );
        const payload = ProtobufTraceSerializer.serializeRequest(big) as Uint8Array;
        expect(gzipSync(payload).length).to.be.below(LIMIT);
        for (const gzip of [false, true]) {
          const error = await expectCode(Status.RESOURCE_EXHAUSTED, caller.headers, payload, gzip);
          expect(retryDelaySeconds(error)).to.equal(undefined);
        }
        expect(await querySpans(app(), caller)).to.deep.equal([]);
      });

      it('UNAVAILABLE with google.rpc.RetryInfo when storing fails, and a retrying client then stores every span once', async function () {
        this.timeout(30_000);
        const knex = app().server.knex;
        const spans = await recordSpans({ 'service.name': 'outage' }, (tracer) => {
          for (let index = 0; index < 5; index += 1) tracer.startSpan(`work ${index}`, { startTime: [T0, index] }).end([T0, index + 10]);
        });
        const payload = ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array;
        const retrying = await engineCaller(app());
        await knex.schema.renameTable('spans', 'spans_away');
        let restored = false;
        const restore = async () => {
          if (!restored) await knex.schema.renameTable('spans_away', 'spans');
          restored = true;
        };
        try {
          const error = await expectCode(Status.UNAVAILABLE, retrying.headers, payload);
          expect(retryDelaySeconds(error)).to.be.greaterThan(0);
          // The official JS exporter (0.223) does not retry gRPC failures itself: it reports the
          // UNAVAILABLE it got, so its batch processor (or a Collector in front) sends again.
          const exporter = grpcExporter(app(), retrying.headers);
          try {
            const result = await exportSpans(exporter, spans);
            expect((result.error as ServiceError | undefined)?.code).to.equal(Status.UNAVAILABLE);
          } finally {
            await exporter.shutdown();
          }
          // A client with the usual gRPC retry policy for UNAVAILABLE (as the Collector's otlp
          // exporter retries): its first attempt fails during the outage, a later one succeeds.
          const refusals = await grpcCallCount(app().url, 'UNAVAILABLE');
          const answer = rawExport(app().grpcAddress as string, payload, retrying.headers, { retryUnavailable: true });
          await untilMoreCalls(app().url, 'UNAVAILABLE', refusals);
          await restore();
          expect((await answer).error).to.equal(null);
        } finally {
          await restore();
        }
        const stored = await querySpans(app(), retrying);
        expect(stored.map((item) => item.span_id).sort()).to.deep.equal(spans.map((span) => span.spanContext().spanId).sort());
      });

      it('counts calls by status code in /metrics', async () => {
        const metrics = await fetch(new URL('/metrics', app().url)).then((response) => response.text());
        // RESOURCE_EXHAUSTED too, though grpc-js answers it before the service has the message.
        for (const code of [
          'OK',
          'UNAUTHENTICATED',
          'PERMISSION_DENIED',
          'NOT_FOUND',
          'INVALID_ARGUMENT',
          'RESOURCE_EXHAUSTED',
          'UNAVAILABLE',
        ]) {
          expect(metrics).to.match(new RegExp(`spanledger_grpc_requests_total\\{method="TraceService/Export",code="${code}"\\} [1-9]`));
        }
      });
    });
  },
  { GRPC_PORT: '0', INGEST_MAX_BODY_BYTES: String(LIMIT) },
);
