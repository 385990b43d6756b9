// A price entry of the book worked out once: for an entry with plain per-million-token prices for
// all time (most of the book), the price of a span's counts is the package's own sum, term by term
// in the same order, without calcPrice's per-call checks of the entry's price units, which cost
// most of a price. Entries with tiers, a price per request or prices that change over time have
// no plan, and calcPrice prices them. test/pricing/price-plan.test.ts holds every plan of the
// bundled book to calcPrice's exact answers, so an upgrade of the package that priced otherwise
// fails there.
import type { ModelInfo } from '@pydantic/genai-prices';
import type { TokenUsage } from './default-price-book.js';

type Count = 'input' | 'cache_read' | 'cache_write';

export interface PricePlan {
  /** The input direction's per-million prices in the entry's order, with the count each prices. */
  input: Array<[Count, number]>;
  /** The per-million output price, if the entry has one. */
  output: number | undefined;
  /** Whether input tokens are priced apart from their cached parts, which then cannot exceed them. */
  inputPriced: boolean;
  cacheReadPriced: boolean;
  cacheWritePriced: boolean;
}

// The book's price keys for the counts a span carries (TokenUsage). The entry's other units
// (audio, images, searches, 1-hour cache writes, …) count none of them, so they price 0.
const COUNTS: Record<string, Count | 'output'> = {
  input_mtok: 'input',
  cache_read_mtok: 'cache_read',
  cache_write_mtok: 'cache_write',
  output_mtok: 'output',
};

/** The plan of a model entry's prices, or undefined when calcPrice must price them. */
export function planOf(prices: ModelInfo['prices']): PricePlan | undefined {
  if (Array.isArray(prices)) return undefined;
  const plan: PricePlan = { input: [], output: undefined, inputPriced: false, cacheReadPriced: false, cacheWritePriced: false };
  for (const [key, price] of Object.entries(prices)) {
    if (price === undefined) continue;
    // Tiers (by the input count) and a price per request are calcPrice's.
    if (typeof price !== 'number' || key === 'requests_kcount') return undefined;
    const count = COUNTS[key];
    if (count === 'output') plan.output = price;
    else if (count !== undefined) plan.input.push([count, price]);
  }
  plan.inputPriced = plan.input.some(([count]) => count === 'input');
  plan.cacheReadPriced = plan.input.some(([count]) => count === 'cache_read');
  plan.cacheWritePriced = plan.input.some(([count]) => count === 'cache_write');
  return plan;
}

/** The price in USD of `usage` by `plan` (unrounded, as calcPrice's total_price), or null when the counts contradict each other. */
export function plannedTotal(plan: PricePlan, usage: TokenUsage): number | null {
  const cacheRead = usage.cache_read ?? 0;
  const cacheWrite = usage.cache_creation ?? 0;
  // Cached tokens priced apart are taken out of the input tokens they are part of.
  const input = usage.input - (plan.cacheReadPriced ? cacheRead : 0) - (plan.cacheWritePriced ? cacheWrite : 0);
  if (plan.inputPriced && input < 0) return null;
  // As the package sums: each term price × count / 10^6, by direction, input then output.
  let inputPrice = 0;
  for (const [count, price] of plan.input) {
    inputPrice += (price * (count === 'input' ? input : count === 'cache_read' ? cacheRead : cacheWrite)) / 1e6;
  }
  return inputPrice + (plan.output === undefined ? 0 : (plan.output * usage.output) / 1e6);
}
