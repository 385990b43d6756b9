// A span's cost and where it came from, decided at ingestion as openapi/engine.yaml documents it
// (exportTraces, "Computed cost"): a reported cost wins (`vendor.cost`, else the instrumentation's
// own, genai-usage.ts); otherwise an LLM call with a model and an input or output count is priced
// from the default price book at its start time; otherwise it stays unpriced with its reason. A span with none of the model and token fields
// is no LLM call and has no reason.
import { priceOf } from '../pricing/default-price-book.js';
import type { SpanRow } from '../storage/spans/span-store.js';
import type { GenAiFields } from './genai-usage.js';

export type CostFields = Pick<SpanRow, 'cost' | 'cost_source' | 'price_model' | 'price_provider' | 'price_book' | 'unpriced_reason'>;

const NOT_PRICED = { price_model: null, price_provider: null, price_book: null } as const;

function unpriced(reason: NonNullable<SpanRow['unpriced_reason']>): CostFields {
  return { cost: null, cost_source: null, ...NOT_PRICED, unpriced_reason: reason };
}

const NO_MODEL = unpriced('no_model');
const NO_USAGE = unpriced('no_usage');
const NO_LLM_CALL: CostFields = { cost: null, cost_source: null, ...NOT_PRICED, unpriced_reason: null };

/** The cost fields of a span: `reportedCost` is `vendor.cost`'s numeric reading, else the instrumentation's cost (null when none). */
export function costFields(reportedCost: number | null, genAi: GenAiFields, startTimeUnixNano: string): CostFields {
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
    return llmCall ? NO_MODEL : NO_LLM_CALL;
  }
  // A total alone cannot be priced: the book prices input and output tokens differently.
  if (input === null && output === null) return NO_USAGE;
  const usage = {
    input: input ?? 0,
    output: output ?? 0,
    cache_read: genAi.cache_read_tokens,
    cache_creation: genAi.cache_creation_tokens,
  };
  // The book reads times as Dates: whole milliseconds.
  const price = priceOf(model, genAi.provider, usage, Number(BigInt(startTimeUnixNano) / 1_000_000n));
  if (!price.priced) return unpriced(price.reason);
  return {
    cost: price.cost,
    cost_source: 'computed',
    price_model: price.model,
    price_provider: price.provider,
    price_book: price.book,
    unpriced_reason: null,
  };
}
