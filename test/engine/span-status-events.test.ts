// Span status, events, links, instrumentation scope and dropped counts, end to end on every
// database: a real tracer records them (status, addEvent/recordException, links at span start,
// the scope from getTracer(name, version), span limits that drop some), the official OTLP
// exporters send them (OTLP/HTTP protobuf and JSON, OTLP/gRPC), and POST /engine/query reads them back exactly
// (event times digit for digit). Then the new filter fields and the traces' error_count.
import { context, SpanKind, SpanStatusCode, trace, type Link, type Tracer } from '@opentelemetry/api';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { type EngineReadPath, nanosToRfc3339, parseEngineRead } from '../support/engine-helpers.js';
import { metadataOf } from '../support/grpc.js';
import { contractCheckingProxy, expectExported, exportSpans, nanos, recordSpans, type CheckingProxy } from '../support/otel.js';
import { onEachDatabase } from '../support/test-server.js';

const T0 = 1795355100; // seconds: 2026-11-22
const WINDOW = { start_time: nanosToRfc3339(BigInt(T0 - 60) * 1_000_000_000n), end_time: nanosToRfc3339(BigInt(T0 + 60) * 1_000_000_000n) };
const RESOURCE = { 'service.name': 'checkout' };
const SCOPE = { name: 'checkout-instrumentation', version: '2.3.4' };
// Small limits, so that the dropped counters are not all zero.
const LIMITS = { attributeCountLimit: 3, eventCountLimit: 3, linkCountLimit: 1 };
const LINKED = { traceId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', spanId: '0102030405060708', traceFlags: 1 };

/** A checkout that fails: the payment call errors with a recorded exception; the cart call is OK. */
function failingCheckout(tracer: Tracer): void {
  const root = tracer.startSpan('POST /checkout', { kind: SpanKind.SERVER, startTime: [T0, 100000001] });
  root.addEvent('cart.loaded', { 'cart.items': 3 }, [T0, 150000003]);
  const parent = trace.setSpan(context.active(), root);
  const cart = tracer.startSpan('GET cart', { kind: SpanKind.CLIENT, startTime: [T0, 110000000] }, parent);
  cart.setStatus({ code: SpanStatusCode.OK });
  cart.end([T0, 140000000]);
  const links: Link[] = [
    { context: { ...LINKED, spanId: '0102030405060709' } }, // over the link limit: the SDK drops the oldest
    { context: LINKED, attributes: { 'link.reason': 'retry-of', attempt: 2 } },
  ];
  const payment = tracer.startSpan(
    'POST /payments',
    { kind: SpanKind.CLIENT, startTime: [T0, 200000000], links, attributes: { a: 1, b: 2, c: 3, d: 4 } },
    parent,
  );
  const failure = new Error('card declined');
  failure.name = 'PaymentError';
  // Four events over a limit of three: the SDK drops the oldest retry.
  for (let retry = 0; retry < 3; retry += 1) payment.addEvent('retry', { attempt: retry }, [T0, 250000000 + retry]);
  payment.recordException(failure, [T0, 299999999]);
  payment.setStatus({ code: SpanStatusCode.ERROR, message: 'card declined' });
  payment.end([T0, 300000000]);
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'checkout failed' });
  root.end([T0, 400000000]);
}

const STATUS_NAMES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];

/** What the span record must hold for an SDK span, built from the SDK's own view of it. */
function expectedFields(span: ReadableSpan) {
  const attributesOrNull = (attributes: object | undefined) => (attributes && Object.keys(attributes).length > 0 ? attributes : null);
  return {
    span_id: span.spanContext().spanId,
    status_code: STATUS_NAMES[span.status.code],
    status_message: span.status.message || null,
    scope_name: SCOPE.name,
    scope_version: SCOPE.version,
    events:
      span.events.length === 0
        ? null
        : span.events.map((event) => ({
            name: event.name,
            time_unix_nano: nanos(event.time),
            attributes: attributesOrNull(event.attributes),
            dropped_attributes_count: event.droppedAttributesCount ?? 0,
          })),
    links:
      span.links.length === 0
        ? null
        : span.links.map((link) => ({
            trace_id: link.context.traceId,
            span_id: link.context.spanId,
            trace_state: null,
            attributes: attributesOrNull(link.attributes),
            dropped_attributes_count: link.droppedAttributesCount ?? 0,
          })),
    dropped_attributes_count: span.droppedAttributesCount,
    dropped_events_count: span.droppedEventsCount,
    dropped_links_count: span.droppedLinksCount,
  };
}

onEachDatabase(
  'span status, events, links and scope',
  (app) => {
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

    const exporters = {
      protobuf: (caller: EngineCaller) =>
        new ProtoTraceExporter({ url: `${proxy.url}/v1/traces`, headers: caller.headers, compression: CompressionAlgorithm.NONE }),
      json: (caller: EngineCaller) => new JsonTraceExporter({ url: `${proxy.url}/v1/traces`, headers: caller.headers }),
      grpc: (caller: EngineCaller) => new GrpcTraceExporter({ url: `http://${app().grpcAddress}`, metadata: metadataOf(caller.headers) }),
    };

    async function send(caller: EngineCaller, encoding: keyof typeof exporters, spans: ReadableSpan[]): Promise<void> {
      const exporter = exporters[encoding](caller);
      try {
        expectExported(await exportSpans(exporter, spans));
      } finally {
        await exporter.shutdown();
      }
    }

    async function post<P extends EngineReadPath>(
      caller: EngineCaller,
      path: P,
      filter: unknown,
      query: Record<string, string | boolean> = {},
    ) {
      const response = await call(app().url, 'POST', path, { query: { ...WINDOW, ...query }, headers: caller.headers, json: { filter } });
      expect(response.status, response.text).to.equal(200);
      return parseEngineRead(path, response.text);
    }

    async function spanIds(caller: EngineCaller, filter: unknown): Promise<string[]> {
      const page = await post(caller, '/engine/query', filter);
      return (page.data as Array<{ span_id: string }>).map((span) => span.span_id).sort();
    }

    for (const encoding of ['protobuf', 'json', 'grpc'] as const) {
      it(`reads back status, events, links, scope and dropped counts exactly (${encoding} exporter)`, async () => {
        const caller = await engineCaller(app());
        const spans = await recordSpans(RESOURCE, failingCheckout, { scope: SCOPE, spanLimits: LIMITS });
        await send(caller, encoding, spans);

        const page = await post(caller, '/engine/query', null);
        expect(page.total).to.equal(3);
        const byId = new Map((page.data as Array<Record<string, unknown>>).map((record) => [record.span_id, record]));
        for (const span of spans) expect(byId.get(span.spanContext().spanId), span.name).to.deep.include(expectedFields(span));

        // The SDK's own view agrees with what this test means to check.
        const payment = spans.find((span) => span.name === 'POST /payments') as ReadableSpan;
        const stored = byId.get(payment.spanContext().spanId) as Record<string, any>;
        expect(stored.status_code).to.equal('STATUS_CODE_ERROR');
        expect(stored.events.map((event: { time_unix_nano: string }) => event.time_unix_nano)).to.deep.equal([
          '1795355100250000001',
          '1795355100250000002',
          '1795355100299999999',
        ]);
        const exception = stored.events[2];
        expect(exception.name).to.equal('exception');
        expect(exception.attributes).to.include({ 'exception.type': 'PaymentError', 'exception.message': 'card declined' });
        expect(exception.attributes['exception.stacktrace']).to.be.a('string').and.to.include('card declined');
        expect(stored.links).to.deep.equal([
          {
            trace_id: LINKED.traceId,
            span_id: LINKED.spanId,
            trace_state: null,
            attributes: { 'link.reason': 'retry-of', attempt: 2 },
            dropped_attributes_count: 0,
          },
        ]);
        expect(stored).to.include({ dropped_attributes_count: 1, dropped_events_count: 1, dropped_links_count: 1 });

        // Live spans carry the status too.
        const live = await call(app().url, 'GET', '/traces/live', { headers: caller.headers });
        expect(live.status, live.text).to.equal(200);
        const liveStatus = Object.fromEntries(
          (live.body.data as Array<Record<string, unknown>>).map((span) => [span.span_id, [span.status_code, span.status_message]]),
        );
        expect(liveStatus[payment.spanContext().spanId]).to.deep.equal(['STATUS_CODE_ERROR', 'card declined']);
      });
    }

    it('filters on status_code (short and full names), status_message and scope_name', async () => {
      const caller = await engineCaller(app());
      const spans = await recordSpans(RESOURCE, failingCheckout, { scope: SCOPE });
      await send(caller, 'protobuf', spans);
      const id = (name: string) => (spans.find((span) => span.name === name) as ReadableSpan).spanContext().spanId;
      const failed = [id('POST /checkout'), id('POST /payments')].sort();

      expect(await spanIds(caller, { field: 'status_code', op: 'eq', value: 'STATUS_CODE_ERROR' })).to.deep.equal(failed);
      expect(await spanIds(caller, { field: 'status_code', op: 'eq', value: 'ERROR' })).to.deep.equal(failed);
      expect(await spanIds(caller, { field: 'status_code', op: 'neq', value: 'ERROR' })).to.deep.equal([id('GET cart')]);
      expect(await spanIds(caller, { field: 'status_code', op: 'eq', value: 'OK' })).to.deep.equal([id('GET cart')]);
      expect(await spanIds(caller, { field: 'status_code', op: 'ends_with', value: 'ERROR' })).to.deep.equal(failed);
      // Short names are spelled out for eq/neq only; the other operators compare the stored name.
      expect(await spanIds(caller, { field: 'status_code', op: 'starts_with', value: 'ERROR' })).to.deep.equal([]);
      expect(await spanIds(caller, { field: 'status_message', op: 'contains', value: 'declined' })).to.deep.equal([id('POST /payments')]);
      expect(await spanIds(caller, { field: 'status_message', op: 'neq', value: 'card declined' })).to.deep.equal([id('POST /checkout')]);
      expect(await spanIds(caller, { field: 'scope_name', op: 'eq', value: SCOPE.name })).to.have.length(3);
      expect(await spanIds(caller, { field: 'scope_name', op: 'starts_with', value: 'other' })).to.deep.equal([]);

      // On /traces: the root's status (search_child_spans=false) or any span's (true).
      const traces = async (filter: unknown, searchChildSpans: boolean) =>
        (await post(caller, '/traces', filter, { search_child_spans: searchChildSpans })).data.map(
          (row: { trace_id: string }) => row.trace_id,
        );
      const traceId = spans[0]?.spanContext().traceId;
      expect(await traces({ field: 'status_code', op: 'eq', value: 'ERROR' }, false)).to.deep.equal([traceId]);
      expect(await traces({ field: 'status_code', op: 'eq', value: 'OK' }, false)).to.deep.equal([]);
      expect(await traces({ field: 'status_code', op: 'eq', value: 'OK' }, true)).to.deep.equal([traceId]);
      expect(await traces({ field: 'scope_name', op: 'eq', value: SCOPE.name }, false)).to.deep.equal([traceId]);
    });

    it('counts ERROR spans in the trace summaries, when merged and when recomputed after a retry', async () => {
      const caller = await engineCaller(app());
      const spans = await recordSpans(RESOURCE, failingCheckout, { scope: SCOPE });
      const root = spans.find((span) => span.name === 'POST /checkout') as ReadableSpan;
      const errorCount = async () => {
        const list = await post(caller, '/traces', null);
        expect(list.data).to.have.length(1);
        return list.data[0].error_count as number;
      };
      // The root alone, then the rest: two merges.
      await send(caller, 'json', [root]);
      expect(await errorCount()).to.equal(1);
      const others = spans.filter((span) => span !== root);
      await send(caller, 'protobuf', [others[0] as ReadableSpan]);
      // A retry that holds a stored span and a new one: the summary is recomputed from the spans.
      await send(caller, 'protobuf', others);
      expect(await errorCount()).to.equal(2);
      const list = await post(caller, '/traces', null);
      expect(list.data[0]).to.include({ spans_count: 3, error_count: 2 });
    });
  },
  // The gRPC exporter sends the same spans over OTLP/gRPC.
  { GRPC_PORT: '0' },
);
