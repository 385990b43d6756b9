// Computed cost end to end, on every database: the official OpenTelemetry protobuf exporter sends
// one trace of LLM calls without `vendor.cost` (known models of three providers, named by their
// GenAI and OpenInference provider texts), the same call with `vendor.cost`, an unknown model, a
// model without tokens, and a span that is no LLM call. The engine returns each span's cost and
// its provenance, the trace's `total_cost` and analytics sums include the computed costs, and the
// new fields filter and group. A second trace, an hour later, carries the costs instrumentations
// report themselves (`gen_ai.usage.cost`, `llm.cost.total`), valid or not. Every answer is
// checked against the engine document.
import { context, SpanKind, trace as traceApi, type Attributes, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect } from 'chai';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { type EngineSchemas, isClose, nanosToRfc3339, parseEngineRead, parseExact } from '../support/engine-helpers.js';
import { contractCheckingProxy, expectExported, exportSpans, recordSpans, type CheckingProxy } from '../support/otel.js';
import { onEachDatabase } from '../support/test-server.js';

const T0 = 1795355100; // seconds: 2026-11-22
const WINDOW = { start_time: nanosToRfc3339(BigInt(T0) * 1_000_000_000n), end_time: nanosToRfc3339(BigInt(T0 + 60) * 1_000_000_000n) };
const BOOK = 'genai-prices 0.1.8';

type Pricing = EngineSchemas['SpanPricing'];
const NO_PRICING: Pricing = { book: null, provider: null, model: null, unpriced_reason: null, entry_id: null, currency: null };
const GPT_4O_MINI = {
  'gen_ai.provider.name': 'openai',
  'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
  'gen_ai.usage.input_tokens': 5120,
  'gen_ai.usage.cache_read.input_tokens': 4096,
  'gen_ai.usage.output_tokens': 1680,
};

/** Each span by name: its attributes, and the cost and provenance wanted back. */
const SPANS: Array<{ name: string; attributes: Attributes; cost: number | null; cost_source: string | null; pricing: Pricing }> = [
  {
    // No LLM call: nothing priced, no reason.
    name: 'request',
    attributes: { 'http.route': '/api/answer' },
    cost: null,
    cost_source: null,
    pricing: NO_PRICING,
  },
  {
    // $0.15 per million input tokens, $0.075 cache reads, $0.60 output: 1024 × 0.15 + 4096 × 0.075 + 1680 × 0.6.
    name: 'gpt-computed',
    attributes: GPT_4O_MINI,
    cost: 0.0014688,
    cost_source: 'computed',
    pricing: { ...NO_PRICING, book: BOOK, provider: 'openai', model: 'gpt-4o-mini', currency: 'USD' },
  },
  {
    name: 'gpt-reported',
    attributes: { ...GPT_4O_MINI, 'vendor.cost': 0.01 },
    cost: 0.01,
    cost_source: 'reported',
    pricing: NO_PRICING,
  },
  {
    // OpenInference, the dated model name priced by the book's `-latest` entry: $0.80 input, $0.08
    // cache reads, $1 cache writes, $4 output: 800 × 0.8 + 1000 × 0.08 + 200 × 1 + 500 × 4.
    name: 'claude-computed',
    attributes: {
      'llm.provider': 'anthropic',
      'llm.model_name': 'claude-3-5-haiku-20241022',
      'llm.token_count.prompt': 2000,
      'llm.token_count.prompt_details.cache_read': 1000,
      'llm.token_count.prompt_details.cache_write': 200,
      'llm.token_count.completion': 500,
    },
    cost: 0.00292,
    cost_source: 'computed',
    pricing: { ...NO_PRICING, book: BOOK, provider: 'anthropic', model: 'claude-3-5-haiku-latest', currency: 'USD' },
  },
  {
    // gcp.vertex_ai is the book's google: $0.30 input, $0.03 cache reads, $2.50 output: 1000 × 0.3 + 1000 × 0.03 + 500 × 2.5.
    name: 'gemini-computed',
    attributes: {
      'gen_ai.provider.name': 'gcp.vertex_ai',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.usage.input_tokens': 2000,
      'gen_ai.usage.cache_read.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 500,
    },
    cost: 0.00158,
    cost_source: 'computed',
    pricing: { ...NO_PRICING, book: BOOK, provider: 'google', model: 'gemini-2.5-flash', currency: 'USD' },
  },
  {
    name: 'unknown-model',
    attributes: { 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'acme-unreleased-1', 'gen_ai.usage.input_tokens': 700 },
    cost: null,
    cost_source: null,
    pricing: { ...NO_PRICING, unpriced_reason: 'unknown_model' },
  },
  {
    name: 'no-usage',
    attributes: { 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini', 'llm.token_count.total': 90 },
    cost: null,
    cost_source: null,
    pricing: { ...NO_PRICING, unpriced_reason: 'no_usage' },
  },
];
const COMPUTED_TOTAL = 0.0014688 + 0.00292 + 0.00158;

// The instrumentation's own cost: reported, unless vendor.cost is there too; an invalid one is no
// cost, and the span is priced from its tokens as GPT_4O_MINI is above.
const T1 = T0 + 3600;
const HOUR_LATER = { start_time: nanosToRfc3339(BigInt(T1) * 1_000_000_000n), end_time: nanosToRfc3339(BigInt(T1 + 60) * 1_000_000_000n) };
const GPT_PRICED = {
  cost: 0.0014688,
  cost_source: 'computed',
  pricing: { ...NO_PRICING, book: BOOK, provider: 'openai', model: 'gpt-4o-mini', currency: 'USD' },
};
const REPORTED: typeof SPANS = [
  { name: 'request', attributes: { 'http.route': '/api/answer' }, cost: null, cost_source: null, pricing: NO_PRICING },
  {
    // As OpenLIT sends it: a double, in USD.
    name: 'openlit',
    attributes: { ...GPT_4O_MINI, 'gen_ai.usage.cost': 0.0021 },
    cost: 0.0021,
    cost_source: 'reported',
    pricing: NO_PRICING,
  },
  {
    name: 'openlit-and-vendor',
    attributes: { ...GPT_4O_MINI, 'gen_ai.usage.cost': 0.5, 'vendor.cost': 0.01 },
    cost: 0.01,
    cost_source: 'reported',
    pricing: NO_PRICING,
  },
  {
    name: 'openinference',
    attributes: { 'llm.model_name': 'claude-3-5-haiku-20241022', 'llm.token_count.prompt': 2000, 'llm.cost.total': 0.003 },
    cost: 0.003,
    cost_source: 'reported',
    pricing: NO_PRICING,
  },
  { name: 'negative', attributes: { ...GPT_4O_MINI, 'gen_ai.usage.cost': -0.5 }, ...GPT_PRICED },
  { name: 'not-finite', attributes: { ...GPT_4O_MINI, 'gen_ai.usage.cost': Number.POSITIVE_INFINITY }, ...GPT_PRICED },
  { name: 'not-a-number', attributes: { ...GPT_4O_MINI, 'gen_ai.usage.cost': 'free' }, ...GPT_PRICED },
  // OpenLIT's 0 for a model its price list lacks: an unknown cost, priced from the tokens.
  { name: 'zero', attributes: { ...GPT_4O_MINI, 'gen_ai.usage.cost': 0 }, ...GPT_PRICED },
];
const REPORTED_TOTAL = 0.0021 + 0.01 + 0.003 + 4 * 0.0014688;

/** A trace at `t0`: the first span the root, the others its children. */
function traceOf(spans: typeof SPANS, t0: number): (tracer: Tracer) => void {
  return (tracer) => {
    const root = tracer.startSpan(spans[0]?.name as string, {
      kind: SpanKind.SERVER,
      startTime: [t0, 0],
      attributes: spans[0]?.attributes,
    });
    spans.slice(1).forEach(({ name, attributes }, index) => {
      const span = tracer.startSpan(
        name,
        { kind: SpanKind.CLIENT, startTime: [t0, (index + 1) * 1_000_000], attributes },
        // Children of the root: one trace.
        traceApi.setSpan(context.active(), root),
      );
      span.end([t0 + 1, 0]);
    });
    root.end([t0 + 2, 0]);
  };
}

onEachDatabase('computed cost from the default price book', (app) => {
  let proxy: CheckingProxy;
  let caller: EngineCaller;
  const post = (path: string, json: unknown, query: Record<string, string | number | boolean> = {}) =>
    call(app().url, 'POST', path, { query: { ...WINDOW, ...query }, headers: caller.headers, json });

  async function spans(filter?: unknown, window = WINDOW) {
    const response = await post('/engine/query', filter === undefined ? {} : { filter }, window);
    expect(response.status, response.text).to.equal(200);
    return parseEngineRead('/engine/query', response.text).data;
  }
  const names = async (filter: unknown) => (await spans(filter)).map((span) => span.span_name).sort();

  before(async () => {
    proxy = await contractCheckingProxy(app().url);
    caller = await engineCaller(app());
    const exporter = new ProtoTraceExporter({ url: `${proxy.url}/v1/traces`, headers: caller.headers, timeoutMillis: 10_000 });
    try {
      for (const [spans, t0] of [
        [SPANS, T0],
        [REPORTED, T1],
      ] as const) {
        expectExported(await exportSpans(exporter, await recordSpans({ 'service.name': 'assistant' }, traceOf(spans, t0))));
      }
    } finally {
      await exporter.shutdown();
    }
  });
  after(async () => {
    expect(proxy.violations, 'answers outside the document').to.deep.equal([]);
    await proxy.close();
  });

  function expectPriced(
    got: Array<{ span_name: string; cost: number | null; cost_source: string | null; pricing: Pricing }>,
    want = SPANS,
  ) {
    const byName = new Map(got.map((span) => [span.span_name, span]));
    expect([...byName.keys()].sort()).to.deep.equal(want.map(({ name }) => name).sort());
    for (const { name, cost, cost_source, pricing } of want) {
      const span = byName.get(name);
      expect({ cost_source: span?.cost_source, pricing: span?.pricing }, name).to.deep.equal({ cost_source, pricing });
      if (cost === null) expect(span?.cost, name).to.equal(null);
      else expect(isClose(span?.cost as number, cost, 1e-12), `${name}: ${span?.cost} vs ${cost}`).to.equal(true);
    }
  }

  it('prices the LLM calls without vendor.cost from the book, keeps the reported cost, and says why the others are unpriced', async () => {
    expectPriced(await spans());
  });

  it('returns the same cost and provenance in the trace (GET /traces/{trace_id})', async () => {
    const [first] = await spans({ field: 'span_name', op: 'eq', value: 'request' });
    const response = await call(app().url, 'GET', `/traces/${first?.trace_id}`, { headers: caller.headers });
    expect(response.status, response.text).to.equal(200);
    expectPriced(parseExact<EngineSchemas['TraceDetail']>(response.text).data);
  });

  it("counts the computed costs in the trace's total_cost", async () => {
    const response = await post('/traces', {}, { limit: 10 });
    expect(response.status, response.text).to.equal(200);
    const [summary, ...others] = parseEngineRead('/traces', response.text).data;
    expect(others).to.deep.equal([]);
    expect(summary?.spans_count).to.equal(SPANS.length);
    expect(isClose(summary?.total_cost as number, 0.01 + COMPUTED_TOTAL, 1e-9), String(summary?.total_cost)).to.equal(true);
  });

  it('keeps the cost an instrumentation reports (gen_ai.usage.cost, llm.cost.total) unless vendor.cost is sent, and prices the spans whose cost is invalid', async () => {
    expectPriced(await spans(undefined, HOUR_LATER), REPORTED);
  });

  it("counts the instrumentation's reported costs in the trace's total_cost", async () => {
    const response = await post('/traces', {}, { ...HOUR_LATER, limit: 10 });
    expect(response.status, response.text).to.equal(200);
    const [summary, ...others] = parseEngineRead('/traces', response.text).data;
    expect(others).to.deep.equal([]);
    expect(summary?.spans_count).to.equal(REPORTED.length);
    expect(isClose(summary?.total_cost as number, REPORTED_TOTAL, 1e-9), String(summary?.total_cost)).to.equal(true);
  });

  const FILTERS: Array<[string, unknown, string[]]> = [
    [
      'cost_source eq computed',
      { field: 'cost_source', op: 'eq', value: 'computed' },
      ['claude-computed', 'gemini-computed', 'gpt-computed'],
    ],
    ['cost_source eq reported', { field: 'cost_source', op: 'eq', value: 'reported' }, ['gpt-reported']],
    ['cost_source not_exists', { field: 'cost_source', op: 'not_exists' }, ['no-usage', 'request', 'unknown-model']],
    ['cost_source neq computed (absent values match no neq)', { field: 'cost_source', op: 'neq', value: 'computed' }, ['gpt-reported']],
    ['pricing.unpriced_reason exists', { field: 'pricing.unpriced_reason', op: 'exists' }, ['no-usage', 'unknown-model']],
    ['pricing.unpriced_reason in', { field: 'pricing.unpriced_reason', op: 'in', value: ['unknown_model', 'no_model'] }, ['unknown-model']],
    ['pricing.model starts_with', { field: 'pricing.model', op: 'starts_with', value: 'claude-' }, ['claude-computed']],
    ['pricing.model regex', { field: 'pricing.model', op: 'regex', value: '-latest$' }, ['claude-computed']],
    ['pricing.provider eq (the book id, not the span text)', { field: 'pricing.provider', op: 'eq', value: 'google' }, ['gemini-computed']],
    ['pricing.provider contains', { field: 'pricing.provider', op: 'contains', value: 'open' }, ['gpt-computed']],
  ];
  for (const [name, filter, want] of FILTERS) {
    it(`filters on ${name}`, async () => {
      expect(await names(filter)).to.deep.equal(want);
    });
  }

  it('refuses numeric operators on cost_source, and pricing.book as a field, with a 422', async () => {
    for (const filter of [
      { field: 'cost_source', op: 'gt', value: 1 },
      { field: 'pricing.book', op: 'exists' },
    ]) {
      const response = await post('/engine/query', { filter });
      expect(response.status, `${JSON.stringify(filter)}: ${response.text}`).to.equal(422);
    }
  });

  it('sums computed and reported costs alike in analytics, grouped by cost_source', async () => {
    const response = await post('/engine/analytics', {
      group_by: ['cost_source'],
      granularity: 'minute',
      measures: [{ fn: 'count' }, { fn: 'sum', field: 'cost' }],
    });
    expect(response.status, response.text).to.equal(200);
    const answer = JSON.parse(response.text) as EngineSchemas['AnalyticsResponse'];
    const bySource = Object.fromEntries(
      answer.groups.map((group) => [String(group.key.cost_source), group.points.map((point) => point.values)]),
    );
    expect(Object.keys(bySource).sort()).to.deep.equal(['computed', 'null', 'reported']);
    expect(bySource.null).to.deep.equal([[3, null]]);
    expect(bySource.reported).to.deep.equal([[1, 0.01]]);
    const [[count, sum]] = bySource.computed as Array<Array<number | null>>;
    expect(count).to.equal(3);
    expect(isClose(sum as number, COMPUTED_TOTAL, 1e-9), String(sum)).to.equal(true);
  });

  it('sums the computed cost where the roll-ups answer (no group_by, a window on the minute)', async () => {
    const response = await post('/engine/analytics', { granularity: 'minute', measures: [{ fn: 'sum', field: 'cost' }] });
    expect(response.status, response.text).to.equal(200);
    const answer = JSON.parse(response.text) as EngineSchemas['AnalyticsResponse'];
    const sum = answer.groups[0]?.points[0]?.values[0] as number;
    expect(isClose(sum, 0.01 + COMPUTED_TOTAL, 1e-9), String(sum)).to.equal(true);
  });

  it('answers the documented request for the calls left unpriced, per model', async () => {
    const response = await post('/engine/analytics', {
      filter: { field: 'pricing.unpriced_reason', op: 'exists' },
      group_by: ['model', 'pricing.unpriced_reason'],
      granularity: 'day',
      measures: [{ fn: 'count' }, { fn: 'sum', field: 'tokens.total' }],
      row_limit: 100,
    });
    expect(response.status, response.text).to.equal(200);
    const answer = JSON.parse(response.text) as EngineSchemas['AnalyticsResponse'];
    expect(answer.groups.map((group) => [group.key, group.points.map((point) => point.values)])).to.have.deep.members([
      [{ model: 'acme-unreleased-1', 'pricing.unpriced_reason': 'unknown_model' }, [[1, 700]]],
      [{ model: 'gpt-4o-mini', 'pricing.unpriced_reason': 'no_usage' }, [[1, 90]]],
    ]);
  });
});
