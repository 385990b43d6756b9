// Model, provider and token counts end to end, on every database: the official OpenTelemetry
// protobuf exporter sends LLM spans shaped by the GenAI conventions (current and deprecated
// names), by OpenInference, by both at once, with bad counts, and a span with only `vendor.*`
// attributes; POST /engine/query returns the mapped fields, filters and analytics read them, and
// the `vendor.*` span answers as before with every new field null. Every answer is checked
// against the engine document (call(), or the checking proxy for the exporter's requests).
import { SpanKind, type Attributes, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect } from 'chai';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { isClose, nanosToRfc3339, parseEngineRead } from '../support/engine-helpers.js';
import { contractCheckingProxy, expectExported, exportSpans, recordSpans, type CheckingProxy } from '../support/otel.js';
import { onEachDatabase } from '../support/test-server.js';

const T0 = 1795355100; // seconds
const WINDOW = { start_time: nanosToRfc3339(BigInt(T0) * 1_000_000_000n), end_time: nanosToRfc3339(BigInt(T0 + 60) * 1_000_000_000n) };

/** Each span by name: its attributes, and the model, provider and tokens wanted back. */
const SPANS: Array<{ name: string; attributes: Attributes; model: string | null; provider: string | null; tokens: Tokens }> = [
  {
    name: 'genai-current',
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4',
      'gen_ai.response.model': 'claude-sonnet-4-20250514',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 300,
      'gen_ai.usage.cache_read.input_tokens': 1000,
      'gen_ai.usage.cache_creation.input_tokens': 150,
    },
    model: 'claude-sonnet-4-20250514',
    provider: 'anthropic',
    tokens: { input: 1200, output: 300, cache_read: 1000, cache_creation: 150, total: 1500 },
  },
  {
    name: 'genai-deprecated',
    attributes: {
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.prompt_tokens': 40,
      'gen_ai.usage.completion_tokens': '12',
    },
    model: 'gpt-4o',
    provider: 'openai',
    tokens: { input: 40, output: 12, cache_read: null, cache_creation: null, total: 52 },
  },
  {
    name: 'openinference',
    attributes: {
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o-mini',
      'llm.provider': 'openai',
      'llm.system': 'openai',
      'llm.token_count.prompt': 500,
      'llm.token_count.completion': 20,
      'llm.token_count.total': 520,
      'llm.token_count.prompt_details.cache_read': 256,
      'llm.token_count.prompt_details.cache_write': 64,
    },
    model: 'gpt-4o-mini',
    provider: 'openai',
    tokens: { input: 500, output: 20, cache_read: 256, cache_creation: 64, total: 520 },
  },
  {
    // GenAI wins field by field; OpenInference fills what GenAI does not send.
    name: 'both',
    attributes: {
      'gen_ai.provider.name': 'aws.bedrock',
      'llm.provider': 'aws',
      'gen_ai.response.model': 'amazon.nova-pro-v1:0',
      'llm.model_name': 'nova',
      'gen_ai.usage.input_tokens': 90,
      'llm.token_count.prompt': 9000,
      'llm.token_count.completion': 10,
      'llm.token_count.prompt_details.cache_read': 30,
    },
    model: 'amazon.nova-pro-v1:0',
    provider: 'aws.bedrock',
    tokens: { input: 90, output: 10, cache_read: 30, cache_creation: null, total: 100 },
  },
  {
    // Negative, fractional, not a number, above 10^12: each stays null, the span is stored.
    name: 'bad-counts',
    attributes: {
      'gen_ai.provider.name': 'openai',
      'gen_ai.usage.input_tokens': -5,
      'gen_ai.usage.output_tokens': 2.5,
      'gen_ai.usage.cache_read.input_tokens': '1e3',
      'gen_ai.usage.cache_creation.input_tokens': 2_000_000_000_000,
    },
    model: null,
    provider: 'openai',
    tokens: { input: null, output: null, cache_read: null, cache_creation: null, total: null },
  },
  {
    name: 'vendor-only',
    attributes: { 'vendor.unit': 'llm', 'vendor.cost': 0.0042, 'vendor.usage.amount': 1680, 'vendor.usage.unit': 'tokens' },
    model: null,
    provider: null,
    tokens: { input: null, output: null, cache_read: null, cache_creation: null, total: null },
  },
];
interface Tokens {
  input: number | null;
  output: number | null;
  cache_read: number | null;
  cache_creation: number | null;
  total: number | null;
}

function llmCalls(tracer: Tracer): void {
  SPANS.forEach(({ name, attributes }, index) => {
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime: [T0, (index + 1) * 1_000_000], attributes });
    span.end([T0 + 1, 0]);
  });
}

onEachDatabase('model and token usage from the GenAI and OpenInference conventions', (app) => {
  let proxy: CheckingProxy;
  let caller: EngineCaller;
  const post = (path: string, json: unknown) => call(app().url, 'POST', path, { query: WINDOW, headers: caller.headers, json });

  async function spanNames(filter: unknown): Promise<string[]> {
    const response = await post('/engine/query', { filter });
    expect(response.status, response.text).to.equal(200);
    return parseEngineRead('/engine/query', response.text)
      .data.map((span) => span.span_name)
      .sort();
  }

  before(async () => {
    proxy = await contractCheckingProxy(app().url);
    caller = await engineCaller(app());
    const exporter = new ProtoTraceExporter({ url: `${proxy.url}/v1/traces`, headers: caller.headers, timeoutMillis: 10_000 });
    try {
      expectExported(await exportSpans(exporter, await recordSpans({ 'service.name': 'assistant' }, llmCalls)));
    } finally {
      await exporter.shutdown();
    }
  });
  after(async () => {
    expect(proxy.violations, 'answers outside the document').to.deep.equal([]);
    await proxy.close();
  });

  it('stores every span, bad counts included, and returns the mapped model, provider and tokens', async () => {
    const response = await post('/engine/query', {});
    expect(response.status, response.text).to.equal(200);
    const got = parseEngineRead('/engine/query', response.text).data.map(({ span_name, model, provider, tokens }) => ({
      span_name,
      model,
      provider,
      tokens,
    }));
    expect(got.sort((a, b) => a.span_name.localeCompare(b.span_name))).to.deep.equal(
      SPANS.map(({ name, model, provider, tokens }) => ({ span_name: name, model, provider, tokens })).sort((a, b) =>
        a.span_name.localeCompare(b.span_name),
      ),
    );
  });

  it('answers for a span with only vendor.* attributes as before: the vendor fields, the attributes kept, the new fields null', async () => {
    const response = await post('/engine/query', { filter: { field: 'span_name', op: 'eq', value: 'vendor-only' } });
    const [span] = parseEngineRead('/engine/query', response.text).data;
    expect(span).to.deep.include({
      unit: 'llm',
      cost: 0.0042,
      usage: { amount: 1680, unit: 'tokens' },
      span_attributes: { 'vendor.unit': 'llm', 'vendor.cost': 0.0042, 'vendor.usage.amount': 1680, 'vendor.usage.unit': 'tokens' },
      model: null,
      provider: null,
      tokens: { input: null, output: null, cache_read: null, cache_creation: null, total: null },
    });
  });

  it('keeps the attributes of bad counts in span_attributes', async () => {
    const response = await post('/engine/query', { filter: { field: 'span_name', op: 'eq', value: 'bad-counts' } });
    const [span] = parseEngineRead('/engine/query', response.text).data;
    expect(span?.span_attributes).to.deep.equal(SPANS.find(({ name }) => name === 'bad-counts')?.attributes);
  });

  const FILTERS: Array<[string, unknown, string[]]> = [
    ['model eq', { field: 'model', op: 'eq', value: 'gpt-4o' }, ['genai-deprecated']],
    ['model starts_with', { field: 'model', op: 'starts_with', value: 'gpt-4o' }, ['genai-deprecated', 'openinference']],
    [
      'provider in',
      { field: 'provider', op: 'in', value: ['openai', 'aws.bedrock'] },
      ['bad-counts', 'both', 'genai-deprecated', 'openinference'],
    ],
    ['provider not_exists', { field: 'provider', op: 'not_exists' }, ['vendor-only']],
    ['tokens.input gt (a JSON number)', { field: 'tokens.input', op: 'gt', value: 100 }, ['genai-current', 'openinference']],
    ['tokens.total lte (a string)', { field: 'tokens.total', op: 'lte', value: '520' }, ['both', 'genai-deprecated', 'openinference']],
    ['tokens.cache_read exists', { field: 'tokens.cache_read', op: 'exists' }, ['both', 'genai-current', 'openinference']],
    ['tokens.cache_creation in', { field: 'tokens.cache_creation', op: 'in', value: [150, '64'] }, ['genai-current', 'openinference']],
    [
      'tokens.output neq: absent counts match no neq',
      { field: 'tokens.output', op: 'neq', value: 300 },
      ['both', 'genai-deprecated', 'openinference'],
    ],
    ['not tokens.total exists', { not: { field: 'tokens.total', op: 'exists' } }, ['bad-counts', 'vendor-only']],
  ];
  for (const [name, filter, want] of FILTERS) {
    it(`filters on ${name}`, async () => {
      expect(await spanNames(filter)).to.deep.equal(want);
    });
  }

  it('refuses text operators on token counts and numbers on model, with a 422 at the field', async () => {
    for (const filter of [
      { field: 'tokens.input', op: 'contains', value: '1' },
      { field: 'model', op: 'gt', value: 5 },
    ]) {
      const response = await post('/engine/query', { filter });
      expect(response.status, response.text).to.equal(422);
    }
  });

  it('measures token counts per provider (from the spans: no roll-up keeps them)', async () => {
    const response = await post('/engine/analytics', {
      group_by: ['provider'],
      granularity: 'hour',
      measures: [
        { fn: 'count' },
        { fn: 'sum', field: 'tokens.input' },
        { fn: 'max', field: 'tokens.total' },
        { fn: 'p50', field: 'tokens.output' },
      ],
      order_by: { measure: 0 },
      row_limit: 10,
    });
    expect(response.status, response.text).to.equal(200);
    const answer = JSON.parse(response.text) as {
      groups: Array<{ key: Record<string, string | null>; points: Array<{ values: unknown[] }> }>;
    };
    const byProvider = Object.fromEntries(
      answer.groups.map((group) => [String(group.key.provider), group.points.map((point) => point.values)]),
    );
    expect(byProvider).to.deep.equal({
      // openai: genai-deprecated, openinference, bad-counts.
      openai: [[3, 540, 520, 16]],
      anthropic: [[1, 1200, 1500, 300]],
      'aws.bedrock': [[1, 90, 100, 10]],
      null: [[1, null, null, null]],
    });
  });

  it('sums token counts over a window the minute roll-up could answer for its other figures (the spans answer)', async () => {
    // On a minute boundary, grouped by a dimension: without the token count the roll-ups would answer.
    const response = await post('/engine/analytics', {
      group_by: ['service_name'],
      granularity: 'minute',
      measures: [{ fn: 'count' }, { fn: 'sum', field: 'tokens.input' }, { fn: 'sum', field: 'cost' }],
    });
    expect(response.status, response.text).to.equal(200);
    const answer = JSON.parse(response.text) as {
      groups: Array<{ key: Record<string, string | null>; points: Array<{ values: unknown[] }> }>;
    };
    const [[service, [[count, tokens, cost]]]] = answer.groups.map((group) => [
      group.key.service_name,
      group.points.map((point) => point.values),
    ]) as Array<[string, number[][]]>;
    expect([service, count, tokens]).to.deep.equal(['assistant', 6, 1830]);
    // The reported 0.0042 and the costs computed from the price book for the four priced calls
    // (test/engine/computed-cost.test.ts): claude-sonnet-4 0.0055125, gpt-4o 0.00022,
    // gpt-4o-mini 0.0000678, amazon.nova-pro 0.000086.
    expect(isClose(cost as number, 0.0042 + 0.0055125 + 0.00022 + 0.0000678 + 0.000086, 1e-9), String(cost)).to.equal(true);
  });

  it('groups by model, the groups past row_limit folded into other', async () => {
    const response = await post('/engine/analytics', {
      group_by: ['model'],
      granularity: 'minute',
      measures: [
        { fn: 'sum', field: 'tokens.cache_read' },
        { fn: 'avg', field: 'tokens.output' },
      ],
      row_limit: 2,
    });
    expect(response.status, response.text).to.equal(200);
    const answer = JSON.parse(response.text) as {
      groups: Array<{ key: Record<string, string | null>; points: Array<{ values: unknown[] }> }>;
      other: { points: Array<{ values: unknown[] }> } | null;
      truncated: boolean;
    };
    expect(answer.groups.map((group) => [group.key.model, group.points.map((point) => point.values)])).to.deep.equal([
      ['claude-sonnet-4-20250514', [[1000, 300]]],
      ['gpt-4o-mini', [[256, 20]]],
    ]);
    expect(answer.truncated).to.equal(true);
    // amazon.nova-pro-v1:0 (30, 10), gpt-4o (-, 12), and the two without a model.
    expect(answer.other?.points.map((point) => point.values)).to.deep.equal([[30, 11]]);
  });

  it('refuses token counts at grain traces and as group_by fields', async () => {
    const traces = await post('/engine/analytics', { grain: 'traces', measures: [{ fn: 'sum', field: 'tokens.total' }] });
    expect(traces.status, traces.text).to.equal(422);
    const grouped = await post('/engine/analytics', { group_by: ['tokens.input'], measures: [{ fn: 'count' }] });
    expect(grouped.status, grouped.text).to.equal(422);
  });
});
