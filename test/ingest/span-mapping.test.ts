// The mapping from decoded OTLP spans to stored rows, and the per-span rejections reported as
// partial success.
import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_TOKEN_COUNT, tokenCountOf } from '../../src/ingest/genai-usage.js';
import type { Attributes, AttributeValue, DecodedEvent, DecodedSpan } from '../../src/ingest/otlp-request.js';
import { numberOf, textOf } from '../../src/ingest/derived-values.js';
import { toSpanRows } from '../../src/ingest/span-mapping.js';
import { calcPrice, findProvider } from '@pydantic/genai-prices';
import { DEFAULT_PRICE_BOOK } from '../../src/pricing/default-price-book.js';
import { isClose } from '../support/engine-helpers.js';
import { llmCallAttributes } from '../support/llm-calls.js';
import { KNOWN_MODELS, REFERENCE_BOOK, REFERENCE_BOOK_VERSION, UNKNOWN_MODEL } from '../support/price-reference.js';
import { expectedCostColumns, expectedGenAiColumns, expectedReportedCost, GENAI_KEYS } from '../support/reference-evaluator.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

function span(overrides: Partial<DecodedSpan> = {}): DecodedSpan {
  return {
    traceId: TRACE,
    spanId: '00f067aa0ba902b7',
    parentSpanId: '',
    name: 'work',
    kind: 1,
    startTimeUnixNano: '1795355100123456789',
    endTimeUnixNano: '1795355100223456789',
    attributes: {},
    statusCode: 0,
    statusMessage: '',
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    scope: { name: '', version: '' },
    ...overrides,
  };
}

function map(spans: DecodedSpan[], resourceAttributes = {}) {
  return toSpanRows({ resourceSpans: [{ resourceAttributes, spans }] }, 'app_1', 1_763_800_000_000);
}

describe('span mapping', () => {
  it('maps the first-class fields from service.name and the vendor.* attributes', () => {
    const attributes = {
      'vendor.unit': 'llm',
      'vendor.parent_unit': 'summarizer',
      'vendor.cost': 0.0042,
      'vendor.billing.resource_type': 'llm_generate_content',
      'vendor.billing.resource_name': 'gemini',
      'vendor.billing.service_id': 42,
      'vendor.billing.service_name': 'Gemini API',
      'vendor.billing.sku_id': 'sku-1',
      'vendor.billing.sku_name': 'output tokens',
      'vendor.billing.region': 'eu',
      'vendor.usage.amount': '1680',
      'vendor.usage.unit': 'tokens',
      'http.route': '/x',
    };
    const { rows, partialSuccess } = map([span({ kind: 3, parentSpanId: 'aaaaaaaaaaaaaaaa', attributes })], {
      'service.name': 'summarizer',
      'host.name': 'h1',
    });
    expect(partialSuccess).to.equal(undefined);
    expect(rows).to.deep.equal([
      {
        application_id: 'app_1',
        trace_id: TRACE,
        span_id: '00f067aa0ba902b7',
        parent_span_id: 'aaaaaaaaaaaaaaaa',
        start_time_unix_nano: '1795355100123456789',
        end_time_unix_nano: '1795355100223456789',
        duration_ms: 100,
        span_name: 'work',
        span_kind: 'SPAN_KIND_CLIENT',
        service_name: 'summarizer',
        unit: 'llm',
        parent_unit: 'summarizer',
        cost: 0.0042,
        billing_resource_type: 'llm_generate_content',
        billing_resource_name: 'gemini',
        billing_service_id: '42',
        billing_service_name: 'Gemini API',
        billing_sku_id: 'sku-1',
        billing_sku_name: 'output tokens',
        billing_region: 'eu',
        usage_amount: 1680,
        usage_unit: 'tokens',
        // vendor.usage.* is not a token count of the conventions: these stay null.
        model: null,
        provider: null,
        input_tokens: null,
        output_tokens: null,
        cache_read_tokens: null,
        cache_creation_tokens: null,
        total_tokens: null,
        // A reported cost: no price book involved.
        cost_source: 'reported',
        price_model: null,
        price_provider: null,
        price_book: null,
        unpriced_reason: null,
        price_entry_id: null,
        price_currency: null,
        resource_attributes: '{"service.name":"summarizer","host.name":"h1"}',
        span_attributes: JSON.stringify(attributes),
        status_code: 'STATUS_CODE_UNSET',
        status_message: null,
        scope_name: null,
        scope_version: null,
        events: null,
        links: null,
        dropped_attributes_count: 0,
        dropped_events_count: 0,
        dropped_links_count: 0,
        received_at: 1_763_800_000_000,
        indexed_value_1: null,
        indexed_value_2: null,
        indexed_value_3: null,
      },
    ]);
  });

  it('leaves derived fields null without their attributes, and empty attribute maps null', () => {
    const [row] = map([span()]).rows;
    expect(row).to.include({
      service_name: null,
      unit: null,
      parent_unit: null,
      cost: null,
      usage_amount: null,
      usage_unit: null,
      billing_region: null,
      resource_attributes: null,
      span_attributes: null,
    });
  });

  describe('model and token usage (GenAI and OpenInference conventions)', () => {
    const genAi = (attributes: Attributes) => {
      const [row] = map([span({ attributes })]).rows;
      if (!row) throw new Error('the span was not mapped');
      const { model, provider, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, total_tokens } = row;
      return { model, provider, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, total_tokens };
    };
    type Fields = ReturnType<typeof genAi>;
    const NONE: Fields = {
      model: null,
      provider: null,
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cache_creation_tokens: null,
      total_tokens: null,
    };
    const CASES: Array<[string, Attributes, Partial<Fields>]> = [
      [
        'GenAI v1.37+: response model, provider, both directions and the cache counts; the total added up',
        {
          'gen_ai.provider.name': 'anthropic',
          'gen_ai.request.model': 'claude-sonnet-4',
          'gen_ai.response.model': 'claude-sonnet-4-20250514',
          'gen_ai.usage.input_tokens': 1200,
          'gen_ai.usage.output_tokens': 300,
          'gen_ai.usage.cache_read.input_tokens': 1000,
          'gen_ai.usage.cache_creation.input_tokens': 150,
        },
        {
          model: 'claude-sonnet-4-20250514',
          provider: 'anthropic',
          input_tokens: 1200,
          output_tokens: 300,
          cache_read_tokens: 1000,
          cache_creation_tokens: 150,
          total_tokens: 1500,
        },
      ],
      [
        'GenAI before v1.27/v1.37: gen_ai.system, prompt_tokens, completion_tokens, the request model',
        {
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.prompt_tokens': 10,
          'gen_ai.usage.completion_tokens': 5,
        },
        { model: 'gpt-4o', provider: 'openai', input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      ],
      [
        'OpenInference: model_name, provider, prompt, completion, the sent total and the prompt details',
        {
          'llm.model_name': 'gpt-4o-mini',
          'llm.provider': 'openai',
          'llm.system': 'openai-system',
          'llm.token_count.prompt': 40,
          'llm.token_count.completion': 2,
          'llm.token_count.total': 50,
          'llm.token_count.prompt_details.cache_read': 32,
          'llm.token_count.prompt_details.cache_write': 8,
        },
        {
          model: 'gpt-4o-mini',
          provider: 'openai',
          input_tokens: 40,
          output_tokens: 2,
          cache_read_tokens: 32,
          cache_creation_tokens: 8,
          total_tokens: 50,
        },
      ],
      ['OpenInference: llm.system when llm.provider is absent', { 'llm.system': 'anthropic' }, { provider: 'anthropic' }],
      [
        'both conventions: GenAI wins, field by field; the OpenInference total is the total',
        {
          'gen_ai.provider.name': 'aws.bedrock',
          'llm.provider': 'aws',
          'gen_ai.request.model': 'nova-pro',
          'llm.model_name': 'other',
          'gen_ai.usage.input_tokens': 7,
          'llm.token_count.prompt': 70,
          'llm.token_count.completion': 3,
          'llm.token_count.total': 99,
          'llm.token_count.prompt_details.cache_read': 4,
        },
        { model: 'nova-pro', provider: 'aws.bedrock', input_tokens: 7, output_tokens: 3, cache_read_tokens: 4, total_tokens: 99 },
      ],
      [
        'gen_ai.usage.total_tokens when no OpenInference total is sent',
        { 'gen_ai.usage.total_tokens': 12, 'gen_ai.usage.input_tokens': 5 },
        { input_tokens: 5, total_tokens: 12 },
      ],
      ['only an output count: the total is the output', { 'gen_ai.usage.output_tokens': 9 }, { output_tokens: 9, total_tokens: 9 }],
      [
        'a sum above 10^12 is no total',
        { 'gen_ai.usage.input_tokens': 1e12, 'gen_ai.usage.output_tokens': 1 },
        { input_tokens: 1e12, output_tokens: 1, total_tokens: null },
      ],
      [
        'counts as digit strings and exact decimal strings (OTLP integers past 2^53) are read',
        { 'gen_ai.usage.input_tokens': '4096', 'gen_ai.usage.output_tokens': '0007' },
        { input_tokens: 4096, output_tokens: 7, total_tokens: 4103 },
      ],
      [
        'the first present attribute wins even with a bad count: no fall back to the next convention, and no total',
        { 'gen_ai.usage.input_tokens': -5, 'llm.token_count.prompt': 10, 'gen_ai.usage.output_tokens': 3 },
        { input_tokens: null, output_tokens: 3, total_tokens: null },
      ],
      [
        'an empty value (null) counts as absent: the next attribute is read',
        { 'gen_ai.response.model': null, 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': null, 'llm.token_count.prompt': 2 },
        { model: 'm', input_tokens: 2, total_tokens: 2 },
      ],
      [
        'a model or provider that is a number or a list is stored as its text',
        { 'gen_ai.request.model': 4, 'gen_ai.provider.name': ['a', 'b'] },
        { model: '4', provider: '["a","b"]' },
      ],
      ['vendor.* attributes alone: every field null', { 'vendor.usage.amount': 1680, 'vendor.usage.unit': 'tokens', 'vendor.cost': 1 }, {}],
      ['no attributes: every field null', {}, {}],
    ];
    for (const [name, attributes, want] of CASES) {
      it(name, () => {
        expect(genAi(attributes)).to.deep.equal({ ...NONE, ...want });
      });
    }

    const COUNTS: Array<[AttributeValue, number | null]> = [
      [0, 0],
      [-0, 0],
      [1680, 1680],
      [1e12, 1e12],
      [1e12 + 1, null],
      [2e15, null],
      [-1, null],
      [1.5, null],
      [Number.NaN, null],
      ['1680', 1680],
      ['000000000000001', 1],
      ['1000000000000', 1e12],
      ['1000000000001', null],
      ['99999999999999999999', null],
      ['-1', null],
      ['1.0', null],
      ['1e3', null],
      [' 12', null],
      ['12 ', null],
      ['+12', null],
      ['0x10', null],
      ['', null],
      ['many', null],
      [true, null],
      [[1], null],
      [{ n: 1 }, null],
    ];
    for (const [given, want] of COUNTS) {
      it(`reads ${JSON.stringify(given)} as the token count ${want}`, () => {
        expect(Object.is(tokenCountOf(given), want === 0 ? 0 : want), String(tokenCountOf(given))).to.equal(true);
      });
    }

    it('stores no count above 10^12', () => {
      expect(MAX_TOKEN_COUNT).to.equal(1e12);
    });

    it('agrees with the reference evaluator on random attribute maps of both conventions', () => {
      const value = fc.oneof(
        fc.constantFrom<AttributeValue>(0, 1, 1680, 1e12, 1e12 + 1, -3, 2.5, '4096', '007', '1e3', ' 5', 'gpt-4o', true, null, [1], {
          k: 'v',
        }),
        fc.integer({ min: -10, max: 2_000_000 }),
        fc.string({ maxLength: 4 }),
      );
      const attributes = fc.dictionary(fc.constantFrom(...GENAI_KEYS, 'vendor.usage.amount', 'other'), value, { maxKeys: 10 });
      fc.assert(
        fc.property(attributes, (drawn) => {
          expect(genAi(drawn)).to.deep.equal(expectedGenAiColumns(JSON.stringify(drawn)));
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('computed cost (the default price book)', () => {
    const costOf = (attributes: Attributes, startTimeUnixNano = '1795355100123456789') => {
      const [row] = map([span({ attributes, startTimeUnixNano })]).rows;
      if (!row) throw new Error('the span was not mapped');
      const { cost, cost_source, price_model, price_provider, price_book, unpriced_reason, price_entry_id, price_currency } = row;
      return { cost, cost_source, price_model, price_provider, price_book, unpriced_reason, price_entry_id, price_currency };
    };
    const NONE = {
      cost: null,
      cost_source: null,
      price_model: null,
      price_provider: null,
      price_book: null,
      unpriced_reason: null,
      price_entry_id: null,
      price_currency: null,
    };
    const computed = (cost: number, provider: string, model: string) => ({
      ...NONE,
      cost,
      cost_source: 'computed' as const,
      price_model: model,
      price_provider: provider,
      price_book: 'genai-prices 0.1.8',
      price_currency: 'USD',
    });
    const GPT = { 'gen_ai.provider.name': 'openai', 'gen_ai.response.model': 'gpt-4o-mini-2024-07-18' };
    const USAGE = { 'gen_ai.usage.input_tokens': 5120, 'gen_ai.usage.cache_read.input_tokens': 4096, 'gen_ai.usage.output_tokens': 1680 };
    // gpt-4o-mini: $0.15 input, $0.075 cache read, $0.60 output per million tokens.
    const GPT_COST = (1024 * 0.15 + 4096 * 0.075 + 1680 * 0.6) / 1e6;
    const CASES: Array<[string, Attributes, ReturnType<typeof costOf>]> = [
      [
        'a known model and its provider: priced, with the entry and the book',
        { ...GPT, ...USAGE },
        computed(GPT_COST, 'openai', 'gpt-4o-mini'),
      ],
      [
        'a provider text the book maps (azure.ai.openai is openai): narrowed to it',
        { 'gen_ai.provider.name': 'azure.ai.openai', 'gen_ai.request.model': 'gpt-4o-mini', ...USAGE },
        computed(GPT_COST, 'openai', 'gpt-4o-mini'),
      ],
      [
        'a provider the book does not know: the model alone',
        { ...GPT, 'gen_ai.provider.name': 'acme-cloud', ...USAGE },
        computed(GPT_COST, 'openai', 'gpt-4o-mini'),
      ],
      [
        'no provider: the model alone',
        { 'llm.model_name': 'gpt-4o-mini', 'llm.token_count.prompt': 1_000_000 },
        computed(0.15, 'openai', 'gpt-4o-mini'),
      ],
      ['vendor.cost wins over any price', { ...GPT, ...USAGE, 'vendor.cost': '0.5' }, { ...NONE, cost: 0.5, cost_source: 'reported' }],
      ['vendor.cost without usage: reported', { 'vendor.cost': 0 }, { ...NONE, cost: 0, cost_source: 'reported' }],
      [
        'a vendor.cost with no numeric reading is no reported cost',
        { ...GPT, ...USAGE, 'vendor.cost': 'n/a' },
        computed(GPT_COST, 'openai', 'gpt-4o-mini'),
      ],
      // The cost an instrumentation reports itself: OpenLIT's gen_ai.usage.cost, OpenInference's llm.cost.total.
      [
        'gen_ai.usage.cost without vendor.cost: reported, the book not asked',
        { ...GPT, ...USAGE, 'gen_ai.usage.cost': 0.0021 },
        { ...NONE, cost: 0.0021, cost_source: 'reported' },
      ],
      [
        'gen_ai.usage.cost as numeric text',
        { ...GPT, ...USAGE, 'gen_ai.usage.cost': ' 2.5e-3 ' },
        { ...NONE, cost: 0.0025, cost_source: 'reported' },
      ],
      ['gen_ai.usage.cost on a span that is no LLM call', { 'gen_ai.usage.cost': 0.3 }, { ...NONE, cost: 0.3, cost_source: 'reported' }],
      [
        'vendor.cost wins over gen_ai.usage.cost',
        { ...GPT, ...USAGE, 'gen_ai.usage.cost': 0.5, 'vendor.cost': 0.01 },
        { ...NONE, cost: 0.01, cost_source: 'reported' },
      ],
      [
        'gen_ai.usage.cost wins over llm.cost.total',
        { ...GPT, ...USAGE, 'gen_ai.usage.cost': 0.5, 'llm.cost.total': 0.7 },
        { ...NONE, cost: 0.5, cost_source: 'reported' },
      ],
      [
        'llm.cost.total alone: reported',
        { 'llm.model_name': 'gpt-4o-mini', 'llm.token_count.prompt': 10, 'llm.cost.total': 0.0066 },
        { ...NONE, cost: 0.0066, cost_source: 'reported' },
      ],
      [
        'a vendor.cost with no numeric reading leaves gen_ai.usage.cost to report',
        { ...GPT, ...USAGE, 'vendor.cost': 'n/a', 'gen_ai.usage.cost': 0.2 },
        { ...NONE, cost: 0.2, cost_source: 'reported' },
      ],
      ...(
        [
          ['0 (OpenLIT: a model its price list lacks)', 0],
          ['-0', -0],
          ['negative', -0.001],
          ['negative text', '-1'],
          ['NaN', 'NaN'],
          ['Infinity', 'Infinity'],
          ['non-numeric text', 'free'],
          ['a boolean', true],
          ['a list', [0.1]],
        ] as Array<[string, AttributeValue]>
      ).map(([what, value]): [string, Attributes, ReturnType<typeof costOf>] => [
        `a gen_ai.usage.cost that is ${what}: no reported cost, priced from the tokens`,
        { ...GPT, ...USAGE, 'gen_ai.usage.cost': value },
        computed(GPT_COST, 'openai', 'gpt-4o-mini'),
      ]),
      [
        'an invalid gen_ai.usage.cost hides llm.cost.total (the first present wins): priced from the tokens',
        { ...GPT, ...USAGE, 'gen_ai.usage.cost': -1, 'llm.cost.total': 0.7 },
        computed(GPT_COST, 'openai', 'gpt-4o-mini'),
      ],
      [
        'an empty gen_ai.usage.cost counts as absent: llm.cost.total reports',
        { ...GPT, ...USAGE, 'gen_ai.usage.cost': null, 'llm.cost.total': 0.7 },
        { ...NONE, cost: 0.7, cost_source: 'reported' },
      ],
      ['an unknown model', { 'gen_ai.response.model': UNKNOWN_MODEL, ...USAGE }, { ...NONE, unpriced_reason: 'unknown_model' }],
      [
        'a model of another provider than the one named',
        { ...GPT, 'gen_ai.provider.name': 'anthropic', ...USAGE },
        { ...NONE, unpriced_reason: 'unknown_model' },
      ],
      ['tokens without a model', USAGE, { ...NONE, unpriced_reason: 'no_model' }],
      ['a provider alone', { 'gen_ai.provider.name': 'openai' }, { ...NONE, unpriced_reason: 'no_model' }],
      ['a model without tokens', GPT, { ...NONE, unpriced_reason: 'no_usage' }],
      ['a model with a total alone', { ...GPT, 'llm.token_count.total': 900 }, { ...NONE, unpriced_reason: 'no_usage' }],
      ['a model with invalid counts only', { ...GPT, 'gen_ai.usage.input_tokens': -4 }, { ...NONE, unpriced_reason: 'no_usage' }],
      [
        'cache reads above the input count',
        { ...GPT, 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.cache_read.input_tokens': 11 },
        { ...NONE, unpriced_reason: 'invalid_usage' },
      ],
      ['output only: the input counts 0', { ...GPT, 'gen_ai.usage.output_tokens': 1_000_000 }, computed(0.6, 'openai', 'gpt-4o-mini')],
      ['no LLM call: nothing', { 'http.route': '/x' }, NONE],
    ];
    for (const [name, attributes, want] of CASES) {
      it(name, () => {
        const got = costOf(attributes);
        expect({ ...got, cost: null }).to.deep.equal({ ...want, cost: null });
        if (want.cost === null) expect(got.cost).to.equal(null);
        else expect(isClose(got.cost as number, want.cost, 1e-12), `${got.cost} vs ${want.cost}`).to.equal(true);
      });
    }

    it('names the book by the package it ships in and its pinned version', () => {
      expect(DEFAULT_PRICE_BOOK).to.equal(REFERENCE_BOOK_VERSION);
      expect(DEFAULT_PRICE_BOOK).to.equal('genai-prices 0.1.8');
    });

    it('prices at the span start time: the price in force then (o3: $10 per million input tokens, $2 from 2025-06-10)', () => {
      const o3 = { 'gen_ai.provider.name': 'openai', 'gen_ai.response.model': 'o3', 'gen_ai.usage.input_tokens': 1_000_000 };
      const at = (iso: string) => (BigInt(Date.parse(iso)) * 1_000_000n).toString();
      expect(costOf(o3, at('2025-06-09T23:59:59.999Z'))).to.deep.equal(computed(10, 'openai', 'o3'));
      expect(costOf(o3, at('2025-06-10T00:00:00Z'))).to.deep.equal(computed(2, 'openai', 'o3'));
    });

    it('holds the premises of the generators: the known models have one price for all time, the other texts are unknown', () => {
      for (const { model } of KNOWN_MODELS) {
        const entry = REFERENCE_BOOK.get(model);
        expect(entry?.named.undated && entry.alone.undated, model).to.equal(true);
      }
      expect(calcPrice({ input_tokens: 1 }, UNKNOWN_MODEL)).to.equal(null);
      expect(findProvider({ providerId: 'acme-cloud' })).to.equal(undefined);
    });

    it('agrees with the reference computation from per-million prices on random LLM calls, reported costs and other spans', () => {
      const reported = fc.option(fc.constantFrom<AttributeValue>(0, 0.0042, '1.5', 'n/a', true), { nil: undefined, freq: 3 });
      // The instrumentation's own cost, valid or not, often beside vendor.cost or the other convention's.
      const instrumentation = fc.dictionary(
        fc.constantFrom('gen_ai.usage.cost', 'llm.cost.total'),
        fc.constantFrom<AttributeValue>(0, 0.0021, '0.5', -1, '-0', 'NaN', 'free', true, null),
        { maxKeys: 2 },
      );
      const other = fc.dictionary(fc.constantFrom(...GENAI_KEYS), fc.constantFrom<AttributeValue>('gpt-4o', 'x', 3, '12', -1, null), {
        maxKeys: 4,
      });
      const calls = fc.oneof({ weight: 3, arbitrary: llmCallAttributes }, { weight: 1, arbitrary: other });
      fc.assert(
        fc.property(calls, reported, instrumentation, (drawn, cost, own) => {
          const attributes: Attributes = { ...drawn, ...own, ...(cost === undefined ? {} : { 'vendor.cost': cost }) };
          // 'gpt-4o' beside the known models: priced by the book but not by the reference, so left out of `other`.
          fc.pre(!Object.values(drawn).includes('gpt-4o'));
          const json = JSON.stringify(attributes);
          const want = expectedCostColumns(expectedReportedCost(json, numberOf), expectedGenAiColumns(json));
          const got = costOf(attributes);
          expect({ ...got, cost: null }).to.deep.equal({ ...want, cost: null });
          if (want.cost === null || got.cost === null) expect(got.cost).to.equal(want.cost);
          else expect(isClose(got.cost, want.cost, 1e-12), `${got.cost} vs ${want.cost}`).to.equal(true);
        }),
        { numRuns: 500 },
      );
    });
  });

  const KINDS: Array<[number, string]> = [
    [0, 'SPAN_KIND_UNSPECIFIED'],
    [1, 'SPAN_KIND_INTERNAL'],
    [2, 'SPAN_KIND_SERVER'],
    [3, 'SPAN_KIND_CLIENT'],
    [4, 'SPAN_KIND_PRODUCER'],
    [5, 'SPAN_KIND_CONSUMER'],
    [6, 'SPAN_KIND_UNSPECIFIED'],
    [-1, 'SPAN_KIND_UNSPECIFIED'],
  ];
  for (const [kind, name] of KINDS) {
    it(`stores kind ${kind} as ${name}`, () => {
      expect(map([span({ kind })]).rows[0].span_kind).to.equal(name);
    });
  }

  it('treats an all-zero parent id as no parent', () => {
    expect(map([span({ parentSpanId: '0000000000000000' })]).rows[0].parent_span_id).to.equal(null);
  });

  const TEXT: Array<[unknown, string | null]> = [
    ['x', 'x'],
    [42, '42'],
    [true, 'true'],
    [null, null],
    [undefined, null],
    [['a', 1], '["a",1]'],
    [{ k: 'v' }, '{"k":"v"}'],
  ];
  for (const [given, want] of TEXT) {
    it(`reads ${JSON.stringify(given)} as the text ${JSON.stringify(want)}`, () => {
      expect(textOf(given as never)).to.equal(want);
    });
  }

  const NUMBERS: Array<[unknown, number | null]> = [
    [0.25, 0.25],
    [3, 3],
    ['1.5', 1.5],
    [' 2e3 ', 2000],
    ['9007199254740993', 9007199254740992],
    ['NaN', null],
    ['Infinity', null],
    ['0x10', null],
    ['', null],
    ['cheap', null],
    [true, null],
    [[1], null],
    [null, null],
  ];
  for (const [given, want] of NUMBERS) {
    it(`reads ${JSON.stringify(given)} as the number ${want}`, () => {
      expect(numberOf(given as never)).to.equal(want);
    });
  }

  const REJECTED: Array<[string, Partial<DecodedSpan>, string]> = [
    ['a 5-byte trace id', { traceId: 'abcdef0123' }, 'invalid trace_id: must be 16 bytes (32 hex digits)'],
    ['an all-zero trace id', { traceId: '0'.repeat(32) }, 'invalid trace_id: all zeros'],
    ['a trace id that is not hex', { traceId: 'g'.repeat(32) }, 'invalid trace_id: must be 16 bytes (32 hex digits)'],
    ['an empty span id', { spanId: '' }, 'invalid span_id: must be 8 bytes (16 hex digits)'],
    ['an all-zero span id', { spanId: '0'.repeat(16) }, 'invalid span_id: all zeros'],
    ['a 4-byte parent id', { parentSpanId: 'abcdef01' }, 'invalid parent_span_id: must be 8 bytes (16 hex digits)'],
    ['no start time', { startTimeUnixNano: '0' }, 'missing start_time_unix_nano'],
    ['no end time', { endTimeUnixNano: '0' }, 'missing end_time_unix_nano'],
    ['an end before the start', { startTimeUnixNano: '200', endTimeUnixNano: '100' }, 'end time before start time'],
    ['a time past 2^63', { startTimeUnixNano: '100', endTimeUnixNano: '9223372036854775808' }, 'time out of range (after the year 2262)'],
    ['a span name over 65,535 bytes', { name: 'é'.repeat(40_000) }, 'span_name longer than 65535 bytes'],
    ['a unit over 65,535 bytes', { attributes: { 'vendor.unit': 'u'.repeat(65_536) } }, 'unit longer than 65535 bytes'],
    ['a status message over 65,535 bytes', { statusMessage: 'm'.repeat(65_536) }, 'status_message longer than 65535 bytes'],
    [
      'a link to a 4-byte span id',
      { links: [{ traceId: TRACE, spanId: 'abcdef01', traceState: '', attributes: {}, droppedAttributesCount: 0 }] },
      'invalid link span_id: must be 8 bytes (16 hex digits)',
    ],
    [
      'a link to an all-zero trace id',
      { links: [{ traceId: '0'.repeat(32), spanId: 'abcdef0123456789', traceState: '', attributes: {}, droppedAttributesCount: 0 }] },
      'invalid link trace_id: all zeros',
    ],
    [
      'an event time past 2^63',
      { events: [{ name: 'e', timeUnixNano: '9223372036854775808', attributes: {}, droppedAttributesCount: 0 }] },
      'event time out of range (after the year 2262)',
    ],
  ];
  for (const [name, overrides, problem] of REJECTED) {
    it(`rejects a span with ${name} and stores the rest`, () => {
      const good = span({ spanId: '1111111111111111' });
      const bad = span(overrides);
      const { rows, partialSuccess } = map([good, bad]);
      expect(rows.map((row) => row.span_id)).to.deep.equal(['1111111111111111']);
      expect(partialSuccess).to.deep.equal({ rejectedSpans: 1, errorMessage: `span ${bad.spanId || '(no span_id)'}: ${problem}` });
    });
  }

  it('maps status codes by name, events and links as JSON with exact times, and the scope', () => {
    const scope = { name: 'lib', version: '' };
    const events: DecodedEvent[] = [
      {
        name: 'exception',
        timeUnixNano: '1795355100123456789',
        attributes: { 'exception.type': 'E', 'exception.message': 'é "quoted"' },
        droppedAttributesCount: 1,
      },
      { name: 'tick', timeUnixNano: '0', attributes: {}, droppedAttributesCount: 0 },
    ];
    const links = [{ traceId: TRACE, spanId: 'aaaaaaaaaaaaaaaa', traceState: '', attributes: { n: 1 }, droppedAttributesCount: 0 }];
    const { rows } = map([
      span({
        spanId: '1111111111111111',
        statusCode: 2,
        statusMessage: 'boom',
        events,
        links,
        droppedAttributesCount: 4,
        droppedEventsCount: 5,
        droppedLinksCount: 6,
        scope,
      }),
      span({ spanId: '2222222222222222', statusCode: 1 }),
      span({ spanId: '3333333333333333', statusCode: 9 }),
    ]);
    expect(rows[0]).to.deep.include({
      status_code: 'STATUS_CODE_ERROR',
      status_message: 'boom',
      scope_name: 'lib',
      scope_version: null,
      dropped_attributes_count: 4,
      dropped_events_count: 5,
      dropped_links_count: 6,
    });
    expect(rows[0]?.events).to.equal(
      '[{"name":"exception","time_unix_nano":1795355100123456789,"attributes":{"exception.type":"E","exception.message":"é \\"quoted\\""},"dropped_attributes_count":1},' +
        '{"name":"tick","time_unix_nano":0,"attributes":null,"dropped_attributes_count":0}]',
    );
    expect(JSON.parse(rows[0]?.links ?? 'null')).to.deep.equal([
      { trace_id: TRACE, span_id: 'aaaaaaaaaaaaaaaa', trace_state: null, attributes: { n: 1 }, dropped_attributes_count: 0 },
    ]);
    expect(rows.map((row) => row.status_code)).to.deep.equal(['STATUS_CODE_ERROR', 'STATUS_CODE_OK', 'STATUS_CODE_UNSET']);
  });

  it('stores equal start and end times (a zero duration)', () => {
    const { rows } = map([span({ endTimeUnixNano: '1795355100123456789' })]);
    expect(rows[0].duration_ms).to.equal(0);
  });

  it('spells out the first ten reasons and counts the rest', () => {
    const bad = Array.from({ length: 13 }, (_, index) => span({ spanId: (index + 1).toString(16).padStart(16, '0'), traceId: 'ab' }));
    const { rows, partialSuccess } = map(bad);
    expect(rows).to.deep.equal([]);
    expect(partialSuccess?.rejectedSpans).to.equal(13);
    expect(partialSuccess?.errorMessage.split('; ')).to.have.length(11);
    expect(partialSuccess?.errorMessage).to.match(/; and 3 more$/);
  });
});
