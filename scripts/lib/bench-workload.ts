// The ingest benchmark's workload: protobuf ExportTraceServiceRequests as the OpenTelemetry SDK
// encodes them, traces of 8 spans (an API request, two LLM calls, database queries, an outbound
// API call, a cache lookup) from four services, every billable span with the vendor attributes.
// As real instrumentation sends them: a scope per service (its tracer), an event on each LLM
// call, status OK on the calls that succeed, and on failing requests (1 in 53) status ERROR with a
// recorded exception; every 10th request links to the one before it. In the GenAI workloads the two
// LLM calls carry their model, provider and token usage as GenAI or OpenInference instrumentations
// send them, with `vendor.cost` (reported: the price book is never asked) or without (priced).
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Link, type SpanContext, type Tracer } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export const SPANS_PER_TRACE = 8;
const SERVICES = ['gateway', 'summarizer', 'search', 'billing-worker'];

const FAILURE = Object.assign(new Error('upstream model quota exceeded'), {
  name: 'UpstreamError',
  stack:
    'UpstreamError: upstream model quota exceeded\n    at generate (/srv/app/dist/llm.js:88:11)\n    at handle (/srv/app/dist/handlers.js:214:17)',
});

/**
 * What the LLM calls carry: `vendor`, the vendor attributes and the requested model only; the
 * GenAI workloads, the same spans with their model, provider and token usage, `genai-reported`
 * keeping `vendor.cost` and `genai-priced` without it.
 */
export const WORKLOADS = ['vendor', 'genai-reported', 'genai-priced'] as const;
export type Workload = (typeof WORKLOADS)[number];

// Models the default price book knows, named by the provider texts each convention sends (GenAI,
// OpenInference); calls vary by trace, each model in both conventions by turns. Span names and the
// vendor attributes stay those of the vendor workload, so that only these attributes differ.
const GENAI_CALLS: Array<{ model: string; genAi: string; openInference: string }> = [
  { model: 'gpt-4o-mini-2024-07-18', genAi: 'openai', openInference: 'openai' },
  { model: 'claude-sonnet-4-20250514', genAi: 'anthropic', openInference: 'anthropic' },
  { model: 'gemini-2.5-flash', genAi: 'gcp.vertex_ai', openInference: 'google' },
  { model: 'gpt-4.1', genAi: 'openai', openInference: 'openai' },
  { model: 'claude-3-5-haiku-20241022', genAi: 'anthropic', openInference: 'anthropic' },
  { model: 'gemini-2.5-pro', genAi: 'gcp.vertex_ai', openInference: 'google' },
  { model: 'gpt-4o', genAi: 'azure.ai.openai', openInference: 'azure' },
  { model: 'anthropic.claude-3-5-sonnet-20241022-v2:0', genAi: 'aws.bedrock', openInference: 'aws' },
  { model: 'mistral-large-latest', genAi: 'mistral_ai', openInference: 'mistralai' },
  { model: 'o4-mini', genAi: 'openai', openInference: 'openai' },
];

/** The model and token usage of the `call`-th LLM call, in the GenAI conventions or OpenInference's. */
function genAiAttributes(call: number, outputTokens: number): Attributes {
  const { model, genAi, openInference } = GENAI_CALLS[call % GENAI_CALLS.length];
  const input = 4 * outputTokens + (call % 7) * 250;
  // A third of the calls read half their input from the cache; one in five writes some to it.
  const cacheRead = call % 3 === 0 ? Math.floor(input / 2) : 0;
  const cacheWrite = call % 5 === 0 ? 256 : 0;
  if (Math.floor(call / GENAI_CALLS.length) % 2 === 0)
    return {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': genAi,
      'gen_ai.request.model': model,
      'gen_ai.response.model': model,
      'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': outputTokens,
      ...(cacheRead > 0 ? { 'gen_ai.usage.cache_read.input_tokens': cacheRead } : {}),
      ...(cacheWrite > 0 ? { 'gen_ai.usage.cache_creation.input_tokens': cacheWrite } : {}),
    };
  return {
    'openinference.span.kind': 'LLM',
    'llm.provider': openInference,
    'llm.model_name': model,
    'llm.token_count.prompt': input,
    'llm.token_count.completion': outputTokens,
    'llm.token_count.total': input + outputTokens,
    ...(cacheRead > 0 ? { 'llm.token_count.prompt_details.cache_read': cacheRead } : {}),
    ...(cacheWrite > 0 ? { 'llm.token_count.prompt_details.cache_write': cacheWrite } : {}),
  };
}

let previousRoot: SpanContext | undefined;

function addTrace(tracer: Tracer, service: string, startNs: bigint, index: number, workload: Workload): void {
  const at = (offsetMs: number): [number, number] => {
    const ns = startNs + BigInt(Math.round(offsetMs * 1e6));
    return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
  };
  const outlier = index % 97 === 0 ? 20 : 1;
  const failed = index % 53 === 0;
  const links: Link[] | undefined =
    index % 10 === 0 && previousRoot ? [{ context: previousRoot, attributes: { 'link.kind': 'follows' } }] : undefined;
  const root = tracer.startSpan(`POST /api/${service}`, {
    kind: SpanKind.SERVER,
    startTime: at(0),
    links,
    attributes: {
      'vendor.unit': service,
      'http.request.method': 'POST',
      'http.route': `/api/${service}`,
      'http.response.status_code': failed ? 500 : 200,
    },
  });
  previousRoot = root.spanContext();
  const rootContext = trace.setSpan(context.active(), root);
  const llmCall = (offset: number, model: string, tokens: number, call: number) => {
    const span = tracer.startSpan(
      `${model}.generate_content`,
      {
        kind: SpanKind.CLIENT,
        startTime: at(offset),
        attributes: {
          'vendor.unit': 'llm',
          'vendor.parent_unit': service,
          ...(workload === 'genai-priced' ? {} : { 'vendor.cost': tokens * 0.0000025 }),
          'vendor.billing.resource_type': 'llm_generate_content',
          'vendor.billing.resource_name': model,
          'vendor.billing.service_id': 'svc-genai',
          'vendor.billing.service_name': 'Generative AI',
          'vendor.billing.sku_id': `sku-${model}-out`,
          'vendor.billing.sku_name': `${model} output tokens`,
          'vendor.billing.region': 'europe-west4',
          'vendor.usage.amount': tokens,
          'vendor.usage.unit': 'tokens',
          ...(workload === 'vendor' ? { 'gen_ai.request.model': model } : genAiAttributes(call, tokens)),
        },
      },
      rootContext,
    );
    span.addEvent('gen_ai.choice', { 'gen_ai.response.finish_reasons': ['stop'], index: 0 }, at(offset + 1));
    return span;
  };
  const first = llmCall(5, 'gemini-2.5-flash', 800 + (index % 900), 2 * index);
  const query = (offset: number, parent: ReturnType<typeof llmCall>, table: string) => {
    const span = tracer.startSpan(
      `SELECT ${table}`,
      {
        kind: SpanKind.CLIENT,
        startTime: at(offset),
        attributes: {
          'vendor.unit': 'db',
          'vendor.parent_unit': 'llm',
          'vendor.cost': 0.00002,
          'vendor.billing.resource_type': 'db_job',
          'vendor.billing.resource_name': table,
          'vendor.billing.region': 'europe-west4',
          'vendor.usage.amount': 1 + (index % 40),
          'vendor.usage.unit': 'rows',
          'db.system.name': 'postgresql',
        },
      },
      trace.setSpan(context.active(), parent),
    );
    span.end(at(offset + 3 * outlier));
  };
  query(8, first, 'documents');
  query(12, first, 'embeddings');
  first.setStatus({ code: SpanStatusCode.OK });
  first.end(at(400 * outlier));
  const second = llmCall(410 * outlier, 'gemini-2.5-pro', 300 + (index % 500), 2 * index + 1);
  query(415 * outlier, second, 'prompts');
  if (failed) {
    second.recordException(FAILURE, at(699 * outlier));
    second.setStatus({ code: SpanStatusCode.ERROR, message: FAILURE.message });
  } else {
    second.setStatus({ code: SpanStatusCode.OK });
  }
  second.end(at(700 * outlier));
  const api = tracer.startSpan(
    'POST https://api.payments.example/charge',
    {
      kind: SpanKind.CLIENT,
      startTime: at(705 * outlier),
      attributes: {
        'vendor.unit': 'api',
        'vendor.parent_unit': service,
        'vendor.cost': 0.001,
        'vendor.billing.resource_type': 'api_request',
        'vendor.usage.amount': 1,
        'vendor.usage.unit': 'requests',
      },
    },
    rootContext,
  );
  api.end(at(760 * outlier));
  const cache = tracer.startSpan(
    'cache.get',
    { kind: SpanKind.INTERNAL, startTime: at(1), attributes: { 'vendor.unit': 'cache', 'cache.hit': index % 3 === 0 } },
    rootContext,
  );
  cache.end(at(2));
  if (failed) {
    root.recordException(FAILURE, at(769 * outlier));
    root.setStatus({ code: SpanStatusCode.ERROR, message: 'HTTP 500' });
  }
  root.end(at(770 * outlier));
}

/** Protobuf request bodies of `batch` spans each, as the OpenTelemetry exporter encodes them. */
export function makeBatches(totalSpans: number, batch: number, workload: Workload = 'vendor'): Uint8Array[] {
  const tracesPerBatch = batch / SPANS_PER_TRACE;
  const batches: Uint8Array[] = [];
  const memory = new InMemorySpanExporter();
  const providers = SERVICES.map(
    (service) =>
      new BasicTracerProvider({
        resource: resourceFromAttributes({
          'service.name': service,
          'deployment.environment': 'production',
          'host.name': `${service}-7d9f`,
        }),
        spanProcessors: [new SimpleSpanProcessor(memory)],
      }),
  );
  const tracers = providers.map((provider, index) => provider.getTracer(`@acme/${SERVICES[index]}`, '2026.11.3'));
  const day = 1_795_305_600_000_000_000n; // 2026-11-22T00:00:00Z
  let traceIndex = 0;
  for (let spans = 0; spans < totalSpans; spans += batch) {
    for (let index = 0; index < tracesPerBatch; index += 1, traceIndex += 1) {
      const service = traceIndex % SERVICES.length;
      addTrace(tracers[service], SERVICES[service], day + BigInt(traceIndex) * 80_000_000n, traceIndex, workload);
    }
    batches.push(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans()) as Uint8Array);
    memory.reset();
  }
  return batches;
}
