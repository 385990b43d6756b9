// `npm run seed:demo`: sends a realistic day of traces to a running spanledger through
// POST /v1/traces, with the official OpenTelemetry protobuf exporter: several services calling
// each other, nested spans, LLM, database and API calls carrying cost, billing and usage
// attributes, failures (status ERROR with a recorded exception; the first trace always fails,
// so a status_code filter finds something at once), retries linked to the request they repeat,
// and latency and cost outliers, spread over the last 24 hours with a daily rhythm. Each service
// records through its own tracer, so every span carries an instrumentation scope.
//
//   npm run seed:demo        (creates a demo organization, application and key, and prints how to query)
//   npm run seed:demo -- --dry-run      (makes the day of traces and says how many spans it would send)
//   SPANLEDGER_URL=http://127.0.0.1:8080 SPANLEDGER_TOKEN=<bearer token> SPANLEDGER_APP_ID=<app id> npm run seed:demo
//   npm run seed:demo -- --url http://127.0.0.1:8080 --token <bearer token> --app-id <app id> [--traces 2000] [--seed 42]
//
// The token must carry write:traces for the application (an API key's token from
// POST /auth/token, or a dashboard user's token).
import { parseArgs } from 'node:util';
import { cliServiceUrl, ConfigError, loadConfig } from '../src/config.js';
import { createDemoAccount } from './lib/demo-account.js';
import { context, SpanKind, SpanStatusCode, trace, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

const USAGE = `usage: npm run seed:demo -- [--url <engine url>] [--token <bearer token>] [--app-id <application id>] [--traces <count>] [--seed <number>] [--dry-run]
  --url      the engine API base URL (default: $SPANLEDGER_URL, else from PORT and HOST when
             set, else where npm start last listened, as it wrote in the data folder
             (data/service-url), else http://127.0.0.1:8080)
  --token    a bearer token holding write:traces for the application (default: $SPANLEDGER_TOKEN)
  --app-id   the application to fill (default: $SPANLEDGER_APP_ID)
  --traces   how many traces to send over the last 24 hours (default 2000: about 13,000 spans)
  --seed     seed of the random generator, for the same day of data again (default 1)
  --dry-run  make the day of traces and print how many spans it holds, without sending them`;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    'app-id': { type: 'string' },
    traces: { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
    'dry-run': { type: 'boolean' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const traceCount = Number(values.traces);
if (!Number.isInteger(traceCount) || traceCount < 1 || traceCount > 1_000_000) fail('--traces must be a whole number from 1 to 1000000');

/** The running service's address: from PORT and HOST, or as `npm start` wrote it into the data folder. */
function serviceUrl(): string {
  try {
    return cliServiceUrl(loadConfig());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** One line instead of fetch's stack when nothing answers at the URL (the usual first mistake). */
async function assertReachable(url: string): Promise<void> {
  try {
    await fetch(`${url}/healthz`);
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    const why =
      code === 'ECONNREFUSED'
        ? 'connection refused'
        : typeof code === 'string'
          ? code
          : error instanceof Error
            ? error.message
            : String(error);
    console.error(`cannot reach spanledger at ${url} (${why}); start it with npm start, or give its URL with --url or SPANLEDGER_URL`);
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------
// A small seeded random generator, so that --seed reproduces the same day.
let state = Number(values.seed) >>> 0 || 1;
function random(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 4_294_967_296;
}
const between = (low: number, high: number) => low + random() * (high - low);
const chance = (probability: number) => random() < probability;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

// ---------------------------------------------------------------------------------------------
// Services: one tracer (and resource) each.

const SERVICES = ['gateway', 'summarizer', 'search', 'billing-worker', 'notifier'] as const;
type Service = (typeof SERVICES)[number];

const memory = new InMemorySpanExporter();
const tracers = Object.fromEntries(
  SERVICES.map((service) => {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({
        'service.name': service,
        'service.version': '2026.11.3',
        'deployment.environment': 'production',
        'cloud.region': 'europe-west4',
        'host.name': `${service}-${Math.floor(between(1000, 9999)).toString(16)}`,
      }),
      spanProcessors: [new SimpleSpanProcessor(memory)],
    });
    return [service, provider.getTracer(`@acme/${service}`, '2026.11.3')];
  }),
) as Record<Service, Tracer>;

/** Time as the SDK takes it, from epoch milliseconds with sub-millisecond precision. */
function hr(ms: number): [number, number] {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

interface Step {
  tracer: Tracer;
  parent?: Span;
  name: string;
  kind: SpanKind;
  start: number;
  unit: string;
  parentUnit?: string;
  attributes?: Record<string, string | number | boolean | string[]>;
  links?: Link[];
}

function begin({ tracer, parent, name, kind, start, unit, parentUnit, attributes, links }: Step): Span {
  const parentContext = parent ? trace.setSpan(context.active(), parent) : context.active();
  const options = {
    kind,
    startTime: hr(start),
    links,
    attributes: { 'vendor.unit': unit, ...(parentUnit ? { 'vendor.parent_unit': parentUnit } : {}), ...attributes },
  };
  return tracer.startSpan(name, options, parentContext);
}

// A failed request is retried by its client: the next request's root links to the failed root.
let failedRoot: SpanContext | undefined;

/** Links for the next request's root: to the request it retries, if the last one failed. */
function retryLinks(): Link[] | undefined {
  const retried = failedRoot;
  failedRoot = undefined;
  return retried ? [{ context: retried, attributes: { 'link.kind': 'retry_of' } }] : undefined;
}

/** The exception a failing span records: exception.type, exception.message and exception.stacktrace. */
function exceptionOf(type: string, message: string): Error {
  const exception = new Error(message);
  exception.name = type;
  exception.stack = `${type}: ${message}\n    at handle (/srv/app/dist/handlers.js:214:17)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;
  return exception;
}

function finish(span: Span, end: number, error?: { type: string; message: string; status?: number }): number {
  if (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    span.setAttribute('error.type', error.type);
    if (error.status) span.setAttribute('http.response.status_code', error.status);
    span.recordException(exceptionOf(error.type, error.message), hr(end - 0.2));
  }
  span.end(hr(end));
  return end;
}

// ---------------------------------------------------------------------------------------------
// Billable work: LLM calls, database queries, outbound API calls.

const MODELS = [
  {
    model: 'gemini-2.5-flash',
    sku: 'sku-gemini-25-flash-out',
    skuName: 'Gemini 2.5 Flash output tokens',
    perToken: 0.0000025,
    msPerToken: 0.35,
  },
  { model: 'gemini-2.5-pro', sku: 'sku-gemini-25-pro-out', skuName: 'Gemini 2.5 Pro output tokens', perToken: 0.00001, msPerToken: 0.9 },
] as const;

/** An LLM call; returns its end time. Outliers: now and then a huge generation. */
function llmCall(tracer: Tracer, parent: Span, parentUnit: string, start: number, slow: number, failed: boolean): number {
  const { model, sku, skuName, perToken, msPerToken } = pick(MODELS);
  const inputTokens = Math.round(between(300, 4000));
  const outputTokens = chance(0.01) ? Math.round(between(30_000, 120_000)) : Math.round(between(80, 1800));
  const span = begin({
    tracer,
    parent,
    name: `${model}.generate_content`,
    kind: SpanKind.CLIENT,
    start,
    unit: 'llm',
    parentUnit,
    attributes: {
      'gen_ai.system': 'gemini',
      'gen_ai.request.model': model,
      'gen_ai.usage.input_tokens': inputTokens,
      'gen_ai.usage.output_tokens': outputTokens,
      'vendor.cost': Number(((inputTokens / 4 + outputTokens) * perToken).toFixed(6)),
      'vendor.billing.resource_type': 'llm_generate_content',
      'vendor.billing.resource_name': model,
      'vendor.billing.service_id': 'svc-vertex-ai',
      'vendor.billing.service_name': 'Vertex AI',
      'vendor.billing.sku_id': sku,
      'vendor.billing.sku_name': skuName,
      'vendor.billing.region': 'europe-west4',
      'vendor.usage.amount': outputTokens,
      'vendor.usage.unit': 'tokens',
    },
  });
  const duration = (120 + outputTokens * msPerToken) * slow;
  return finish(
    span,
    start + duration,
    failed ? { type: 'ResourceExhausted', message: 'quota exceeded for model requests per minute', status: 429 } : undefined,
  );
}

function embedCall(tracer: Tracer, parent: Span, parentUnit: string, start: number): number {
  const tokens = Math.round(between(8, 120));
  const span = begin({
    tracer,
    parent,
    name: 'text-embedding-005.embed_content',
    kind: SpanKind.CLIENT,
    start,
    unit: 'llm',
    parentUnit,
    attributes: {
      'gen_ai.request.model': 'text-embedding-005',
      'vendor.cost': Number((tokens * 0.00000002).toFixed(8)),
      'vendor.billing.resource_type': 'llm_embed_content',
      'vendor.billing.resource_name': 'text-embedding-005',
      'vendor.billing.service_id': 'svc-vertex-ai',
      'vendor.billing.service_name': 'Vertex AI',
      'vendor.billing.sku_id': 'sku-embedding-005',
      'vendor.billing.sku_name': 'Text embedding input tokens',
      'vendor.billing.region': 'europe-west4',
      'vendor.usage.amount': tokens,
      'vendor.usage.unit': 'tokens',
    },
  });
  return finish(span, start + between(25, 70));
}

function dbQuery(tracer: Tracer, parent: Span, parentUnit: string, start: number, statement: string, table: string, slow = 1): number {
  const rows = Math.round(between(1, 400));
  const span = begin({
    tracer,
    parent,
    name: `${statement} ${table}`,
    kind: SpanKind.CLIENT,
    start,
    unit: 'db',
    parentUnit,
    attributes: {
      'db.system.name': 'postgresql',
      'db.collection.name': table,
      'db.operation.name': statement,
      'db.response.returned_rows': rows,
      'vendor.cost': Number((0.000002 + rows * 0.0000001).toFixed(8)),
      'vendor.billing.resource_type': 'db_job',
      'vendor.billing.resource_name': `cloudsql/acme-prod/${table}`,
      'vendor.billing.service_id': 'svc-cloud-sql',
      'vendor.billing.service_name': 'Cloud SQL',
      'vendor.billing.sku_id': 'sku-cloudsql-vcpu',
      'vendor.billing.sku_name': 'Cloud SQL vCPU time',
      'vendor.billing.region': 'europe-west4',
      'vendor.usage.amount': rows,
      'vendor.usage.unit': 'rows',
    },
  });
  return finish(span, start + between(1.5, 18) * slow);
}

function apiCall(
  tracer: Tracer,
  parent: Span,
  parentUnit: string,
  start: number,
  method: string,
  url: string,
  service: string,
  price: number,
  failed = false,
): number {
  const span = begin({
    tracer,
    parent,
    name: `${method} ${new URL(url).host}`,
    kind: SpanKind.CLIENT,
    start,
    unit: 'api',
    parentUnit,
    attributes: {
      'http.request.method': method,
      'url.full': url,
      'server.address': new URL(url).host,
      'http.response.status_code': failed ? 502 : 200,
      'vendor.cost': price,
      'vendor.billing.resource_type': 'api_request',
      'vendor.billing.resource_name': new URL(url).host,
      'vendor.billing.service_name': service,
      'vendor.usage.amount': 1,
      'vendor.usage.unit': 'requests',
    },
  });
  return finish(
    span,
    start + between(80, 450),
    failed ? { type: 'BadGateway', message: `${service} answered 502`, status: 502 } : undefined,
  );
}

function cacheGet(tracer: Tracer, parent: Span, parentUnit: string, start: number, key: string): { end: number; hit: boolean } {
  const hit = chance(0.35);
  const span = begin({
    tracer,
    parent,
    name: 'redis GET',
    kind: SpanKind.CLIENT,
    start,
    unit: 'cache',
    parentUnit,
    attributes: { 'db.system.name': 'redis', 'cache.key': key, 'cache.hit': hit },
  });
  return { end: finish(span, start + between(0.3, 2.5)), hit };
}

/** A request crossing from one service to another: the caller's CLIENT span and the callee's SERVER span. */
function hop(
  from: Service,
  to: Service,
  parent: Span,
  start: number,
  method: string,
  route: string,
): { client: Span; server: Span; serverStart: number } {
  const client = begin({
    tracer: tracers[from],
    parent,
    name: `${method} ${to}${route}`,
    kind: SpanKind.CLIENT,
    start,
    unit: from,
    parentUnit: from,
    attributes: { 'http.request.method': method, 'server.address': to },
  });
  const serverStart = start + between(0.4, 2);
  const server = begin({
    tracer: tracers[to],
    parent: client,
    name: `${method} ${route}`,
    kind: SpanKind.SERVER,
    start: serverStart,
    unit: to,
    parentUnit: from,
    attributes: { 'http.request.method': method, 'http.route': route },
  });
  return { client, server, serverStart };
}

// ---------------------------------------------------------------------------------------------
// Trace shapes.

function summarize(start: number, slow: number, failed: boolean): void {
  const root = begin({
    tracer: tracers.gateway,
    name: 'POST /api/summarize',
    kind: SpanKind.SERVER,
    start,
    unit: 'gateway',
    links: retryLinks(),
    attributes: { 'http.request.method': 'POST', 'http.route': '/api/summarize', 'user_agent.original': 'acme-web/5.2' },
  });
  const { client, server, serverStart } = hop('gateway', 'summarizer', root, start + between(1, 4), 'POST', '/summarize');
  const cached = cacheGet(tracers.summarizer, server, 'summarizer', serverStart + 0.5, 'summary:doc');
  let at = cached.end;
  if (!cached.hit) {
    at = dbQuery(tracers.summarizer, server, 'summarizer', at + 0.3, 'SELECT', 'documents', slow);
    const chunks = chance(0.3) ? 2 : 1;
    for (let chunk = 0; chunk < chunks; chunk += 1)
      at = llmCall(tracers.summarizer, server, 'summarizer', at + 1, slow, failed && chunk === chunks - 1);
    if (!failed) at = dbQuery(tracers.summarizer, server, 'summarizer', at + 0.5, 'INSERT', 'summaries');
  }
  const error = failed ? { type: 'UpstreamError', message: 'summarization failed: model quota exceeded', status: 503 } : undefined;
  at = finish(server, at + between(0.5, 3), error);
  at = finish(client, at + between(0.3, 1.5), error);
  root.setAttribute('http.response.status_code', failed ? 503 : 200);
  finish(root, at + between(0.5, 2), failed ? { type: 'UpstreamError', message: 'summarizer answered 503', status: 503 } : undefined);
  if (failed) failedRoot = root.spanContext();
}

function search(start: number, slow: number, failed: boolean): void {
  const root = begin({
    tracer: tracers.gateway,
    name: 'GET /api/search',
    kind: SpanKind.SERVER,
    start,
    unit: 'gateway',
    links: retryLinks(),
    attributes: { 'http.request.method': 'GET', 'http.route': '/api/search' },
  });
  const { client, server, serverStart } = hop('gateway', 'search', root, start + between(1, 3), 'GET', '/search');
  let at = embedCall(tracers.search, server, 'search', serverStart + 1);
  at = dbQuery(tracers.search, server, 'search', at + 0.5, 'SELECT', 'document_vectors', slow * 3);
  if (chance(0.4)) at = llmCall(tracers.search, server, 'search', at + 1, slow, failed);
  const error = failed ? { type: 'UpstreamError', message: 'reranking failed', status: 500 } : undefined;
  at = finish(server, at + between(0.5, 2), error);
  at = finish(client, at + between(0.3, 1), error);
  root.setAttribute('http.response.status_code', failed ? 500 : 200);
  finish(root, at + between(0.5, 2), error);
  if (failed) failedRoot = root.spanContext();
}

function checkout(start: number, slow: number, failed: boolean): void {
  const root = begin({
    tracer: tracers.gateway,
    name: 'POST /api/checkout',
    kind: SpanKind.SERVER,
    start,
    unit: 'gateway',
    links: retryLinks(),
    attributes: { 'http.request.method': 'POST', 'http.route': '/api/checkout' },
  });
  const { client, server, serverStart } = hop('gateway', 'billing-worker', root, start + between(1, 3), 'POST', '/charges');
  let at = dbQuery(tracers['billing-worker'], server, 'billing-worker', serverStart + 0.5, 'SELECT', 'customers');
  at = apiCall(
    tracers['billing-worker'],
    server,
    'billing-worker',
    at + 1,
    'POST',
    'https://api.payments.example/v1/charges',
    'Payments provider',
    0.003,
    failed,
  );
  if (!failed) {
    at = dbQuery(tracers['billing-worker'], server, 'billing-worker', at + 0.5, 'INSERT', 'invoices', slow);
    const mail = hop('billing-worker', 'notifier', server, at + 0.5, 'POST', '/emails');
    const sent = apiCall(
      tracers.notifier,
      mail.server,
      'notifier',
      mail.serverStart + 1,
      'POST',
      'https://api.mail.example/v3/send',
      'Mail provider',
      0.0008,
    );
    at = finish(mail.client, finish(mail.server, sent + 1) + 0.5);
  }
  const error = failed ? { type: 'PaymentError', message: 'payment provider unavailable', status: 502 } : undefined;
  at = finish(server, at + between(0.5, 2), error);
  at = finish(client, at + between(0.3, 1), error);
  root.setAttribute('http.response.status_code', failed ? 502 : 201);
  finish(root, at + between(0.5, 2), error);
  if (failed) failedRoot = root.spanContext();
}

function invoiceRun(start: number): void {
  const root = begin({
    tracer: tracers['billing-worker'],
    name: 'job invoice-run',
    kind: SpanKind.INTERNAL,
    start,
    unit: 'billing-worker',
    attributes: { 'job.name': 'invoice-run' },
  });
  let at = start + 2;
  const customers = Math.round(between(20, 60));
  for (let index = 0; index < customers; index += 1)
    at = dbQuery(
      tracers['billing-worker'],
      root,
      'billing-worker',
      at + 0.2,
      index % 2 ? 'UPDATE' : 'SELECT',
      index % 2 ? 'invoices' : 'usage_records',
    );
  finish(root, at + 5);
}

/** Requests per hour of the day (UTC): quiet nights, busy office hours. */
function hourWeight(hour: number): number {
  return 0.15 + Math.exp(-((hour - 14) ** 2) / 18);
}

function makeDay(): void {
  const end = Date.now() - 60_000;
  const startOfWindow = end - 24 * 3_600_000;
  const weights = Array.from({ length: 24 }, (_, index) => hourWeight(new Date(startOfWindow + index * 3_600_000).getUTCHours()));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  for (let index = 0; index < traceCount; index += 1) {
    // Pick an hour by weight, then a moment within it.
    let target = random() * total;
    let hour = 0;
    while (target > weights[hour] && hour < 23) target -= weights[hour++];
    const start = startOfWindow + (hour + random()) * 3_600_000;
    const slow = chance(0.015) ? between(8, 30) : between(0.7, 1.4);
    // The first trace fails, so that a new user's status_code filter finds something at once.
    const failed = chance(0.04) || index === 0;
    const shape = random();
    if (shape < 0.45) summarize(start, slow, failed);
    else if (shape < 0.8) search(start, slow, failed);
    else if (shape < 0.995) checkout(start, slow, failed);
    else invoiceRun(start);
  }
}

// ---------------------------------------------------------------------------------------------

async function send(spans: ReadableSpan[]): Promise<void> {
  const exporter = new OTLPTraceExporter({
    url: `${baseUrl}/v1/traces`,
    headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId as string },
    timeoutMillis: 30_000,
  });
  try {
    for (let offset = 0; offset < spans.length; offset += 512) {
      const batch = spans.slice(offset, offset + 512);
      const result = await new Promise<ExportResult>((resolve) => exporter.export(batch, resolve));
      if (result.code !== ExportResultCode.SUCCESS) {
        throw new Error(`export to ${baseUrl}/v1/traces failed after ${offset} spans: ${result.error?.message ?? 'unknown error'}`);
      }
      const sent = Math.min(offset + 512, spans.length);
      // A terminal gets one line redrawn; a log or pipe whole lines, about every 5,000 spans.
      if (process.stderr.isTTY) process.stderr.write(`\rsent ${sent} / ${spans.length} spans`);
      else if (sent === spans.length || Math.floor(sent / 5120) > Math.floor(offset / 5120))
        process.stderr.write(`sent ${sent} / ${spans.length} spans\n`);
    }
    if (process.stderr.isTTY) process.stderr.write('\n');
  } finally {
    await exporter.shutdown();
  }
}

if (values['dry-run']) {
  makeDay();
  const spans = memory.getFinishedSpans();
  const traces = new Set(spans.map((span) => span.spanContext().traceId)).size;
  console.log(`would send ${spans.length} spans in ${traces} traces (seed ${values.seed})`);
  process.exit(0);
}

const baseUrl = (values.url ?? process.env.SPANLEDGER_URL ?? serviceUrl()).replace(/\/+$/, '');
let token = values.token ?? process.env.SPANLEDGER_TOKEN;
let appId = values['app-id'] ?? process.env.SPANLEDGER_APP_ID;
if (Boolean(token) !== Boolean(appId))
  fail(
    'Give both the token and the application (--token/SPANLEDGER_TOKEN and --app-id/SPANLEDGER_APP_ID), or neither to create a demo account.',
  );
await assertReachable(baseUrl);

let demoUserToken: string | undefined;
let demoSignInLink: string | undefined;
let exporterHeaders: string | undefined;
if (!token || !appId) {
  const account = await createDemoAccount(baseUrl);
  ({ appId, keyToken: token, userToken: demoUserToken, signInLink: demoSignInLink } = account);
  // OTEL_EXPORTER_OTLP_HEADERS values are URL-decoded by the SDKs: the space and base64's + / = are encoded.
  const basic = Buffer.from(`${account.apiKey}:${account.apiSecret}`, 'utf8').toString('base64');
  exporterHeaders = `Authorization=${encodeURIComponent(`Basic ${basic}`)}`;
}

makeDay();
const spans = memory.getFinishedSpans();
const traces = new Set(spans.map((span) => span.spanContext().traceId)).size;
await send(spans);
console.log(`seeded ${spans.length} spans in ${traces} traces over the last 24 hours into application ${appId} at ${baseUrl}`);
if (demoSignInLink) {
  console.log(`
See them in the dashboard as the demo user, the demo organization's owner: this one-time sign-in
link (it works once, for an hour) opens the trace list of "Demo shop":
  ${demoSignInLink}
The traces, once signed in: ${new URL(baseUrl).origin}/ui/traces?app=${appId}`);
}
if (demoUserToken) {
  const now = new Date();
  const dayAgo = new Date(now.getTime() - 86_400_000);
  console.log(`
Query it as the demo user (a member of the demo organization):
  export TOKEN=${demoUserToken}
  export APP=${appId}
  curl -s -X POST '${baseUrl}/traces?start_time=${dayAgo.toISOString()}&end_time=${now.toISOString()}&limit=5' \\
    -H "Authorization: Bearer $TOKEN" -H "X-Vendor-App-Id: $APP" -H 'Content-Type: application/json' -d '{}'`);
}
if (exporterHeaders) {
  console.log(`
Export more spans with the demo key from any OpenTelemetry SDK, configured by environment alone
(these credentials do not expire; rotating the key's secret or deleting the key stops them):
  export OTEL_EXPORTER_OTLP_ENDPOINT=${baseUrl}
  export OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf
  export OTEL_EXPORTER_OTLP_HEADERS='${exporterHeaders}'`);
}
