// What the prices page (ui/src/views/prices.tsx) computes outside of rendering: the organization's
// price entries newest first over the API's oldest-first pages, an entry form's texts to and from
// the API's bodies (validity in UTC), and the unpriced LLM calls of an application as one
// POST /engine/analytics request (openapi/engine.yaml, "Computed cost" at POST /v1/traces) summed
// over its buckets.
// Types only, named with .js: test/dashboard/prices.test.ts loads this module under Node's resolution.
import type { components as ManagementSchemas } from '../../src/generated/management.js';
import type { components as EngineSchemas } from '../../src/generated/engine.js';
import { formatIsoText } from './time-format.js';

export type PriceEntry = ManagementSchemas['schemas']['PriceEntry'];
export type PriceEntryCreate = ManagementSchemas['schemas']['PriceEntryCreate'];
export type PriceEntryUpdate = ManagementSchemas['schemas']['PriceEntryUpdate'];
export type EffectivePrice = ManagementSchemas['schemas']['EffectivePrice'];
export type UnpricedReason = EngineSchemas['schemas']['UnpricedReason'];
type AnalyticsRequest = EngineSchemas['schemas']['AnalyticsRequest'];
type AnalyticsResponse = EngineSchemas['schemas']['AnalyticsResponse'];
type AnalyticsPoint = EngineSchemas['schemas']['AnalyticsPoint'];

/** Entries a page of the table (and the `limit` of the API pages it reads). */
export const ENTRY_PAGE_SIZE = 20;

/** Where the `shown`-th page of entries, newest first, lies in the API's oldest-first pages of `size`. */
export interface NewestFirstWindow {
  /** The API pages to read (1-indexed, `limit` = size), in order; none when there is nothing to show. */
  pages: number[];
  /** How many of those pages' entries, taken together, come before the window. */
  skip: number;
  /** How many entries the window holds. */
  count: number;
}

/**
 * The API lists entries oldest first (`created_at`, then id) and pages by number: the newest
 * `size` entries are the last `size` of `total`, which straddle at most two API pages.
 */
export function newestFirstWindow(total: number, size: number, shown: number): NewestFirstWindow {
  const end = total - (shown - 1) * size;
  if (end <= 0) return { pages: [], skip: 0, count: 0 };
  const start = Math.max(0, end - size);
  const first = Math.floor(start / size) + 1;
  const last = Math.ceil(end / size);
  const pages = Array.from({ length: last - first + 1 }, (_, index) => first + index);
  return { pages, skip: start - (first - 1) * size, count: end - start };
}

/** The window's entries, newest first, from its pages' entries in the API's order. */
export function newestFirstRows<T>(items: T[], window: NewestFirstWindow): T[] {
  return items.slice(window.skip, window.skip + window.count).reverse();
}

/** How many pages of `size` the table has (one, empty, when there is no entry). */
export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}

/** An entry form's fields as typed: every one a text, empty for "not set". */
export interface EntryDraft {
  provider: string;
  model: string;
  input_price: string;
  output_price: string;
  cache_read_price: string;
  cache_creation_price: string;
  request_price: string;
  currency: string;
  /** `YYYY-MM-DDTHH:mm[:ss]` in UTC, what a datetime-local input holds. */
  valid_from: string;
  valid_to: string;
}

export type EntryField = keyof EntryDraft;

export const ENTRY_FIELDS: EntryField[] = [
  'provider',
  'model',
  'input_price',
  'output_price',
  'cache_read_price',
  'cache_creation_price',
  'request_price',
  'currency',
  'valid_from',
  'valid_to',
];

export const EMPTY_DRAFT: EntryDraft = {
  provider: '',
  model: '',
  input_price: '',
  output_price: '',
  cache_read_price: '',
  cache_creation_price: '',
  request_price: '',
  currency: 'USD',
  valid_from: '',
  valid_to: '',
};

/** An instant as a datetime-local input's value read as UTC, to the second (entries rarely carry a fraction). */
export function utcInputValue(iso: string | null): string {
  return iso === null ? '' : iso.slice(0, 19);
}

/** A datetime-local value read as UTC, as RFC 3339; a value that is no time is sent as typed, for the service to refuse. */
export function instantOf(value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  const date = new Date(`${text}Z`);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

/** An instant as the page writes it: UTC, to the second, with the milliseconds only when there are some. */
export function formatUtc(iso: string): string {
  const epochMs = Date.parse(iso);
  return formatIsoText(iso, 'UTC', { ms: Number.isFinite(epochMs) && epochMs % 1000 !== 0 });
}

function priceText(value: number | null): string {
  return value === null ? '' : String(value);
}

/** A price as typed: empty is `null`; anything else goes as the number it reads as, for the service to check. */
function priceOf(text: string): number | null {
  return text.trim() === '' ? null : Number(text.trim());
}

export function draftOf(entry: PriceEntry): EntryDraft {
  return {
    provider: entry.provider ?? '',
    model: entry.model,
    input_price: priceText(entry.input_price),
    output_price: priceText(entry.output_price),
    cache_read_price: priceText(entry.cache_read_price),
    cache_creation_price: priceText(entry.cache_creation_price),
    request_price: priceText(entry.request_price),
    currency: entry.currency,
    valid_from: utcInputValue(entry.valid_from),
    valid_to: utcInputValue(entry.valid_to),
  };
}

/** Every field of the form as the API takes it (`null` where the form is empty). */
function fieldsOf(draft: EntryDraft) {
  return {
    provider: draft.provider.trim() === '' ? null : draft.provider.trim(),
    model: draft.model.trim(),
    input_price: priceOf(draft.input_price),
    output_price: priceOf(draft.output_price),
    cache_read_price: priceOf(draft.cache_read_price),
    cache_creation_price: priceOf(draft.cache_creation_price),
    request_price: priceOf(draft.request_price),
    currency: draft.currency.trim(),
    valid_from: instantOf(draft.valid_from),
    valid_to: instantOf(draft.valid_to),
  };
}

export function createBody(draft: EntryDraft): PriceEntryCreate {
  // An empty required price (its input is required, so only by script) goes as null, which the
  // service refuses at its field: never a price the user did not type.
  return fieldsOf(draft) as PriceEntryCreate;
}

/**
 * The fields the form changed, as a PATCH body; empty when nothing changed. Compared as the API
 * reads them, not as typed: `0.50` is `0.5`, and a time input may drop zero seconds.
 */
export function updateBody(entry: PriceEntry, draft: EntryDraft): PriceEntryUpdate {
  const before = fieldsOf(draftOf(entry));
  const fields = fieldsOf(draft);
  const update: Record<string, unknown> = {};
  for (const field of ENTRY_FIELDS) {
    if (fields[field] !== before[field]) update[field] = fields[field];
  }
  return update as PriceEntryUpdate;
}

/** Why a call went unpriced, in words (UnpricedReason, openapi/engine.yaml). */
export const REASON_LABELS: Record<UnpricedReason, string> = {
  no_model: 'no model named',
  no_usage: 'no input or output token count',
  unknown_model: 'unknown model',
  no_price_in_force: 'no price in force at the time',
  invalid_usage: 'cached tokens above the input tokens',
};

export function reasonLabel(reason: string | null): string {
  return reason === null ? 'none' : (REASON_LABELS[reason as UnpricedReason] ?? reason);
}

export const UNPRICED_WINDOWS = { '24h': 24 * 3_600_000, '7d': 7 * 86_400_000 } as const;
export type UnpricedWindow = keyof typeof UNPRICED_WINDOWS;

/** Groups listed before the rest is folded into one "other" row (the most the engine lists). */
export const UNPRICED_ROW_LIMIT = 100;

/**
 * The LLM calls left without a cost, counted with their tokens by model, provider and reason,
 * the most frequent first (the engine's example, with the provider so a price can name it).
 * Day buckets: one or seven over the windows offered, summed by unpricedRows.
 */
export function unpricedRequest(): AnalyticsRequest {
  return {
    grain: 'spans',
    filter: { field: 'pricing.unpriced_reason', op: 'exists' },
    group_by: ['model', 'provider', 'pricing.unpriced_reason'],
    granularity: 'day',
    measures: [{ fn: 'count' }, { fn: 'sum', field: 'tokens.total' }],
    order_by: { measure: 0, direction: 'desc' },
    row_limit: UNPRICED_ROW_LIMIT,
  };
}

export interface UnpricedRow {
  model: string | null;
  provider: string | null;
  reason: string | null;
  calls: number;
  /** The sum of `tokens.total`; `null` when no call of the group had one. */
  tokens: number | null;
}

function totals(points: AnalyticsPoint[]): { calls: number; tokens: number | null } {
  let calls = 0;
  let tokens: number | null = null;
  for (const point of points) {
    calls += point.values[0] ?? 0;
    const sum = point.values[1] ?? null;
    if (sum !== null) tokens = (tokens ?? 0) + sum;
  }
  return { calls, tokens };
}

/** The answer's groups over the whole window, in the engine's order, and the folded rest. */
export function unpricedRows(answer: AnalyticsResponse): { rows: UnpricedRow[]; other: { calls: number; tokens: number | null } | null } {
  const rows = answer.groups.map((group) => ({
    model: group.key.model ?? null,
    provider: group.key.provider ?? null,
    reason: group.key['pricing.unpriced_reason'] ?? null,
    ...totals(group.points),
  }));
  return { rows, other: answer.other ? totals(answer.other.points) : null };
}

/** Whether a price entry would price the group's calls: a model is named and no price matched it. */
export function mayBePriced(row: UnpricedRow): boolean {
  return row.model !== null && (row.reason === 'unknown_model' || row.reason === 'no_price_in_force');
}

/** The entry form's texts for a group's calls: its model, and its provider when the calls name one. */
export function draftFor(row: UnpricedRow): EntryDraft {
  return { ...EMPTY_DRAFT, model: row.model ?? '', provider: row.provider ?? '' };
}
