// Which price a call of a model would get at a time, as ingestion decides it
// (src/ingest/computed-cost.ts): the organization's entry in force, else the default book, else
// none with the reason. For the management API's effective price (getEffectivePrice).
import { unitPricesOf, type BookUnitPrices } from './default-price-book.js';
import type { OrganizationPrices, PriceEntry } from './price-entries.js';

export type EffectivePrice =
  | { source: 'entry'; entry: PriceEntry }
  | { source: 'default_book'; prices: BookUnitPrices }
  | { source: null; reason: 'unknown_model' | 'no_price_in_force' };

export function effectivePrice(prices: OrganizationPrices, model: string, provider: string | null, atMs: number): EffectivePrice {
  const match = prices.match(model, provider, atMs);
  if (match.entry !== null) return { source: 'entry', entry: match.entry };
  const book = unitPricesOf(model, provider, atMs);
  if (book !== null) return { source: 'default_book', prices: book };
  return { source: null, reason: match.elsewhere ? 'no_price_in_force' : 'unknown_model' };
}
