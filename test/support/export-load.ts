// A bounded export load for failure tests: a few workers, each a real OTLP/HTTP exporter (its
// own keep-alive connection), send small traces recorded by the real SDK one batch after another
// until stopped. It keeps which spans were acknowledged (the exporter reported success, its own
// retries included) and which were sent in batches that failed, so a test can check afterwards
// that storage holds every acknowledged span exactly once and nothing that was never sent.
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { exportSpans, recordTrace } from './otel.js';

export interface ExportLoadOptions {
  /** Where the exporters send (`<url>/v1/traces`). */
  url: string;
  headers: Record<string, string>;
  workers?: number;
  /** Most batches each worker sends, so that the load ends even if stop() is never called. */
  maxBatchesPerWorker?: number;
  pauseMs?: number;
}

export const spanKey = (span: ReadableSpan) => `${span.spanContext().traceId}/${span.spanContext().spanId}`;

/** Two traces of three spans each, every span with a cost (a multiple of 1/4, exact in binary). */
async function batchOfTraces(worker: number, sequence: number): Promise<ReadableSpan[]> {
  const spans: ReadableSpan[] = [];
  for (let index = 0; index < 2; index += 1) {
    const step = { service: `load-${worker}-step`, name: 'step', attributes: { 'vendor.cost': 0.5 } };
    const { spans: traceSpans } = await recordTrace(
      Date.now() - 1000,
      { service: `load-${worker}`, name: `batch ${sequence}`, attributes: { 'vendor.cost': 0.25 * (1 + (sequence % 4)) } },
      [step, step],
    );
    spans.push(...traceSpans);
  }
  return spans;
}

export class ExportLoad {
  /** Spans of batches the exporter reported exported. */
  readonly acknowledged = new Set<string>();
  /** Spans of batches the exporter gave up on (they may or may not be stored). */
  readonly failed = new Set<string>();
  readonly failures: string[] = [];
  private stopping = false;
  private readonly running: Promise<void>;

  constructor(private readonly options: ExportLoadOptions) {
    const workers = options.workers ?? 3;
    this.running = Promise.all(Array.from({ length: workers }, (_, worker) => this.work(worker))).then(() => undefined);
  }

  get sent(): number {
    return this.acknowledged.size + this.failed.size;
  }

  /** Resolves once at least `spans` spans were acknowledged (or the workers ended). */
  async untilAcknowledged(spans: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.acknowledged.size < spans && !this.stopping && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    if (this.acknowledged.size < spans)
      throw new Error(`only ${this.acknowledged.size} of ${spans} spans acknowledged (failures: ${this.failures.slice(0, 3).join('; ')})`);
  }

  /** Lets each worker finish its batch in flight, then resolves. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  private async work(worker: number): Promise<void> {
    const { url, headers, maxBatchesPerWorker = 2000, pauseMs = 10 } = this.options;
    const exporter = new OTLPTraceExporter({ url: `${url}/v1/traces`, headers, timeoutMillis: 30_000 });
    try {
      for (let sequence = 0; sequence < maxBatchesPerWorker && !this.stopping; sequence += 1) {
        const spans = await batchOfTraces(worker, sequence);
        const result = await exportSpans(exporter, spans);
        const into = result.code === ExportResultCode.SUCCESS ? this.acknowledged : this.failed;
        for (const span of spans) into.add(spanKey(span));
        if (result.code !== ExportResultCode.SUCCESS) this.failures.push(result.error?.message ?? 'unknown');
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    } finally {
      await exporter.shutdown();
    }
  }
}
