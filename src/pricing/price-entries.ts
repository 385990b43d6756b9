// An organization's price entries, which override or extend the default price book (README.md
// beside this file): which entry prices an LLM call at a time, what it costs, and the rules an
// entry's own texts must keep. Pure: the entries come from storage, through price-entry-cache.ts
// at ingestion and straight from the table for the management API.
import { roundedCost, type TokenUsage } from './default-price-book.js';

/** One price entry as matching and pricing read it; times are epoch milliseconds, null: unbounded. */
export interface PriceEntry {
  id: string;
  /** Null matches any provider text, and a span that names none. */
  provider: string | null;
  /** An exact model name, or a pattern in which `*` stands for any run of characters. */
  model: string;
  /** Per million tokens, in `currency`. */
  input_price: number;
  output_price: number;
  /** Null: as input_price. */
  cache_read_price: number | null;
  cache_creation_price: number | null;
  /** Per call, in `currency`; null: none. */
  request_price: number | null;
  currency: string;
  /** In force from valid_from (inclusive) to valid_to (exclusive). */
  valid_from: number | null;
  valid_to: number | null;
}

/** The longest model text an entry may have, in characters (code points, as the document counts them). */
export const MAX_MODEL_LENGTH = 256;

/**
 * How entries compare texts: case-insensitively, by JavaScript's own lower-casing, which is the
 * same on every database (SQL LOWER is ASCII-only on SQLite and collation-bound on MariaDB).
 */
export function foldCase(text: string): string {
  return text.toLowerCase();
}

/** Why a model text cannot be an entry's model (undefined when it can); `*` is its only metacharacter. */
export function modelTextProblem(model: string): string | undefined {
  if ([...model].length > MAX_MODEL_LENGTH) return `model must be at most ${MAX_MODEL_LENGTH} characters`;
  if (model.trim() === '') return 'model must name a model, or be a pattern such as gpt-4o*';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(model)) return 'model must not contain control characters';
  if (model.includes('**')) return 'model must not hold `**`: one `*` already matches any run of characters';
  return undefined;
}

/** Whether an ISO 4217 alphabetic code this runtime knows (Intl.supportedValuesOf('currency')). */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
export function isCurrencyCode(code: string): boolean {
  return CURRENCIES.has(code);
}

/** Whether two entries would price the same spans: the same provider (null equals null) and model text, both compared case-insensitively. */
export function sameTarget(a: Pick<PriceEntry, 'provider' | 'model'>, b: Pick<PriceEntry, 'provider' | 'model'>): boolean {
  const provider = (entry: Pick<PriceEntry, 'provider'>) => (entry.provider === null ? null : foldCase(entry.provider));
  return provider(a) === provider(b) && foldCase(a.model) === foldCase(b.model);
}

/** Whether two validity windows [from, to) share an instant (null: unbounded on that side). */
export function windowsOverlap(a: Pick<PriceEntry, 'valid_from' | 'valid_to'>, b: Pick<PriceEntry, 'valid_from' | 'valid_to'>): boolean {
  const startsBeforeEnd = (from: number | null, to: number | null) => from === null || to === null || from < to;
  return startsBeforeEnd(a.valid_from, b.valid_to) && startsBeforeEnd(b.valid_from, a.valid_to);
}

/** Whether the entry is in force at `atMs` (valid_from ≤ at < valid_to). */
export function inForce(entry: Pick<PriceEntry, 'valid_from' | 'valid_to'>, atMs: number): boolean {
  return (entry.valid_from === null || entry.valid_from <= atMs) && (entry.valid_to === null || atMs < entry.valid_to);
}

/** An entry ready to match: its texts folded once, a pattern split at its stars. */
interface Compiled {
  entry: PriceEntry;
  provider: string | null;
  model: string;
  /** A pattern's literal runs between stars (first and last anchored); undefined for an exact model. */
  segments: string[] | undefined;
  /** Characters of the model text that are not `*`. */
  literals: number;
}

function compile(entry: PriceEntry): Compiled {
  const model = foldCase(entry.model);
  const pattern = model.includes('*');
  return {
    entry,
    provider: entry.provider === null ? null : foldCase(entry.provider),
    model,
    segments: pattern ? model.split('*') : undefined,
    literals: [...entry.model].filter((character) => character !== '*').length,
  };
}

/**
 * Whether `text` (folded) matches a pattern's segments: the first must start it, the last end it,
 * the others follow in order between them. Taking each middle segment at its first place is
 * always right when `*` is the only metacharacter, and is linear in practice (no backtracking).
 */
function matchesSegments(segments: string[], text: string): boolean {
  const first = segments[0] as string;
  const last = segments[segments.length - 1] as string;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let index = 1; index < segments.length - 1; index += 1) {
    const segment = segments[index] as string;
    const found = text.indexOf(segment, at);
    if (found === -1 || found + segment.length > end) return false;
    at = found + segment.length;
  }
  return true;
}

/**
 * The order of precedence (README.md beside this file): an entry naming the provider before one
 * with none, an exact model before a pattern, a pattern with more literal characters before one
 * with fewer, then the smaller model text (by UTF-16 code units), then the smaller id.
 */
function precedence(a: Compiled, b: Compiled): number {
  return (
    Number(a.provider === null) - Number(b.provider === null) ||
    Number(a.segments !== undefined) - Number(b.segments !== undefined) ||
    b.literals - a.literals ||
    compareText(a.entry.model, b.entry.model) ||
    compareText(a.entry.id, b.entry.id)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Which entry prices a call at a time: one in force, or none (and whether one matches at another time). */
export type EntryMatch = { entry: PriceEntry } | { entry: null; elsewhere: boolean };

const NO_MATCH: EntryMatch = { entry: null, elsewhere: false };
const ELSEWHERE: EntryMatch = { entry: null, elsewhere: true };

// The (provider, model) texts come from senders: the memo of their candidates is bounded and
// starts over when full, as the default book's maps do.
const MAX_MEMO = 10_000;

/** One organization's entries, compiled for matching; immutable apart from its memo of candidates. */
export class OrganizationPrices {
  private readonly compiled: Compiled[];
  /** Per (provider, model) pair, the entries matching it at some time, best first. */
  private readonly candidates = new Map<string, PriceEntry[]>();

  constructor(readonly entries: readonly PriceEntry[]) {
    this.compiled = entries.map(compile).sort(precedence);
  }

  /** The entries that match the pair at some time, in precedence order. */
  private candidatesOf(model: string, provider: string | null): PriceEntry[] {
    const key = `${provider ?? ''}\u0000${provider === null ? 0 : 1}\u0000${model}`;
    let found = this.candidates.get(key);
    if (found === undefined) {
      const foldedModel = foldCase(model);
      const foldedProvider = provider === null ? null : foldCase(provider);
      found = this.compiled
        .filter(
          (candidate) =>
            (candidate.provider === null || candidate.provider === foldedProvider) &&
            (candidate.segments === undefined ? candidate.model === foldedModel : matchesSegments(candidate.segments, foldedModel)),
        )
        .map((candidate) => candidate.entry);
      if (this.candidates.size >= MAX_MEMO) this.candidates.clear();
      this.candidates.set(key, found);
    }
    return found;
  }

  /** The entry that prices a call of `model` (and `provider`, null when the span names none) starting at `atMs`. */
  match(model: string, provider: string | null, atMs: number): EntryMatch {
    if (this.compiled.length === 0) return NO_MATCH;
    const candidates = this.candidatesOf(model, provider);
    if (candidates.length === 0) return NO_MATCH;
    const entry = candidates.find((candidate) => inForce(candidate, atMs));
    return entry === undefined ? ELSEWHERE : { entry };
  }
}

/** An organization without entries: every call goes to the default book. */
export const NO_PRICE_ENTRIES = new OrganizationPrices([]);

export type EntryPrice = { priced: true; cost: number } | { priced: false; reason: 'invalid_usage' };

const INVALID_USAGE: EntryPrice = { priced: false, reason: 'invalid_usage' };

/**
 * The cost of `usage` by the entry, in its currency, to 15 significant digits as the book's: the
 * input tokens not read from or written to the cache at input_price, the cached ones at their
 * own prices (input_price where the entry has none), the output tokens at output_price, plus the
 * per-call price. Cached counts above the input count they are part of are invalid usage.
 */
export function entryPrice(entry: PriceEntry, usage: TokenUsage): EntryPrice {
  const cacheRead = usage.cache_read ?? 0;
  const cacheCreation = usage.cache_creation ?? 0;
  if (cacheRead + cacheCreation > usage.input) return INVALID_USAGE;
  const perMillion =
    (usage.input - cacheRead - cacheCreation) * entry.input_price +
    cacheRead * (entry.cache_read_price ?? entry.input_price) +
    cacheCreation * (entry.cache_creation_price ?? entry.input_price) +
    usage.output * entry.output_price;
  return { priced: true, cost: roundedCost(perMillion / 1_000_000 + (entry.request_price ?? 0)) };
}
