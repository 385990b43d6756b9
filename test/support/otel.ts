// Real OpenTelemetry SDK pieces for ingestion tests: spans recorded by a tracer, exported by the
// official OTLP exporters, and a proxy that checks every answer the exporters get against the
// documents (they do their own HTTP, so call() cannot check them).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type SpanContext, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanLimits,
} from '@opentelemetry/sdk-trace-base';
import { assertMatchesContract } from './contract.js';

export interface RecordOptions {
  /** The instrumentation scope: the tracer's name and version. */
  scope?: { name: string; version: string };
  spanLimits?: SpanLimits;
}

/** The spans a tracer records while `build` runs, as the SDK hands them to exporters. */
export async function recordSpans(
  resourceAttributes: Record<string, string>,
  build: (tracer: Tracer) => void,
  options: RecordOptions = {},
): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resourceAttributes),
    spanProcessors: [new SimpleSpanProcessor(memory)],
    spanLimits: options.spanLimits,
  });
  const scope = options.scope ?? { name: 'spanledger-tests', version: '1.0.0' };
  build(provider.getTracer(scope.name, scope.version));
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

/** Exports spans with a real exporter; resolves with the exporter's verdict. */
export function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

export function expectExported(result: ExportResult): void {
  if (result.code !== ExportResultCode.SUCCESS) throw new Error(`export failed: ${result.error?.message ?? 'unknown error'}`);
}

/** Nanoseconds of an SDK HrTime, exact. */
export function nanos([seconds, nanoseconds]: [number, number]): string {
  return (BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds)).toString();
}

export interface CheckingProxy {
  url: string;
  /** Status of every answer relayed, in order. */
  statuses: number[];
  /** Contract violations seen; a test ends by expecting none. */
  violations: string[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** An HTTP relay to the app that checks each answer against the documents before passing it on. */
export async function contractCheckingProxy(targetUrl: string): Promise<CheckingProxy> {
  const statuses: number[] = [];
  const violations: string[] = [];
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)) as Array<[string, string]>;
    const answer = await fetch(new URL(request.url ?? '/', targetUrl), {
      method: request.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
    const text = bytes.toString('utf8');
    const body = (answer.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
    statuses.push(answer.status);
    try {
      await assertMatchesContract(request.method ?? 'GET', new URL(request.url ?? '/', targetUrl).pathname, {
        status: answer.status,
        headers: answer.headers,
        body,
        text,
      });
    } catch (error) {
      violations.push((error as Error).message);
    }
    response.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !HOP_BY_HOP.has(name))));
    response.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    statuses,
    violations,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An SDK HrTime from epoch milliseconds. */
export function hrTime(ms: number): [number, number] {
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}

/** A root span of `service` and its children (each of its own service), as the SDK records them. */
export async function recordTrace(
  startMs: number,
  root: { service: string; name: string; attributes?: Record<string, string | number>; error?: boolean },
  children: Array<{ service: string; name: string; attributes?: Record<string, string | number> }> = [],
): Promise<{ spans: ReadableSpan[]; traceId: string }> {
  let parent: SpanContext | undefined;
  const spans = await recordSpans({ 'service.name': root.service }, (tracer) => {
    const span = tracer.startSpan(root.name, { kind: SpanKind.SERVER, startTime: hrTime(startMs), attributes: root.attributes });
    if (root.error) span.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream failed' });
    parent = span.spanContext();
    span.end(hrTime(startMs + 120));
  });
  for (const [index, child] of children.entries()) {
    spans.push(
      ...(await recordSpans({ 'service.name': child.service }, (tracer) => {
        const context = trace.setSpanContext(ROOT_CONTEXT, parent as SpanContext);
        tracer
          .startSpan(
            child.name,
            { kind: SpanKind.CLIENT, startTime: hrTime(startMs + 10 + index * 20), attributes: child.attributes },
            context,
          )
          .end(hrTime(startMs + 25 + index * 20));
      })),
    );
  }
  return { spans, traceId: (parent as SpanContext).traceId };
}

/** Builds a value while the OTEL_EXPORTER_OTLP_* environment is exactly `env`, then restores it. */
export function withOtlpEnvironment<T>(env: Record<string, string>, build: () => T): T {
  const saved = Object.entries(process.env).filter(([name]) => name.startsWith('OTEL_EXPORTER_OTLP_'));
  for (const [name] of saved) delete process.env[name];
  Object.assign(process.env, env);
  try {
    return build();
  } finally {
    for (const name of Object.keys(env)) delete process.env[name];
    for (const [name, value] of saved) process.env[name] = value;
  }
}
