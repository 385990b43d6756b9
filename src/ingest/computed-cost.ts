// A span's cost and where it came from, decided at ingestion as openapi/engine.yaml documents it
// (exportTraces, "Computed cost"): a reported cost wins (`vendor.cost`, else the instrumentation's
// own, genai-usage.ts); otherwise an LLM call with a
// model and an input or output count is priced at its start time by the organization's price
// entry in force (src/pricing/price-entries.ts), else by the default price book; otherwise it
// stays unpriced with its reason. A span with none of the model and token fields is no LLM call
// and has no reason. The one place a span's cost fields are decided: whatever recomputes a stored
// span's cost calls costFields too, with the organization's entries.
import { DEFAULT_BOOK_CURRENCY, priceOf } from '../pricing/default-price-book.js';
import { entryPrice, type OrganizationPrices } from '../pricing/price-entries.js';
import type { SpanRow } from '../storage/spans/span-store.js';
import type { GenAiFields } from './genai-usage.js';

export type CostFields = Pick<
  SpanRow,
  'cost' | 'cost_source' | 'price_model' | 'price_provider' | 'price_book' | 'unpriced_reason' | 'price_entry_id' | 'price_currency'
>;

const NOT_PRICED = { price_model: null, price_provider: null, price_book: null, price_entry_id: null, price_currency: null } as const;

type UnpricedReason = NonNullable<SpanRow['unpriced_reason']>;

// One shared answer per reason (read, never changed, by the callers).
const UNPRICED = Object.fromEntries(
  (['no_model', 'no_usage', 'unknown_model', 'no_price_in_force', 'invalid_usage'] as const).map((reason) => [
    reason,
    { cost: null, cost_source: null, ...NOT_PRICED, unpriced_reason: reason },
  ]),
) as Record<UnpricedReason, CostFields>;

const NO_LLM_CALL: CostFields = { cost: null, cost_source: null, ...NOT_PRICED, unpriced_reason: null };

/**
 * The cost fields of a span: `reportedCost` is `vendor.cost`'s numeric reading, else the
 * instrumentation's cost (null when none); `prices` are the entries of the span's organization (NO_PRICE_ENTRIES when it has none).
 */
export function costFields(
  reportedCost: number | null,
  genAi: GenAiFields,
  startTimeUnixNano: string,
  prices: OrganizationPrices,
): CostFields {
  if (reportedCost !== null) return { cost: reportedCost, cost_source: 'reported', ...NOT_PRICED, unpriced_reason: null };
  const { model, input_tokens: input, output_tokens: output } = genAi;
  if (model === null) {
    const llmCall =
      genAi.provider !== null ||
      input !== null ||
      output !== null ||
      genAi.cache_read_tokens !== null ||
      genAi.cache_creation_tokens !== null ||
      genAi.total_tokens !== null;
    return llmCall ? UNPRICED.no_model : NO_LLM_CALL;
  }
  // A total alone cannot be priced: input and output tokens have different prices.
  if (input === null && output === null) return UNPRICED.no_usage;
  const usage = {
    input: input ?? 0,
    output: output ?? 0,
    cache_read: genAi.cache_read_tokens,
    cache_creation: genAi.cache_creation_tokens,
  };
  // The book reads times as Dates, and entries are in force by the millisecond: whole milliseconds.
  const atMs = Number(BigInt(startTimeUnixNano) / 1_000_000n);
  const match = prices.match(model, genAi.provider, atMs);
  if (match.entry !== null) {
    const { entry } = match;
    const price = entryPrice(entry, usage);
    if (!price.priced) return UNPRICED[price.reason];
    return {
      cost: price.cost,
      cost_source: 'computed',
      price_model: entry.model,
      price_provider: entry.provider,
      price_book: null,
      unpriced_reason: null,
      price_entry_id: entry.id,
      price_currency: entry.currency,
    };
  }
  const price = priceOf(model, genAi.provider, usage, atMs);
  if (!price.priced) return UNPRICED[price.reason === 'unknown_model' && match.elsewhere ? 'no_price_in_force' : price.reason];
  return {
    cost: price.cost,
    cost_source: 'computed',
    price_model: price.model,
    price_provider: price.provider,
    price_book: price.book,
    unpriced_reason: null,
    price_entry_id: null,
    price_currency: DEFAULT_BOOK_CURRENCY,
  };
}
