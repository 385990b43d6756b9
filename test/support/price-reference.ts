// The reference's price book for the models the tests' generators use: per-million-token prices
// read off the default book once, one direction at a time (1,000,000 tokens of it), and the cost
// of a span's usage computed from them by hand, without the book's own arithmetic. Every other
// model text the generators draw is one the book does not know (checked in
// test/ingest/span-mapping.test.ts).
import fs from 'node:fs';
import { calcPrice } from '@pydantic/genai-prices';

/** The book's version as the service names it: the dependency's unscoped name and the exact version package.json pins. */
export const REFERENCE_BOOK_VERSION = `genai-prices ${
  (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies['@pydantic/genai-prices']
}`;

/** The models the generators price, each with the provider text a GenAI span sends for it. */
export const KNOWN_MODELS = [
  { model: 'gpt-4o-mini', provider: 'openai' },
  { model: 'claude-3-5-haiku-20241022', provider: 'anthropic' },
] as const;

/** A model text the book prices under no provider. */
export const UNKNOWN_MODEL = 'acme-unreleased-1';

export interface ReferenceEntry {
  /** The book's ids of the entry that prices the model. */
  model: string;
  provider: string;
  /** USD per million tokens of each kind; a cache kind the book has no price for costs as input. */
  perMillion: { input: number; output: number; cache_read: number; cache_creation: number };
  /** Whether cache writes have a price of their own (then they are taken out of the input tokens priced as input). */
  writesApart: boolean;
  /** Whether the entry has one price for all time (the generators' spans lie in several years). */
  undated: boolean;
}

// Prices are read at one time: the entries chosen have one price for all time (`undated`).
const AT = new Date(Date.UTC(2026, 0, 1));

function readOff(model: string, providerId: string | undefined): ReferenceEntry {
  const options = { ...(providerId === undefined ? {} : { providerId }), timestamp: AT };
  const price = (usage: Record<string, number>) => {
    const answer = calcPrice(usage, model, options);
    if (answer === null) throw new Error(`the book prices no ${model}`);
    return answer;
  };
  const M = 1_000_000;
  const input = price({ input_tokens: M, output_tokens: 0 });
  return {
    model: input.model.id,
    provider: input.provider.id,
    perMillion: {
      input: input.total_price,
      output: price({ input_tokens: 0, output_tokens: M }).total_price,
      cache_read: price({ input_tokens: M, output_tokens: 0, cache_read_tokens: M }).total_price,
      cache_creation: price({ input_tokens: M, output_tokens: 0, cache_write_tokens: M }).total_price,
    },
    writesApart: input.model_price.cache_write_mtok !== undefined,
    undated: !Array.isArray(input.model.prices),
  };
}

/** Each known model, read with its provider named (`named`) and with none (`alone`). */
export const REFERENCE_BOOK = new Map<string, { provider: string; named: ReferenceEntry; alone: ReferenceEntry }>(
  KNOWN_MODELS.map(({ model, provider }) => [model, { provider, named: readOff(model, provider), alone: readOff(model, undefined) }]),
);

export interface ReferenceUsage {
  input: number;
  output: number;
  cache_read: number;
  cache_creation: number;
}

/** The cost of the usage by the entry's unit prices, or null when the cached counts exceed the input they are part of. */
export function referenceCost(entry: ReferenceEntry, usage: ReferenceUsage): number | null {
  const cachedApart = usage.cache_read + (entry.writesApart ? usage.cache_creation : 0);
  if (cachedApart > usage.input) return null;
  const p = entry.perMillion;
  const creation = entry.writesApart ? usage.cache_creation : 0;
  return (
    ((usage.input - cachedApart) * p.input + usage.cache_read * p.cache_read + creation * p.cache_creation + usage.output * p.output) /
    1_000_000
  );
}

/**
 * The organization's price entry the generators' LLM calls meet: the unknown model's family under
 * the provider text the book does not know (`acme-cloud`, test/support/llm-calls.ts), in EUR, in
 * force from `validFromMs` on. Written as the management API stores it, for costFields.
 */
export function referenceOrganizationEntry(validFromMs: number) {
  return {
    id: 'pe_Reference0000000001',
    provider: 'ACME-Cloud',
    model: 'acme-*',
    input_price: 0.5,
    output_price: 1.5,
    cache_read_price: 0.05,
    cache_creation_price: null,
    request_price: 0.0001,
    currency: 'EUR',
    valid_from: validFromMs,
    valid_to: null,
  };
}

export type ReferenceOrganizationEntry = ReturnType<typeof referenceOrganizationEntry>;

/** Whether the entry prices a call of this provider and model, at some time: texts compared case-insensitively, `acme-*` by hand. */
export function referenceEntryMatches(entry: ReferenceOrganizationEntry, provider: string | null, model: string): boolean {
  return provider !== null && provider.toLowerCase() === entry.provider.toLowerCase() && model.toLowerCase().startsWith('acme-');
}

/** The cost of the usage by the entry's prices (cache writes at the input price), or null when the cached counts exceed the input. */
export function referenceEntryCost(entry: ReferenceOrganizationEntry, usage: ReferenceUsage): number | null {
  if (usage.cache_read + usage.cache_creation > usage.input) return null;
  const fresh = usage.input - usage.cache_read - usage.cache_creation;
  return (
    (fresh * entry.input_price +
      usage.cache_read * entry.cache_read_price +
      usage.cache_creation * entry.input_price +
      usage.output * entry.output_price) /
      1_000_000 +
    entry.request_price
  );
}
