// The model, provider and token counts of an LLM call, read at ingestion from the attributes of
// the OpenTelemetry GenAI semantic conventions (v1.37/1.38, with the names they deprecated) and of
// OpenInference, as openapi/engine.yaml (exportTraces, "Model and token usage") documents, and the
// cost an instrumentation reports itself ("Computed cost"): per field the first attribute present
// wins. Only fixed keys of the decoded map are read (this runs for every span received);
// `vendor.*` attributes are not read here.
import type { AttributeValue, Attributes } from './otlp-request.js';
import type { SpanRow } from '../storage/spans/span-store.js';
import { numberOf, textOf } from './derived-values.js';

/** The largest token count stored; above it a count is taken for garbage and left out. */
export const MAX_TOKEN_COUNT = 1_000_000_000_000;

// Leading zeros aside, more than 13 digits is always above MAX_TOKEN_COUNT.
const DIGITS = /^0*[0-9]{1,13}$/;

/**
 * A token count: a JSON number that is an integer, or a string of decimal digits, from 0 to
 * MAX_TOKEN_COUNT; anything else (negative, fractional, other text, a boolean, an array) is null.
 */
export function tokenCountOf(value: AttributeValue): number | null {
  let count: number;
  if (typeof value === 'number') count = value;
  else if (typeof value === 'string' && DIGITS.test(value)) count = Number(value);
  else return null;
  // `+ 0` turns -0 into 0.
  return Number.isInteger(count) && count >= 0 && count <= MAX_TOKEN_COUNT ? count + 0 : null;
}

/** The first of the keys whose attribute is set (an empty value counts as unset), or undefined. */
function first(attributes: Attributes, a: string, b?: string, c?: string, d?: string): AttributeValue | undefined {
  let value = attributes[a];
  if (value !== undefined && value !== null) return value;
  if (b === undefined) return undefined;
  value = attributes[b];
  if (value !== undefined && value !== null) return value;
  if (c === undefined) return undefined;
  value = attributes[c];
  if (value !== undefined && value !== null) return value;
  if (d === undefined) return undefined;
  value = attributes[d];
  return value !== undefined && value !== null ? value : undefined;
}

/** undefined: no attribute sent; null: sent, but no valid count. */
function countOf(value: AttributeValue | undefined): number | null | undefined {
  return value === undefined ? undefined : tokenCountOf(value);
}

export type GenAiFields = Pick<
  SpanRow,
  'model' | 'provider' | 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_creation_tokens' | 'total_tokens'
>;

/** The model, provider and token counts the span's attributes carry (null where none does). */
export function genAiFields(attributes: Attributes): GenAiFields {
  const input = countOf(first(attributes, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt'));
  const output = countOf(first(attributes, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion'));
  const sentTotal = countOf(first(attributes, 'llm.token_count.total', 'gen_ai.usage.total_tokens'));
  let total: number | null;
  if (sentTotal !== undefined) total = sentTotal;
  // Added up only from valid counts: a direction sent with a bad count leaves the total unknown.
  else if (input === null || output === null || (input === undefined && output === undefined)) total = null;
  else {
    const sum = (input ?? 0) + (output ?? 0);
    total = sum <= MAX_TOKEN_COUNT ? sum : null;
  }
  return {
    model: textOf(first(attributes, 'gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name')),
    provider: textOf(first(attributes, 'gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system')),
    input_tokens: input ?? null,
    output_tokens: output ?? null,
    cache_read_tokens:
      countOf(first(attributes, 'gen_ai.usage.cache_read.input_tokens', 'llm.token_count.prompt_details.cache_read')) ?? null,
    cache_creation_tokens:
      countOf(first(attributes, 'gen_ai.usage.cache_creation.input_tokens', 'llm.token_count.prompt_details.cache_write')) ?? null,
    total_tokens: total,
  };
}

/**
 * The cost in USD the instrumentation reports itself: OpenLIT's `gen_ai.usage.cost`, else
 * OpenInference's `llm.cost.total` (the first set wins). Read as `vendor.cost` is (a number, or
 * text that reads as one); only a finite number above 0 is a cost: OpenLIT sends 0 for a model
 * its price list lacks, which says the cost is unknown, not free.
 */
export function instrumentationCostOf(attributes: Attributes): number | null {
  const value = first(attributes, 'gen_ai.usage.cost', 'llm.cost.total');
  if (value === undefined) return null;
  const cost = numberOf(value);
  return cost !== null && cost > 0 ? cost : null;
}
