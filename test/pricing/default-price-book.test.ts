// The default price book's shortcuts change no price: a (provider, model) pair priced again, through
// what the book matched for it the first time, costs exactly what @pydantic/genai-prices computes
// from the whole book, at every time and for every usage.
import { expect } from 'chai';
import { calcPrice, findProvider } from '@pydantic/genai-prices';
import { priceOf, type PriceAnswer, type TokenUsage } from '../../src/pricing/default-price-book.js';

/** What the package itself answers, asked about the whole book, as priceOf words it. */
function wholeBook(model: string, provider: string | null, usage: TokenUsage, atMs: number): PriceAnswer {
  const providerId = provider === null ? undefined : findProvider({ providerId: provider })?.id;
  const counts: Record<string, number> = { input_tokens: usage.input, output_tokens: usage.output };
  if (usage.cache_read !== null) counts.cache_read_tokens = usage.cache_read;
  if (usage.cache_creation !== null) counts.cache_write_tokens = usage.cache_creation;
  try {
    const price = calcPrice(counts, model, { ...(providerId === undefined ? {} : { providerId }), timestamp: new Date(atMs) });
    if (price === null) return { priced: false, reason: 'unknown_model' };
    const cost = Number(price.total_price.toPrecision(15));
    return { priced: true, cost, model: price.model.id, provider: price.provider.id, book: 'genai-prices 0.1.8' };
  } catch {
    return { priced: false, reason: 'invalid_usage' };
  }
}

// Provider texts as instrumentations send them (the book's ids, names it maps, names it does not
// know, none), dated model names, a match through a fallback provider, prices that changed.
const PAIRS: Array<[string, string | null]> = [
  ['gpt-4o-mini-2024-07-18', 'openai'],
  ['gpt-4o-mini', null],
  ['gpt-4o', 'azure.ai.openai'],
  ['gpt-4o', 'azure'],
  ['o3', 'openai'],
  ['claude-3-5-haiku-20241022', 'anthropic'],
  ['claude-sonnet-4-20250514', 'acme-cloud'],
  ['gemini-2.5-flash', 'gcp.vertex_ai'],
  ['gemini-2.5-pro', 'google'],
  ['anthropic.claude-3-5-sonnet-20241022-v2:0', 'aws.bedrock'],
  ['mistral-large-latest', 'mistral_ai'],
  ['openai/gpt-4o', 'litellm'],
  ['acme-unreleased-1', 'openai'],
];
const USAGES: TokenUsage[] = [
  { input: 5120, output: 1680, cache_read: 4096, cache_creation: null },
  { input: 2000, output: 500, cache_read: 1000, cache_creation: 200 },
  // Past a tier of gemini-2.5-pro.
  { input: 250_000, output: 3, cache_read: null, cache_creation: null },
  { input: 0, output: 1_000_000, cache_read: null, cache_creation: null },
  // Cached tokens above the input they are part of.
  { input: 10, output: 1, cache_read: 11, cache_creation: null },
];
// Before and after o3's price change (2025-06-10), and at the workload's day.
const TIMES = ['2025-06-09T23:59:59.999Z', '2025-06-10T00:00:00Z', '2026-11-22T08:30:00Z'].map((iso) => Date.parse(iso));

describe('default price book', () => {
  for (const [model, provider] of PAIRS) {
    it(`prices ${model} (${provider ?? 'no provider'}) again exactly as the whole book does`, () => {
      // The first call finds the match; the others go through it.
      for (let round = 0; round < 2; round += 1)
        for (const atMs of TIMES)
          for (const usage of USAGES) {
            expect(priceOf(model, provider, usage, atMs), `${JSON.stringify(usage)} at ${new Date(atMs).toISOString()}`).to.deep.equal(
              wholeBook(model, provider, usage, atMs),
            );
          }
    });
  }
});
