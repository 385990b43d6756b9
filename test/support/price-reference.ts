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
