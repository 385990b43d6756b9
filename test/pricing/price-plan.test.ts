// Every plan of the bundled book prices exactly as calcPrice does: for each provider's model entry
// (and each of its prices, where they change over time) that has a plan, a grid of token counts
// gives calcPrice's total_price to the last bit, or is refused by both.
import { expect } from 'chai';
import { calcPrice, waitForUpdate, type ModelPrice, type Provider } from '@pydantic/genai-prices';
import type { TokenUsage } from '../../src/pricing/default-price-book.js';
import { planOf, plannedTotal } from '../../src/pricing/price-plan.js';

const COUNTS = [0, 1, 7, 999, 4096, 123_457, 1_000_000, 987_654_321_001];
const CACHED = [null, 0, 3, 4096, 1_000_001];

/** The package's answer for `usage` priced by `prices` of `model` (its entry forced by its own name). */
function packageTotal(provider: Provider, model: Provider['models'][number], prices: ModelPrice, usage: TokenUsage): number | null {
  const counts: Record<string, number> = { input_tokens: usage.input, output_tokens: usage.output };
  if (usage.cache_read !== null) counts.cache_read_tokens = usage.cache_read;
  if (usage.cache_creation !== null) counts.cache_write_tokens = usage.cache_creation;
  const entry = { ...model, match: { equals: 'the-entry' }, prices };
  try {
    const price = calcPrice(counts, 'the-entry', { provider: { ...provider, models: [entry], fallback_model_providers: undefined } });
    if (price === null) throw new Error(`${provider.id}/${model.id}: the entry did not match`);
    return price.total_price;
  } catch (error) {
    if (error instanceof Error && error.message.includes('did not match')) throw error;
    return null;
  }
}

describe('price plans', () => {
  it('price every planned entry of the bundled book exactly as calcPrice does, refusing the same counts', async () => {
    const book = await waitForUpdate();
    expect(book?.length, 'providers in the bundled book').to.be.greaterThan(10);
    let planned = 0;
    let compared = 0;
    for (const provider of book ?? []) {
      for (const model of provider.models) {
        // A plan is made of one price for all time; each price of a changing entry is checked as if it were one.
        const pricesList = Array.isArray(model.prices) ? model.prices.map((conditional) => conditional.prices) : [model.prices];
        for (const prices of pricesList) {
          const plan = planOf(prices);
          if (plan === undefined) continue;
          planned += 1;
          COUNTS.forEach((input, index) => {
            const output = COUNTS[(index * 3 + 1) % COUNTS.length] as number;
            for (const cache_read of CACHED)
              for (const cache_creation of CACHED) {
                const usage = { input, output, cache_read, cache_creation };
                const want = packageTotal(provider, model, prices, usage);
                const got = plannedTotal(plan, usage);
                compared += 1;
                if (!Object.is(got, want)) {
                  expect.fail(`${provider.id}/${model.id} ${JSON.stringify(prices)} ${JSON.stringify(usage)}: ${got} vs ${want}`);
                }
              }
          });
        }
      }
    }
    // Most of the book has plain prices (1,554 of 1,694 entries in genai-prices 0.1.8).
    expect(planned).to.be.greaterThan(1000);
    expect(compared).to.equal(planned * COUNTS.length * CACHED.length * CACHED.length);
  });

  it('leaves tiers, a price per request and prices that change over time to calcPrice', () => {
    expect(planOf({ input_mtok: { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] }, output_mtok: 10 } as never)).to.equal(undefined);
    expect(planOf({ input_mtok: 1, requests_kcount: 5 })).to.equal(undefined);
    expect(
      planOf([{ prices: { input_mtok: 10 } }, { constraint: { start_date: '2025-06-10', type: 'start_date' }, prices: { input_mtok: 2 } }]),
    ).to.equal(undefined);
    expect(planOf({ input_mtok: 0.15, cache_read_mtok: 0.075, output_mtok: 0.6, web_searches_kcount: 10 })).to.deep.equal({
      input: [
        ['input', 0.15],
        ['cache_read', 0.075],
      ],
      output: 0.6,
      inputPriced: true,
      cacheReadPriced: true,
      cacheWritePriced: false,
    });
  });
});
