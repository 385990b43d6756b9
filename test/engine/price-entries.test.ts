// An organization's price entries at ingestion, end to end on every database: entries created
// through the management API price the spans the official OpenTelemetry protobuf exporter sends
// (an exact model, patterns, precedence, an entry without provider, another currency, validity
// across a price change, no price in force), the default book prices the rest, a create, change
// or delete applies to the very next export, and another organization's spans never meet them.
// Every answer is checked against the documents.
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect } from 'chai';
import { call } from '../support/contract.js';
import { type EngineSchemas, isClose, nanosToRfc3339, parseEngineRead } from '../support/engine-helpers.js';
import { callerFor, createApiKey, expectStatus, keyToken, ownerWithApplication, type Caller } from '../support/management.js';
import { contractCheckingProxy, expectExported, exportSpans, recordSpans, type CheckingProxy } from '../support/otel.js';
import { onEachDatabase } from '../support/test-server.js';

const T0 = 1795355100; // seconds: 2026-11-22T11:45:00Z
const iso = (seconds: number, ms = 0) => new Date(seconds * 1000 + ms).toISOString();
const WINDOW = { start_time: nanosToRfc3339(BigInt(T0) * 1_000_000_000n), end_time: nanosToRfc3339(BigInt(T0 + 60) * 1_000_000_000n) };
// The price change of `acme-chat`: entry A until CHANGE (exclusive), entry B from it.
const CHANGE = T0 + 10;

type Pricing = EngineSchemas['SpanPricing'];
/** A span as the engine reads it back (exact nanoseconds as text). */
type Span = ReturnType<typeof parseEngineRead<'/engine/query'>>['data'][number];

interface Call {
  name: string;
  attributes: Attributes;
  /** [seconds, nanoseconds] */
  start?: [number, number];
}

const tokens = (input: number, output: number, cacheRead?: number): Attributes => ({
  'gen_ai.usage.input_tokens': input,
  'gen_ai.usage.output_tokens': output,
  ...(cacheRead === undefined ? {} : { 'gen_ai.usage.cache_read.input_tokens': cacheRead }),
});
const llm = (provider: string | null, model: string): Attributes => ({
  ...(provider === null ? {} : { 'gen_ai.provider.name': provider }),
  'gen_ai.request.model': model,
});

onEachDatabase('price entries at ingestion', (app) => {
  let proxy: CheckingProxy;
  let owner: Caller;
  let orgId: string;
  let headers: Record<string, string>;
  let otherHeaders: Record<string, string>;
  const entries: Record<string, string> = {};
  let calls = 0;

  async function ingestor(as: Caller, appId: string): Promise<Record<string, string>> {
    const key = await createApiKey(as, appId, ['read:traces', 'write:traces']);
    return { Authorization: `Bearer ${await keyToken(app(), key.apiKey, key.secret)}`, 'X-Vendor-App-Id': appId };
  }

  async function createEntry(name: string, fields: Record<string, unknown>): Promise<void> {
    const response = await owner('POST', `/organizations/${orgId}/price-entries`, { json: fields });
    expectStatus(response, 201);
    entries[name] = response.body.id;
  }

  /** Exports the calls as one trace each, starting at T0 + 1 s unless said otherwise. */
  async function send(as: Record<string, string>, list: Call[]): Promise<void> {
    const exporter = new ProtoTraceExporter({ url: `${proxy.url}/v1/traces`, headers: as, timeoutMillis: 10_000 });
    try {
      const spans = await recordSpans({ 'service.name': 'assistant' }, (tracer) => {
        for (const { name, attributes, start } of list) {
          calls += 1;
          const startTime = start ?? [T0 + 1, calls * 1000];
          tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime, attributes }).end([startTime[0] + 1, 0]);
        }
      });
      expectExported(await exportSpans(exporter, spans));
    } finally {
      await exporter.shutdown();
    }
  }

  async function spans(as: Record<string, string>, filter?: unknown): Promise<Map<string, Span>> {
    const response = await call(app().url, 'POST', '/engine/query', {
      query: { ...WINDOW, limit: 100 },
      headers: as,
      json: filter === undefined ? {} : { filter },
    });
    expect(response.status, response.text).to.equal(200);
    return new Map(parseEngineRead('/engine/query', response.text).data.map((span) => [span.span_name, span]));
  }

  const NO_PRICING: Pricing = { book: null, provider: null, model: null, unpriced_reason: null, entry_id: null, currency: null };
  const byEntry = (entry: string, provider: string | null, model: string, currency: string): Pricing => ({
    ...NO_PRICING,
    entry_id: entries[entry] as string,
    provider,
    model,
    currency,
  });
  const byBook = (provider: string, model: string): Pricing => ({
    ...NO_PRICING,
    book: 'genai-prices 0.1.8',
    provider,
    model,
    currency: 'USD',
  });

  function expectSpan(span: Span | undefined, cost: number | null, pricing: Pricing, name: string): void {
    expect(span, name).to.not.equal(undefined);
    expect(span?.pricing, name).to.deep.equal(pricing);
    expect(span?.cost_source, name).to.equal(cost === null ? null : 'computed');
    if (cost === null) expect(span?.cost, name).to.equal(null);
    else expect(isClose(span?.cost as number, cost, 1e-12), `${name}: ${span?.cost} vs ${cost}`).to.equal(true);
  }

  before(async () => {
    proxy = await contractCheckingProxy(app().url);
    const first = await ownerWithApplication(app(), 'Priced');
    owner = first.as;
    orgId = first.orgId;
    headers = await ingestor(owner, first.appId);
    const second = await ownerWithApplication(app(), 'Elsewhere');
    otherHeaders = await ingestor(second.as, second.appId);

    await createEntry('exact', {
      provider: 'openai',
      model: 'gpt-4o-mini',
      input_price: 1,
      output_price: 2,
      cache_read_price: 0.5,
      currency: 'EUR',
    });
    await createEntry('named-pattern', { provider: 'OpenAI', model: 'gpt-4o-2*', input_price: 3, output_price: 4, currency: 'USD' });
    await createEntry('null-pattern', { model: 'gpt-4o*', input_price: 5, output_price: 6, currency: 'USD' });
    await createEntry('claude', { model: 'claude-*', input_price: 0.7, output_price: 3.5, request_price: 0.001, currency: 'GBP' });
    await createEntry('before-change', {
      provider: 'acme',
      model: 'acme-chat',
      input_price: 1,
      output_price: 1,
      currency: 'USD',
      valid_to: iso(CHANGE),
    });
    await createEntry('after-change', {
      provider: 'acme',
      model: 'acme-chat',
      input_price: 2,
      output_price: 2,
      currency: 'USD',
      valid_from: iso(CHANGE),
    });
    await createEntry('retired', { model: 'acme-old', input_price: 1, output_price: 1, currency: 'USD', valid_to: iso(T0 - 3600) });

    await send(headers, [
      { name: 'exact', attributes: { ...llm('openai', 'gpt-4o-mini'), ...tokens(1000, 500, 200) } },
      { name: 'named-pattern', attributes: { ...llm('openai', 'gpt-4o-2024-08-06'), ...tokens(1_000_000, 0) } },
      { name: 'null-pattern', attributes: { ...llm('azure', 'gpt-4o-2024-08-06'), ...tokens(1_000_000, 0) } },
      { name: 'no-provider', attributes: { ...llm(null, 'Claude-3-5-Haiku'), ...tokens(0, 1_000_000) } },
      { name: 'book', attributes: { ...llm('gcp.vertex_ai', 'gemini-2.5-flash'), ...tokens(1_000_000, 0) } },
      { name: 'reported', attributes: { ...llm('openai', 'gpt-4o-mini'), ...tokens(1000, 500), 'vendor.cost': 0.25 } },
      { name: 'before-change', attributes: { ...llm('acme', 'acme-chat'), ...tokens(1_000_000, 0) }, start: [CHANGE - 1, 999_999_999] },
      { name: 'at-change', attributes: { ...llm('ACME', 'acme-chat'), ...tokens(1_000_000, 0) }, start: [CHANGE, 0] },
      { name: 'retired', attributes: { ...llm(null, 'acme-old'), ...tokens(10, 10) } },
      { name: 'invalid-usage', attributes: { ...llm('openai', 'gpt-4o-mini'), ...tokens(10, 0, 11) } },
    ]);
    // The same call from another organization's application.
    await send(otherHeaders, [{ name: 'exact', attributes: { ...llm('openai', 'gpt-4o-mini'), ...tokens(1000, 500, 200) } }]);
  });

  after(async () => {
    expect(proxy.violations, 'answers outside the document').to.deep.equal([]);
    await proxy.close();
  });

  it('prices by the entry in force: exact, patterns by precedence, without a provider, in its currency', async () => {
    const got = await spans(headers);
    expectSpan(got.get('exact'), (800 * 1 + 200 * 0.5 + 500 * 2) / 1e6, byEntry('exact', 'openai', 'gpt-4o-mini', 'EUR'), 'exact');
    // gpt-4o-2* names the provider: it wins over gpt-4o*, which names none, though both match.
    expectSpan(got.get('named-pattern'), 3, byEntry('named-pattern', 'OpenAI', 'gpt-4o-2*', 'USD'), 'named-pattern');
    expectSpan(got.get('null-pattern'), 5, byEntry('null-pattern', null, 'gpt-4o*', 'USD'), 'null-pattern');
    expectSpan(got.get('no-provider'), 3.501, byEntry('claude', null, 'claude-*', 'GBP'), 'no-provider');
    expectSpan(got.get('book'), 0.3, byBook('google', 'gemini-2.5-flash'), 'book');
    expect(got.get('reported')).to.deep.include({ cost: 0.25, cost_source: 'reported', pricing: NO_PRICING });
    expectSpan(got.get('invalid-usage'), null, { ...NO_PRICING, unpriced_reason: 'invalid_usage' }, 'invalid-usage');
  });

  it('prices each side of a price change by the entry in force then, and leaves a call no entry is in force for unpriced', async () => {
    const got = await spans(headers);
    expectSpan(got.get('before-change'), 1, byEntry('before-change', 'acme', 'acme-chat', 'USD'), 'before-change');
    expectSpan(got.get('at-change'), 2, byEntry('after-change', 'acme', 'acme-chat', 'USD'), 'at-change');
    expectSpan(got.get('retired'), null, { ...NO_PRICING, unpriced_reason: 'no_price_in_force' }, 'retired');
  });

  it("never prices another organization's spans with these entries", async () => {
    expectSpan(
      (await spans(otherHeaders)).get('exact'),
      (800 * 0.15 + 200 * 0.075 + 500 * 0.6) / 1e6,
      byBook('openai', 'gpt-4o-mini'),
      'elsewhere',
    );
  });

  it('filters and groups by pricing.entry_id and pricing.currency', async () => {
    expect([...(await spans(headers, { field: 'pricing.entry_id', op: 'eq', value: entries.exact })).keys()]).to.deep.equal(['exact']);
    expect([...(await spans(headers, { field: 'pricing.currency', op: 'in', value: ['EUR', 'GBP'] })).keys()].sort()).to.deep.equal([
      'exact',
      'no-provider',
    ]);
    const response = await call(app().url, 'POST', '/engine/analytics', {
      query: WINDOW,
      headers,
      json: { group_by: ['pricing.currency'], granularity: 'hour', measures: [{ fn: 'count' }] },
    });
    expect(response.status, response.text).to.equal(200);
    const answer = JSON.parse(response.text) as EngineSchemas['AnalyticsResponse'];
    const counts = Object.fromEntries(answer.groups.map((group) => [String(group.key['pricing.currency']), group.points[0]?.values[0]]));
    expect(counts).to.deep.equal({ EUR: 1, GBP: 1, USD: 5, null: 3 });
  });

  it('applies a create, a change and a delete to the very next export, and keeps the costs already stored', async () => {
    const o3 = (name: string): Call => ({ name, attributes: { ...llm('openai', 'o3-mini'), ...tokens(1_000_000, 0) } });
    await send(headers, [o3('o3-before')]);
    await createEntry('o3', { provider: 'openai', model: 'o3-mini', input_price: 0.5, output_price: 1, currency: 'USD' });
    await send(headers, [o3('o3-created')]);
    expectStatus(await owner('PATCH', `/organizations/${orgId}/price-entries/${entries.o3}`, { json: { input_price: 0.25 } }), 200);
    await send(headers, [o3('o3-changed')]);
    expectStatus(await owner('DELETE', `/organizations/${orgId}/price-entries/${entries.o3}`), 204);
    await send(headers, [o3('o3-deleted')]);

    const got = await spans(headers);
    const book = got.get('o3-before');
    expect(book?.pricing).to.deep.include({ book: 'genai-prices 0.1.8', provider: 'openai', entry_id: null, currency: 'USD' });
    expectSpan(got.get('o3-created'), 0.5, byEntry('o3', 'openai', 'o3-mini', 'USD'), 'o3-created');
    expectSpan(got.get('o3-changed'), 0.25, byEntry('o3', 'openai', 'o3-mini', 'USD'), 'o3-changed');
    expectSpan(got.get('o3-deleted'), book?.cost as number, book?.pricing as Pricing, 'o3-deleted');
  });

  it('answers getEffectivePrice as ingestion priced the spans', async () => {
    const ask = async (query: Record<string, string>) => {
      const response = await owner('GET', `/organizations/${orgId}/effective-price`, { query });
      expectStatus(response, 200);
      return response.body;
    };
    expect(await ask({ model: 'gpt-4o-2024-08-06', provider: 'openai', at: iso(T0 + 1) })).to.include({
      source: 'entry',
      entry_id: entries['named-pattern'],
      input_price: 3,
    });
    expect(await ask({ model: 'acme-chat', provider: 'acme', at: iso(CHANGE, -1) })).to.include({ entry_id: entries['before-change'] });
    expect(await ask({ model: 'acme-chat', provider: 'acme', at: iso(CHANGE) })).to.include({ entry_id: entries['after-change'] });
    expect(await ask({ model: 'acme-old', at: iso(T0 + 1) })).to.include({ source: null, unpriced_reason: 'no_price_in_force' });
    // Another organization's member sees the book, not these entries.
    const outsider = callerFor(app(), (await ownerWithApplication(app(), 'Outsider')).user.token);
    const other = await outsider('GET', `/organizations/${orgId}/effective-price`, { query: { model: 'gpt-4o-mini' } });
    expectStatus(other, 404);
  });
});
