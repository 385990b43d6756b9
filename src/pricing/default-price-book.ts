// The default price book: the model prices bundled in @pydantic/genai-prices, read as they ship
// (README.md beside this file: USD, no fetching, what the book's version means). One job: the
// price of an LLM call's token usage at a time, or why there is none (and the unit prices behind
// it, for the management API's effective price).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { calcPrice, findProvider, type Provider, type TieredPrices } from '@pydantic/genai-prices';
import { planOf, plannedTotal, type PricePlan } from './price-plan.js';

const PACKAGE = '@pydantic/genai-prices';

/** `genai-prices 0.1.8`: the package's name without its npm scope and its version, from its own package.json. */
function bookVersion(): string {
  const entry = createRequire(import.meta.url).resolve(PACKAGE);
  // The package's exports hide its package.json from resolve(): it sits one folder above dist/.
  const manifest = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return `${manifest.name.replace(/^@[^/]+\//, '')} ${manifest.version}`;
}

/** The version of the default price book, stored with every price it gives. */
export const DEFAULT_PRICE_BOOK = bookVersion();

/** The currency of every price the book gives (the package's data is in US dollars). */
export const DEFAULT_BOOK_CURRENCY = 'USD';

/** Token counts by direction; cache_read and cache_creation are parts of input. */
export interface TokenUsage {
  input: number;
  output: number;
  cache_read: number | null;
  cache_creation: number | null;
}

export type PriceAnswer =
  | { priced: true; cost: number; model: string; provider: string; book: string }
  /** unknown_model: no entry of the book matches (or none is in force then); invalid_usage: the counts contradict each other. */
  | { priced: false; reason: 'unknown_model' | 'invalid_usage' };

// Provider texts and what the book matched for each (provider, model) pair: its entry, or none.
// Model and provider texts come from senders, so both maps are bounded and start over when full.
const MAX_REMEMBERED = 10_000;
const providerIds = new Map<string, string | null>();
/** What the book matched for a (provider, model) pair, to price its later spans. */
interface Match {
  /** The provider entry holding only the model entry that matched, which calcPrice matches again instead of the whole book. */
  provider: Provider;
  /** The entry's prices worked out (price-plan.ts), where they are plain per-token prices for all time. */
  plan: PricePlan | undefined;
}

/** Per (provider, model) pair: its match; `null` when the book knows no entry; `false`: ask the whole book. */
const matches = new Map<string, Match | null | false>();
const UNKNOWN_MODEL: PriceAnswer = { priced: false, reason: 'unknown_model' };
const INVALID_USAGE: PriceAnswer = { priced: false, reason: 'invalid_usage' };

/** The book's id of a provider text (`gcp.vertex_ai` → `google`), or null when the book does not know it. */
function providerIdOf(provider: string | null): string | null {
  if (provider === null || provider === '') return null;
  let id = providerIds.get(provider);
  if (id === undefined) {
    id = findProvider({ providerId: provider })?.id ?? null;
    if (providerIds.size >= MAX_REMEMBERED) providerIds.clear();
    providerIds.set(provider, id);
  }
  return id;
}

/**
 * A price to 15 significant digits: the book's sums carry float noise in the last digits
 * (0.0014688000000000001), and MariaDB's text protocol returns doubles to 15 digits, so a cost
 * kept to 15 reads back as stored on every database.
 */
export function roundedCost(price: number): number {
  return Number(price.toPrecision(15));
}

/**
 * The match behind a price: its provider entry with only its model entry, when calcPrice gives
 * the same price from it as from the whole book, and the entry's plan when it gives that price
 * too; `false` otherwise, should a match ever depend on more than the entry (the whole book is
 * then asked every time).
 */
function matchOf(
  price: NonNullable<ReturnType<typeof calcPrice>>,
  counts: Record<string, number>,
  usage: TokenUsage,
  model: string,
  timestamp: Date,
): Match | false {
  // Whether the model entry matched directly or through a fallback provider, the price names the
  // provider the match started from; without fallbacks it can only match that entry again.
  const provider: Provider = { ...price.provider, models: [price.model], fallback_model_providers: undefined };
  const again = calcPrice(counts, model, { provider, timestamp });
  const same =
    again !== null &&
    again.total_price === price.total_price &&
    again.model.id === price.model.id &&
    again.provider.id === price.provider.id;
  if (!same) return false;
  const plan = planOf(price.model.prices);
  return { provider, plan: plan !== undefined && plannedTotal(plan, usage) === price.total_price ? plan : undefined };
}

/**
 * The price in USD of `usage` of `model` at `atMs` (epoch milliseconds), from the default book. A
 * provider the book knows narrows the match to its models; any other provider text is ignored and
 * the book picks the provider from the model's name.
 */
export function priceOf(model: string, provider: string | null, usage: TokenUsage, atMs: number): PriceAnswer {
  const providerId = providerIdOf(provider);
  const key = `${providerId ?? ''}\u0000${model}`;
  const matched = matches.get(key);
  if (matched === null) return UNKNOWN_MODEL;
  if (matched && matched.plan !== undefined) {
    const total = plannedTotal(matched.plan, usage);
    if (total === null) return INVALID_USAGE;
    const entry = matched.provider;
    return { priced: true, cost: roundedCost(total), model: entry.models[0].id, provider: entry.id, book: DEFAULT_PRICE_BOOK };
  }
  const counts: Record<string, number> = { input_tokens: usage.input, output_tokens: usage.output };
  if (usage.cache_read !== null) counts.cache_read_tokens = usage.cache_read;
  if (usage.cache_creation !== null) counts.cache_write_tokens = usage.cache_creation;
  const timestamp = new Date(atMs);
  const wholeBook = providerId === null ? { timestamp } : { providerId, timestamp };
  let price: ReturnType<typeof calcPrice>;
  try {
    price = calcPrice(counts, model, matched ? { provider: matched.provider, timestamp } : wholeBook);
  } catch {
    // The book refuses cached counts above the input count they are part of.
    return INVALID_USAGE;
  }
  if (matched === undefined) {
    if (matches.size >= MAX_REMEMBERED) matches.clear();
    matches.set(key, price === null ? null : matchOf(price, counts, usage, model, timestamp));
  }
  if (price === null) return UNKNOWN_MODEL;
  return {
    priced: true,
    cost: roundedCost(price.total_price),
    model: price.model.id,
    provider: price.provider.id,
    book: DEFAULT_PRICE_BOOK,
  };
}

/** The book's prices of a model at a time, by direction, as the management API shows them (getEffectivePrice). */
export interface BookUnitPrices {
  model: string;
  provider: string;
  book: string;
  /** USD per million tokens; a cache kind the book has no price of its own for is charged as input. */
  input: number;
  output: number;
  cache_read: number;
  cache_creation: number;
  /** USD per call; null when the entry has no per-call price. */
  request: number | null;
}

/**
 * A price as it applies to the first token: a tiered price's base, unless a tier starts at 0
 * (the book moves to a tier once the input count passes its start).
 */
function firstTokenPrice(price: number | TieredPrices | undefined): number | undefined {
  if (price === undefined || typeof price === 'number') return price;
  let applies = price.base;
  for (const tier of price.tiers) if (1 > tier.start) applies = tier.price;
  return applies;
}

/**
 * The unit prices the book would price a call of `model` at `atMs` with, matched as priceOf
 * matches it (null when the book has no entry): those in force at that instant (a time-of-day
 * price only at that time of day), and of a tiered price the tier of the first token.
 */
export function unitPricesOf(model: string, provider: string | null, atMs: number): BookUnitPrices | null {
  const providerId = providerIdOf(provider);
  if (matches.get(`${providerId ?? ''}\u0000${model}`) === null) return null;
  const timestamp = new Date(atMs);
  const price = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, providerId === null ? { timestamp } : { providerId, timestamp });
  if (price === null) return null;
  const prices = price.model_price;
  const input = firstTokenPrice(prices.input_mtok) ?? 0;
  const requestsPerThousand = firstTokenPrice(prices.requests_kcount);
  return {
    model: price.model.id,
    provider: price.provider.id,
    book: DEFAULT_PRICE_BOOK,
    input,
    output: firstTokenPrice(prices.output_mtok) ?? 0,
    cache_read: firstTokenPrice(prices.cache_read_mtok) ?? input,
    cache_creation: firstTokenPrice(prices.cache_write_mtok) ?? input,
    request: requestsPerThousand === undefined ? null : roundedCost(requestsPerThousand / 1000),
  };
}
