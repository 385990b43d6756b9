// POST /traces's read: the traces whose root starts in the window and that match a filter (on
// the root span, or on any span), as a page of summaries, latest first, and their total.
import type { Knex } from 'knex';
import type { FilterNode } from '../../../filter/ast.js';
import { bigintAsText } from '../../database.js';
import { afterKey, type SortColumn } from '../../keyset.js';
import { lookAheadWindow, pageAndTotal, readPage, withNextKey, type ListPage, type ListRequest } from '../../paging.js';
import { dialectFor } from '../../sql/index.js';
import { compileFilter } from '../filter-sql.js';
import { targetOfResolved, type FieldTarget, type FilterColumn, type TraceSummaryColumn } from '../filter-targets.js';
import type { SnapshotRead, WindowFilter } from '../reads/span-pages.js';
import { asNumber } from '../stored-span.js';
import { betweenNanos } from '../time-bounds.js';
import { matchRows, slotValueMatch, type SlotValueMatch } from '../slots/trace-slot-values.js';

export interface StoredTraceSummary {
  trace_id: string;
  span_name: string;
  duration_ms: number;
  spans_count: number;
  total_cost: number;
  error_count: number;
  min_start_time_unix_nano: string;
  service_name: string | null;
  unit: string | null;
  parent_unit: string | null;
}

// The root's span_name, service_name, unit and parent_unit are copied into its trace summary;
// a filter on root spans that reads nothing else needs no join to the root span.
const SUMMARY_COLUMNS: ReadonlySet<FilterColumn> = new Set(['trace_id', 'span_name', 'service_name', 'unit', 'parent_unit']);

/** What each condition of the filter reads, as validation resolved it. */
function filterTargets(node: FilterNode | null, out: FieldTarget[] = []): FieldTarget[] {
  if (node === null) return out;
  if (node.kind === 'condition') out.push(targetOfResolved(node.resolved));
  else if (node.kind === 'not') filterTargets(node.child, out);
  else node.children.forEach((child) => filterTargets(child, out));
  return out;
}

/** The start times of the spans of a window's traces: at least `startNs`, at most `endNs`. */
export interface SpanTimes {
  startNs: bigint;
  endNs: bigint;
}

/** The columns POST /traces sorts by (`sort`), each a summary column; ties are broken by trace_id ascending. */
export const TRACE_SORTS = ['start_time', 'total_cost', 'duration_ms', 'spans_count'] as const;
export type TraceSortKey = (typeof TRACE_SORTS)[number];

export interface TraceSort {
  by: TraceSortKey;
  order: 'asc' | 'desc';
}

/** The list's order when the request names none: latest first. */
export const DEFAULT_TRACE_SORT: TraceSort = { by: 'start_time', order: 'desc' };

const SORT_COLUMNS: Record<TraceSortKey, Omit<SortColumn, 'order'>> = {
  // A trace is placed by its earliest span, not its root: the order the list has always had.
  start_time: { column: 't.min_start_time_unix_nano', integer: true },
  total_cost: { column: 't.total_cost', integer: false, double: true },
  duration_ms: { column: 't.duration_ms', integer: false, double: true },
  spans_count: { column: 't.spans_count', integer: true },
};

/** The keyset of a sort: its column in its direction, then trace_id ascending. */
export function traceOrder(sort: TraceSort): SortColumn[] {
  return [
    { ...SORT_COLUMNS[sort.by], order: sort.order },
    { column: 't.trace_id', order: 'asc', integer: false },
  ];
}

/** The key a cursor resumes after, from the last summary of a page. */
function summaryKey(sort: TraceSort, summary: StoredTraceSummary): string[] {
  const value = sort.by === 'start_time' ? summary.min_start_time_unix_nano : String(summary[sort.by]);
  return [value, summary.trace_id];
}

export interface TraceQuery extends WindowFilter {
  /** false: the filter tests each trace's root span; true: at least one of its spans. */
  searchChildSpans: boolean;
  /** The list's order; DEFAULT_TRACE_SORT when absent. */
  sort?: TraceSort;
  /**
   * With searchChildSpans, from windowSpanTimes() in the same snapshot: the matching spans are
   * found by one range of the window's span times instead of a lookup per trace. null: the window
   * holds no trace.
   */
  spanTimes?: SpanTimes | null;
  /** Only what was received by then (epoch milliseconds): an export's snapshot (matchingTraces). */
  receivedBy?: number;
}

/**
 * The span times of the window's traces, for matchingTraces(): every span of a trace starts no
 * earlier than the trace's first span and no later than its last end. undefined when the filter
 * needs no spans read (none, or a match of indexed slot values); null when no trace is in the
 * window. Read in the transaction of the reads it bounds, so that they see the same traces.
 */
export async function windowSpanTimes(knex: Knex, query: WindowFilter): Promise<SpanTimes | null | undefined> {
  if (query.filter === null || slotValueMatch(query.filter, query.indexedSlots)) return undefined;
  const [row] = (await spanTimesQuery(knex, query)) as Array<{ first: string | null; last: string | null }>;
  if (!row || row.first === null || row.last === null) return null;
  return { startNs: BigInt(row.first), endNs: BigInt(row.last) };
}

/** windowSpanTimes()'s read: the earliest start and the latest end of the traces whose root starts in the window, as text. */
export function spanTimesQuery(knex: Knex, query: WindowFilter): Knex.QueryBuilder {
  return knex({ t: 'traces' })
    .where('t.application_id', query.applicationId)
    .whereNotNull('t.root_start_time_unix_nano')
    .modify(betweenNanos(dialectFor(knex), 't.root_start_time_unix_nano', query.startNs, query.endNs))
    .select({ first: bigintAsText(knex, 'MIN(t.min_start_time_unix_nano)'), last: bigintAsText(knex, 'MAX(t.max_end_time_unix_nano)') });
}

/** The trace's root span, as `r`. */
function joinRoot(builder: Knex.QueryBuilder): Knex.QueryBuilder {
  return builder.join({ r: 'spans' }, (join) => {
    join.on('r.application_id', 't.application_id').andOn('r.trace_id', 't.trace_id').andOn('r.span_id', 't.root_span_id');
  });
}

/**
 * Traces whose root starts in the window and that match the filter (a builder over `traces t`).
 * With `query.receivedBy` (an export's snapshot), only traces whose root span was received by
 * then, matched (with searchChildSpans) by a span received by then.
 */
export function matchingTraces(knex: Knex, query: TraceQuery): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  const { receivedBy } = query;
  const builder = knex({ t: 'traces' })
    .where('t.application_id', query.applicationId)
    // A trace without a root (no parentless and no SERVER span) belongs to no window.
    .whereNotNull('t.root_start_time_unix_nano')
    .modify(betweenNanos(dialect, 't.root_start_time_unix_nano', query.startNs, query.endNs));
  if (receivedBy !== undefined) joinRoot(builder).where('r.received_at', '<=', receivedBy);
  if (query.filter === null) return builder;
  // trace.* fields read the summary of the span's trace: `t`, the trace at hand.
  const traceColumn = (name: TraceSummaryColumn) => `t.${name}`;
  if (query.searchChildSpans) {
    // The indexed values and the span-time range know nothing of receipt: a snapshot reads the spans.
    if (receivedBy === undefined) {
      // A value of an indexed attribute: the traces filed under it (trace-slot-values.ts).
      const match = slotValueMatch(query.filter, query.indexedSlots);
      if (match) return builder.whereIn('t.trace_id', matchRows(knex, query.applicationId, match, 'v').select('v.trace_id'));
      if (query.spanTimes !== undefined)
        return builder.join(matchingSpanTraces(knex, query, query.filter, query.spanTimes), 'm.trace_id', 't.trace_id');
    }
    const where = compileFilter(query.filter, { dialect, column: (name) => `s.${name}`, traceColumn, indexedSlots: query.indexedSlots });
    return builder.whereExists((exists) => {
      exists
        .select(knex.raw('1'))
        .from({ s: 'spans' })
        .whereRaw('s.application_id = t.application_id')
        .whereRaw('s.trace_id = t.trace_id')
        .where(where as (inner: Knex.QueryBuilder) => void);
      if (receivedBy !== undefined) exists.where('s.received_at', '<=', receivedBy);
    });
  }
  const onSummary = (name: FilterColumn) => SUMMARY_COLUMNS.has(name);
  const needsRoot = filterTargets(query.filter).some((target) => {
    if (target.kind === 'trace') return false;
    return target.kind === 'attribute' || !onSummary(target.column);
  });
  if (needsRoot && receivedBy === undefined) joinRoot(builder);
  const where = compileFilter(query.filter, {
    dialect,
    column: (name) => (onSummary(name) ? `t.${name}` : `r.${name}`),
    traceColumn,
    indexedSlots: query.indexedSlots,
  });
  return builder.where(where as (inner: Knex.QueryBuilder) => void);
}

/**
 * The distinct trace ids of the spans in `times` that match the filter, as the derived table `m`:
 * one range of the spans' (application_id, start_time_unix_nano) prefix, sized by looking into
 * the index, read once, never per trace. A correlated EXISTS (or an IN the optimizer turns into a
 * semi-join) lets it cost a read per trace from the index statistics instead, and MariaDB, until
 * they caught up with a freshly filled table, read every span of the application once per trace
 * (42 s for 2,800 traces). DISTINCT keeps the table from being merged into the outer read. The
 * range may hold spans of traces outside the window; the join drops them. trace.* fields read the
 * span's own summary `u`, by its primary key after the span.
 */
function matchingSpanTraces(knex: Knex, query: TraceQuery, filter: FilterNode, times: SpanTimes | null): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  const readsTrace = filterTargets(filter).some((target) => target.kind === 'trace');
  const spans = knex
    .distinct('s.trace_id')
    .from(
      readsTrace
        ? knex.raw(`spans AS s ${dialect.leftFirstJoin} traces AS u ON u.application_id = s.application_id AND u.trace_id = s.trace_id`)
        : { s: 'spans' },
    );
  spans.where('s.application_id', query.applicationId);
  if (times === null) spans.whereRaw('1 = 0');
  else spans.modify(betweenNanos(dialect, 's.start_time_unix_nano', times.startNs, times.endNs + 1n));
  const where = compileFilter(filter, {
    dialect,
    column: (name) => `s.${name}`,
    traceColumn: (name) => `u.${name}`,
    indexedSlots: query.indexedSlots,
  });
  return spans.where(where as (inner: Knex.QueryBuilder) => void).as('m');
}

/**
 * The keys (application_id, trace_id, min_start_time_unix_nano, as `t`) of the traces whose root
 * starts in the window and that have a span holding one of the match's slot values: one range of
 * trace_slot_values_window, without reading a summary. Same traces as matchingTraces(); a trace
 * holding several of the values is listed once.
 */
function slotMatchedTraceKeys(knex: Knex, query: TraceQuery, match: SlotValueMatch): Knex.QueryBuilder {
  const inWindow = (alias: string) => (builder: Knex.QueryBuilder) =>
    builder
      .whereNotNull(`${alias}.root_start_time_unix_nano`)
      .modify(betweenNanos(dialectFor(knex), `${alias}.root_start_time_unix_nano`, query.startNs, query.endNs));
  if (match.values.length === 1) return matchRows(knex, query.applicationId, match, 't').modify(inWindow('t'));
  const distinct = matchRows(knex, query.applicationId, match, 'v')
    .distinct('v.application_id', 'v.trace_id', 'v.min_start_time_unix_nano')
    .modify(inWindow('v'));
  return knex.from(distinct.as('t'));
}

/** A row of tracePageQuery() as a summary. */
function summaryOf(row: Record<string, unknown>): StoredTraceSummary {
  return {
    ...(row as unknown as StoredTraceSummary),
    duration_ms: asNumber(row.duration_ms),
    spans_count: asNumber(row.spans_count),
    total_cost: asNumber(row.total_cost),
    error_count: asNumber(row.error_count),
  };
}

/** ORDER BY of a keyset. */
function orderBy(order: SortColumn[]) {
  return order.map(({ column, order: direction }) => ({ column, order: direction }));
}

/**
 * The summaries of `matching` (a matchingTraces() builder) in `order`: the list a page is read
 * from. Sorted after the window is found (traces_by_root_start or the primary key, as the
 * optimizer judges): an index in list order would let a page with few matches walk every older
 * trace of the application, since the window bounds the root's start, not the order. The same
 * holds for cost, duration and span count, whose indexes would also change on every batch that
 * adds to a summary (weighed by `PAGE_COSTS_CASES=sorts npx tsx scripts/lib/page-costs.ts`).
 */
export function tracePageQuery(knex: Knex, matching: Knex.QueryBuilder, order: SortColumn[] = TRACE_ORDER): Knex.QueryBuilder {
  return matching
    .select(
      't.trace_id',
      't.span_name',
      't.duration_ms',
      't.spans_count',
      't.total_cost',
      't.error_count',
      't.service_name',
      't.unit',
      't.parent_unit',
    )
    .select({ min_start_time_unix_nano: bigintAsText(knex, 't.min_start_time_unix_nano') })
    .orderBy(orderBy(order));
}

/**
 * A deep page of `matching` as a deferred join: the window's traces are sorted by their keys
 * alone and `offset` of them passed, then only the page's summaries are read in full. Same rows,
 * same order as the plain offset read of tracePageQuery(...).
 */
export function deepTracePageQuery(
  knex: Knex,
  matching: Knex.QueryBuilder,
  window: { limit: number; offset: number },
  order: SortColumn[] = TRACE_ORDER,
): Knex.QueryBuilder {
  const keys = matching.select('t.application_id', 't.trace_id').orderBy(orderBy(order)).limit(window.limit).offset(window.offset).as('k');
  return tracePageQuery(
    knex,
    knex({ t: 'traces' }).join(keys, (join) => {
      join.on('t.application_id', 'k.application_id').andOn('t.trace_id', 'k.trace_id');
    }),
    order,
  );
}

/** The default list order of trace summaries as a keyset: earliest start descending, then trace id. */
export const TRACE_ORDER: SortColumn[] = traceOrder(DEFAULT_TRACE_SORT);

/**
 * POST /traces: one summary per matching trace, in the query's sort (latest first by default);
 * read after `query.after` when a cursor gives it. The cursor read finds the window as page 1 does (the cursor's bound on
 * min_start_time_unix_nano is one more condition on the rows found), then sorts what is left:
 * EXPLAIN on 200,000 traces (scripts/lib/page-costs.ts) gives the same plan for page 1, page
 * 1000 and the cursor, SQLite "SEARCH t USING INDEX traces_by_root_start ... USE TEMP B-TREE FOR
 * ORDER BY", MariaDB "key=PRIMARY ... Using filesort" (a whole-day window: the application's
 * prefix of the primary key). Page 1000: 109 ms by cursor, 174 ms by offset, 95 ms page 1.
 */
export async function findTraces(knex: Knex, query: TraceQuery & ListRequest): Promise<ListPage<StoredTraceSummary>> {
  const dialect = dialectFor(knex);
  const sort = query.sort ?? DEFAULT_TRACE_SORT;
  const order = traceOrder(sort);
  // trace_slot_values carries the start beside each trace, not its cost, duration or span count:
  // another sort reads the summaries, matchingTraces() finding the same traces through the slot.
  const match = query.searchChildSpans && sort.by === 'start_time' ? slotValueMatch(query.filter, query.indexedSlots) : undefined;
  let nextKey: string[] | null = null;
  const page = await pageAndTotal(
    () => (match ? slotMatchedTraceKeys(knex, query, match) : matchingTraces(knex, query)),
    async (builder, window) => {
      const { after } = query;
      const read = lookAheadWindow(after ? { limit: window.limit, offset: 0 } : window);
      const matching = after ? builder.modify(afterKey(dialect, order, after)) : builder;
      // The keys of a slot match are not summaries: their page is always read by a deferred join.
      const deferred = read.offset !== null && (match !== undefined || (!after && read.offset > 0));
      const rows = (
        deferred && read.offset !== null
          ? await deepTracePageQuery(knex, matching, { limit: read.limit, offset: read.offset }, order)
          : await readPage(tracePageQuery(knex, matching, order), read)
      ) as Array<Record<string, unknown>>;
      const summaries = rows.map(summaryOf);
      const found = withNextKey(summaries, query.limit, (summary) => summaryKey(sort, summary));
      nextKey = found.nextKey;
      return found.items;
    },
    query,
  );
  return { ...page, nextKey };
}

/** A summary's position in the default list order (TRACE_ORDER): its earliest start, then trace_id. */
export function traceKey(summary: StoredTraceSummary): string[] {
  return summaryKey(DEFAULT_TRACE_SORT, summary);
}

/**
 * The next summaries of a trace export: the traces POST /traces pages through in its default
 * order (start_time desc) for the same window, filter and searchChildSpans, from the keyset on,
 * restricted to the snapshot as matchingTraces() says. No total is counted.
 */
export async function snapshotTraces(
  knex: Knex,
  query: WindowFilter & Pick<TraceQuery, 'searchChildSpans'> & SnapshotRead,
): Promise<StoredTraceSummary[]> {
  const matching = matchingTraces(knex, query);
  if (query.after) matching.modify(afterKey(dialectFor(knex), TRACE_ORDER, query.after));
  return ((await tracePageQuery(knex, matching, TRACE_ORDER).limit(query.limit)) as Array<Record<string, unknown>>).map(summaryOf);
}
