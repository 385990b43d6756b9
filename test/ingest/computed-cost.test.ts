// costFields with an organization's price entries (src/ingest/computed-cost.ts), without a
// database: the entry in force wins over the book, its provenance, the book where none is in
// force, `no_price_in_force` where the book has no price either, and the boundaries of validity
// to the nanosecond of the span's start.
import { expect } from 'chai';
import { costFields } from '../../src/ingest/computed-cost.js';
import type { GenAiFields } from '../../src/ingest/genai-usage.js';
import { NO_PRICE_ENTRIES, OrganizationPrices, type PriceEntry } from '../../src/pricing/price-entries.js';

const T = Date.UTC(2026, 10, 22); // epoch milliseconds
const atNs = (ms: number, extraNs = 0n) => (BigInt(ms) * 1_000_000n + extraNs).toString();

const EUR_ENTRY: PriceEntry = {
  id: 'pe_00000000000000000eur',
  provider: 'OpenAI',
  model: 'gpt-4o*',
  input_price: 0.14,
  output_price: 0.55,
  cache_read_price: 0.07,
  cache_creation_price: null,
  request_price: null,
  currency: 'EUR',
  valid_from: T,
  valid_to: null,
};
const ANY_PROVIDER: PriceEntry = {
  ...EUR_ENTRY,
  id: 'pe_0000000000000000any',
  provider: null,
  model: 'acme-*',
  currency: 'USD',
  valid_to: T + 1000,
};
const PRICES = new OrganizationPrices([EUR_ENTRY, ANY_PROVIDER]);

function call(
  model: string | null,
  provider: string | null,
  input: number | null,
  output: number | null,
  cacheRead: number | null = null,
): GenAiFields {
  return {
    model,
    provider,
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_creation_tokens: null,
    total_tokens: null,
  };
}

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
const BOOK = (cost: number) => ({
  ...NONE,
  cost,
  cost_source: 'computed',
  price_model: 'gpt-4o-mini',
  price_provider: 'openai',
  price_book: 'genai-prices 0.1.8',
  price_currency: 'USD',
});

describe('computed cost with price entries', () => {
  const CASES: Array<[string, number | null, GenAiFields, string, OrganizationPrices, Record<string, unknown>]> = [
    [
      "the organization's entry in force wins over the book, named as written, in its currency",
      null,
      call('gpt-4o-mini-2024-07-18', 'openai', 5120, 1680, 4096),
      atNs(T),
      PRICES,
      {
        ...NONE,
        cost: 0.00135408,
        cost_source: 'computed',
        price_model: 'gpt-4o*',
        price_provider: 'OpenAI',
        price_entry_id: EUR_ENTRY.id,
        price_currency: 'EUR',
      },
    ],
    [
      'a nanosecond before valid_from: the book prices it, in USD',
      null,
      call('gpt-4o-mini', 'openai', 1_000_000, 0),
      atNs(T, -1n),
      PRICES,
      BOOK(0.15),
    ],
    ['no entries: the book', null, call('gpt-4o-mini', 'openai', 1_000_000, 0), atNs(T), NO_PRICE_ENTRIES, BOOK(0.15)],
    [
      'a null provider matches a span that names none; the provenance has no provider',
      null,
      call('ACME-large', null, 0, 2_000_000),
      atNs(T + 999, 999_999n),
      PRICES,
      { ...NONE, cost: 1.1, cost_source: 'computed', price_model: 'acme-*', price_entry_id: ANY_PROVIDER.id, price_currency: 'USD' },
    ],
    [
      'an entry matching at another time, and no book price: no price in force',
      null,
      call('acme-large', 'vllm', 10, 10),
      atNs(T + 1000),
      PRICES,
      { ...NONE, unpriced_reason: 'no_price_in_force' },
    ],
    [
      'no entry matching at any time, and no book price: unknown model',
      null,
      call('acme-large', null, 10, 10),
      atNs(T),
      NO_PRICE_ENTRIES,
      { ...NONE, unpriced_reason: 'unknown_model' },
    ],
    [
      "cached counts above the input by the entry in force: invalid usage, not the book's price",
      null,
      call('gpt-4o-mini', 'openai', 10, 0, 11),
      atNs(T),
      PRICES,
      { ...NONE, unpriced_reason: 'invalid_usage' },
    ],
    [
      'a reported cost wins over the entry',
      0.5,
      call('gpt-4o-mini', 'openai', 10, 10),
      atNs(T),
      PRICES,
      { ...NONE, cost: 0.5, cost_source: 'reported' },
    ],
  ];
  for (const [name, reported, genAi, start, prices, want] of CASES) {
    it(name, () => {
      const got = costFields(reported, genAi, start, prices);
      expect({ ...got, cost: null }).to.deep.equal({ ...want, cost: null });
      if (want.cost === null) expect(got.cost).to.equal(null);
      else expect(got.cost).to.equal(Number((want.cost as number).toPrecision(15)));
    });
  }
});
