// The span store: the one boundary the engine, ingestion and the retention job talk to. It says
// what a span engine does (store a batch, read pages, traces, one trace, metrics, analytics and
// live spans, purge), not how: the SQL engine (sql-span-store.ts) keeps derived structures behind
// it (README.md), a column store would keep materialized views, and neither shows above it.
//
// What a caller may rely on, and a second engine must keep:
// - a stored batch is durable when `store` resolves, and a span (application, trace_id, span_id)
//   is stored once however often it is sent;
// - every read of one call sees one committed state (a page and its total agree);
// - receive positions (`seq`, the live reads) are opaque decimal text, growing per application in
//   the order spans are received; one may become visible after higher ones (a slower writer), so
//   the live feed (src/traces/live-span-feed.ts) waits a grace time for gaps, and nothing above
//   the store assumes they are dense or committed in order;
// - answers never depend on which structure answered: every figure is what the spans give.
import type { ListPage, ListRequest } from '../paging.js';
import type { AnalyticsQuery, AnalyticsRows } from './reads/analytics-reads.js';
import type { RecentSpansQuery, SeqRange } from './reads/live-reads.js';
import type { MetricRanks } from './reads/metric-ranks.js';
import type { SnapshotRead, WindowFilter } from './reads/span-pages.js';
import type { StoredSpan } from './stored-span.js';
import type { SpanRow } from './span-row.js';
import type { TraceDetail, TraceDetailRequest } from './traces/trace-detail.js';
import type { StoredTraceSummary, TraceQuery } from './traces/trace-pages.js';
import type { PurgeBatch } from './writes/span-purge.js';
import type { ReadPlan } from './read-sources.js';
import type { StoreOptions } from './writes/span-writer.js';

/** The live reads of one application, by receive position (GET /traces/live/stream). */
export interface LiveReads {
  /** The highest receive position stored, "0" when none. */
  latestSeq(): Promise<string>;
  /** Positions in (after, upTo], ascending, at most `limit`. */
  seqsBetween(after: string, upTo: string, limit: number): Promise<string[]>;
  countBetween(after: string, upTo: string): Promise<number>;
  spansBySeq(seqs: string[]): Promise<StoredSpan[]>;
  /** Spans above `after`, ascending, at most `limit`. */
  spansAfter(after: string, limit: number): Promise<StoredSpan[]>;
  /** The positions in (after, upTo] no other application's span holds, as ascending ranges. */
  unclaimedBetween(after: string, upTo: string): Promise<SeqRange[]>;
  /** Spans with a position in one of `ranges`, ascending. */
  spansInRanges(ranges: SeqRange[]): Promise<StoredSpan[]>;
}

export interface SpanStore {
  /** Stores a batch of spans (of one application when `options.traceSlots` is given) and everything derived from them. */
  store(rows: SpanRow[], options?: StoreOptions): Promise<void>;
  /** POST /engine/query: the window's matching spans, newest first, a page and the total. */
  spanPage(query: WindowFilter & ListRequest): Promise<ListPage<StoredSpan>>;
  /** POST /traces: the traces whose root starts in the window and that match, in the query's sort (latest first by default). */
  tracePage(query: TraceQuery & ListRequest): Promise<ListPage<StoredTraceSummary>>;
  /**
   * POST /engine/exports at grain spans: the next spans of spanPage's list (same window, filter,
   * order) after a key, received by the export's snapshot; no total.
   */
  snapshotSpans(query: WindowFilter & SnapshotRead): Promise<StoredSpan[]>;
  /**
   * POST /engine/exports at grain traces: the next summaries of tracePage's list in its default
   * order after a key, whose root (and, searching child spans, a matching span) was received by
   * the export's snapshot; no total.
   */
  snapshotTraces(query: WindowFilter & Pick<TraceQuery, 'searchChildSpans'> & SnapshotRead): Promise<StoredTraceSummary[]>;
  /** GET /traces/{trace_id}: the summary and a page of spans in start order; undefined when no span is stored. */
  trace(request: TraceDetailRequest): Promise<TraceDetail | undefined>;
  /**
   * POST /engine/metrics: the statistics of the matching traces' figures, from the first source of
   * the plan (src/traces/read-planner.ts) whose exactness check passes in the read's snapshot.
   */
  metrics(request: WindowFilter, plan: ReadPlan): Promise<MetricRanks>;
  /** POST /engine/analytics: groups and buckets with exact measures, from the plan's sources as for metrics. */
  analytics(request: AnalyticsQuery, plan: ReadPlan): Promise<AnalyticsRows>;
  /** GET /traces/live: the application's spans in receive order, newest first. */
  recentSpans(query: RecentSpansQuery & ListRequest): Promise<ListPage<StoredSpan>>;
  /** GET /traces/live/stream's reads of one application. */
  live(applicationId: string): LiveReads;
  /** Deletes at most `batch.limit` expired spans and what is derived from them; `full`: more may be left. */
  purge(batch: PurgeBatch): Promise<{ deleted: number; full: boolean }>;
}

// What the layers above need besides the operations: the row shapes, the list orders their
// cursors encode, the measures analytics may ask for, and the slot rule ingestion fills slots by.
export type { StoredSpan } from './stored-span.js';
export type { SpanRow } from './span-row.js';
export { SPAN_TEXT_COLUMNS } from './span-row.js';
export { slotValue, type IndexedSlot } from './indexed-slots.js';
export { MAX_STORED_INTEGER } from './time-bounds.js';
export { SPAN_ORDER, spanKey, type SnapshotRead, type WindowFilter } from './reads/span-pages.js';
export {
  TRACE_ORDER,
  TRACE_SORTS,
  traceKey,
  traceOrder,
  type StoredTraceSummary,
  type TraceQuery,
  type TraceSort,
  type TraceSortKey,
} from './traces/trace-pages.js';
export { TRACE_SPAN_ORDER, type StoredTraceOverview, type TraceDetail, type TraceDetailRequest } from './traces/trace-detail.js';
export { LIVE_ORDER, type SeqRange, type RecentSpansQuery } from './reads/live-reads.js';
export { METRIC_PERCENTS, type FigureStatistics, type MetricRanks } from './reads/metric-ranks.js';
export {
  MEASURE_COLUMNS,
  PERCENT_OF,
  TRACE_GROUP_FIELDS,
  type AnalyticsQuery,
  type AnalyticsRows,
  type PercentileFn,
  type StoredMeasure,
  type StoredPoint,
  type StoredValue,
} from './reads/analytics-reads.js';
export { StaleSlotKeysError, type StoreOptions } from './writes/span-writer.js';
export type { PurgeBatch } from './writes/span-purge.js';
// The facts the read planner (src/traces/read-planner.ts) plans from, and its plan's vocabulary.
export * from './read-sources.js';
export { targetOfResolved, type FilterColumn } from './filter-targets.js';
export { MIN_STORED_INTEGER } from './time-bounds.js';
