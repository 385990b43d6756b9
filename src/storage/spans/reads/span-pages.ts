// POST /engine/query's read: a page of the window's spans matching a filter, newest first, and
// their total. A page and its total are two statements run side by side: COUNT(*) over the
// window (over span_slot_values' lookup index for a slot's values), and the page. Spans are read
// in list order from spans_newest_first, which is also their window's index, so a page stops
// early without sorting the window. (COUNT(*) OVER () in one statement was tried: it
// materialises every matching row, 7 s for a day of 1M spans.)
import type { Knex } from 'knex';
import type { FilterNode } from '../../../filter/ast.js';
import { afterKey, type SortColumn } from '../../keyset.js';
import { lookAheadWindow, pageAndTotal, readPage, withNextKey, type ListPage, type ListRequest, type PageWindow } from '../../paging.js';
import { dialectFor } from '../../sql/index.js';
import { compileFilter } from '../filter-sql.js';
import type { IndexedSlot } from '../indexed-slots.js';
import { spanSlotRows } from '../slots/span-slot-values.js';
import { slotValueMatch } from '../slots/trace-slot-values.js';
import { normaliseSpan, selectSpanColumns, type StoredSpan } from '../stored-span.js';
import { betweenNanos } from '../time-bounds.js';

/** The spans (or traces) of one application in `[startNs, endNs)` that match the filter. */
export interface WindowFilter {
  applicationId: string;
  startNs: bigint;
  endNs: bigint;
  filter: FilterNode | null;
  /** The application's ready indexed attribute slots (indexed-slots.ts); [] reads every attribute from its JSON. */
  indexedSlots: readonly IndexedSlot[];
}

/**
 * The spans of the window that match the filter (a builder over `spans s`). `throughSlotValues`:
 * when the filter is a lookup of a slot's values, the spans span_slot_values names, read by their
 * identity, instead of the window's every span checked on the row (for reads of all the matching
 * spans; a page stops early in list order, which the window's own index gives).
 */
export function matchingSpans(knex: Knex, query: WindowFilter, { throughSlotValues = false } = {}): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  const where = compileFilter(query.filter, { dialect, column: (name) => `s.${name}`, indexedSlots: query.indexedSlots });
  const match = throughSlotValues ? slotValueMatch(query.filter, query.indexedSlots) : undefined;
  return knex({ s: 'spans' })
    .where('s.application_id', query.applicationId)
    .modify(betweenNanos(dialect, 's.start_time_unix_nano', query.startNs, query.endNs))
    .modify((builder) => {
      if (where) builder.where(where);
      if (match) builder.whereIn(['s.trace_id', 's.span_id'], spanSlotRows(knex, query, match).select('v.trace_id', 'v.span_id'));
    });
}

/**
 * The rows whose count is the number of the window's spans that match: when the filter is a
 * lookup of a slot's values, the rows of span_slot_values, counted in its lookup index alone (a
 * span holds one value a slot).
 */
function countedSpans(knex: Knex, query: WindowFilter): Knex.QueryBuilder {
  const match = slotValueMatch(query.filter, query.indexedSlots);
  return match ? spanSlotRows(knex, query, match) : matchingSpans(knex, query);
}

/** The stored spans of `matching` (a matchingSpans() builder), newest first: the list a page is read from. */
export function spanPageQuery(knex: Knex, matching: Knex.QueryBuilder): Knex.QueryBuilder {
  return selectSpanColumns(knex, matching, 's').orderBy([
    { column: 's.start_time_unix_nano', order: 'desc' },
    { column: 's.trace_id' },
    { column: 's.span_id' },
  ]);
}

/**
 * A deep page of `matching` as a deferred join: the page's keys are found by walking
 * spans_newest_first alone past `offset` keys (index-only when the filter reads only the
 * window), and only the page's rows are then read in full. Same rows, same order as
 * windowQuery(spanPageQuery(...)); reading every full row before the offset made page 1000 of
 * 200,000 spans cost 30 ms beside 1 ms for the cursor (scripts/lib/page-costs.ts).
 */
export function deepSpanPageQuery(knex: Knex, matching: Knex.QueryBuilder, window: { limit: number; offset: number }): Knex.QueryBuilder {
  const keys = matching
    .select('s.application_id', 's.trace_id', 's.span_id')
    .orderBy([{ column: 's.start_time_unix_nano', order: 'desc' }, { column: 's.trace_id' }, { column: 's.span_id' }])
    .limit(window.limit)
    .offset(window.offset)
    .as('k');
  return spanPageQuery(
    knex,
    knex({ s: 'spans' }).join(keys, (join) => {
      join.on('s.application_id', 'k.application_id').andOn('s.trace_id', 'k.trace_id').andOn('s.span_id', 'k.span_id');
    }),
  );
}

/** The rows of one page: after a cursor's key, from the start (page 1), or past an offset (a deferred join). */
async function readSpanRows(
  knex: Knex,
  matching: Knex.QueryBuilder,
  after: string[] | undefined,
  window: PageWindow,
): Promise<Array<Record<string, unknown>>> {
  if (after) return spanPageQuery(knex, matching.modify(afterKey(dialectFor(knex), SPAN_ORDER, after))).limit(window.limit);
  if (window.offset === null || window.offset === 0) return readPage(spanPageQuery(knex, matching), window);
  return deepSpanPageQuery(knex, matching, { limit: window.limit, offset: window.offset });
}

/** The list order of spans as a keyset: start time descending, then trace and span id ascending. */
export const SPAN_ORDER: SortColumn[] = [
  { column: 's.start_time_unix_nano', order: 'desc', integer: true },
  { column: 's.trace_id', order: 'asc', integer: false },
  { column: 's.span_id', order: 'asc', integer: false },
];

/** A span's position in the list (its SPAN_ORDER key, nanoseconds as exact text). */
export function spanKey(span: StoredSpan): string[] {
  return [span.start_time_unix_nano, span.trace_id, span.span_id];
}

/**
 * POST /engine/query: spans of the window matching the filter, newest first; read after
 * `query.after` when a cursor gives it. EXPLAIN on 200,000 spans (scripts/lib/page-costs.ts)
 * shows the cursor read on spans_newest_first exactly as page 1: SQLite "SEARCH s USING INDEX
 * spans_newest_first (application_id=? AND start_time_unix_nano>? AND <?)", the cursor's bound
 * merged into the range; MariaDB "type=range key=spans_newest_first", no filesort. Page 1000 of
 * 20: 0.8 ms by cursor, 5.6 ms as a deferred join, 28 ms as a plain offset (MariaDB).
 */
export async function findSpans(knex: Knex, query: WindowFilter & ListRequest): Promise<ListPage<StoredSpan>> {
  let nextKey: string[] | null = null;
  const page = await pageAndTotal(
    () => matchingSpans(knex, query),
    async (builder, window) => {
      const rows = (await readSpanRows(knex, builder, query.after, lookAheadWindow(window))).map(normaliseSpan);
      const found = withNextKey(rows, query.limit, spanKey);
      nextKey = found.nextKey;
      return found.items;
    },
    query,
    () => countedSpans(knex, query),
  );
  return { ...page, nextKey };
}

/**
 * Where a bulk export reads on (POST /engine/exports): after `after` in list order (from the start
 * when null), `limit` records at most, of what was received at or before `receivedBy` (epoch
 * milliseconds, the service's clock at receipt: `spans.received_at`).
 */
export interface SnapshotRead {
  receivedBy: number;
  after: string[] | null;
  limit: number;
}

/**
 * The next spans of a span export: the spans POST /engine/query pages through for the same window
 * and filter (matchingSpans, in SPAN_ORDER from the keyset on, along spans_newest_first), received
 * by the snapshot. No total is counted.
 */
export async function snapshotSpans(knex: Knex, query: WindowFilter & SnapshotRead): Promise<StoredSpan[]> {
  const matching = matchingSpans(knex, query).where('s.received_at', '<=', query.receivedBy);
  if (query.after) matching.modify(afterKey(dialectFor(knex), SPAN_ORDER, query.after));
  return ((await spanPageQuery(knex, matching).limit(query.limit)) as Array<Record<string, unknown>>).map(normaliseSpan);
}
