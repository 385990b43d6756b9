// The sources a span read can be answered from, as plain data: what each keeps (the roll-ups'
// dimensions and widths, the fold's hours) and the plan a read is executed by. The planner
// (src/traces/read-planner.ts) writes the plan from these facts; the reads (reads/analytics-reads.ts,
// reads/metric-ranks.ts) execute it. No Knex and no SQL here, so that the planner stays pure.
import type { FilterColumn } from './filter-targets.js';
import type { IndexedSlot } from './indexed-slots.js';
import type { SpanRow } from './span-row.js';

/** The columns a roll-up keeps apart: the text columns whose values repeat from span to span. */
export const ROLLUP_DIMENSIONS = [
  'span_kind',
  'status_code',
  'span_name',
  'service_name',
  'unit',
  'parent_unit',
  'billing_resource_type',
  'billing_resource_name',
  'billing_service_id',
  'billing_service_name',
  'billing_sku_id',
  'billing_sku_name',
  'billing_region',
  'usage_unit',
  'scope_name',
] as const satisfies ReadonlyArray<FilterColumn & keyof SpanRow>;

export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/** The measure fields whose figures (count, sum, min, max) the roll-ups keep; no other (the token counts) is in them. */
export const ROLLUP_MEASURE_FIELDS = ['duration_ms', 'cost', 'usage.amount'] as const;

export type RollupMeasureField = (typeof ROLLUP_MEASURE_FIELDS)[number];

/** Bucket widths the roll-ups keep, in seconds, coarsest first (the order a plan tries them in). */
export const ROLLUP_WIDTHS_S = [3600, 60] as const;

/** The fold files a trace's figures under the hour its root starts in. */
export const HOUR_NS = 3_600_000_000_000n;

/** The hour (since the epoch, floored) a root start in nanoseconds falls in. */
export function hourOf(startNs: bigint): bigint {
  const hour = startNs / HOUR_NS;
  return startNs < 0n && hour * HOUR_NS !== startNs ? hour - 1n : hour;
}

/** The start, in nanoseconds, of the hour a time falls in (floored, also before 1970). */
export function hourStartOf(ns: bigint): bigint {
  return hourOf(ns) * HOUR_NS;
}

/**
 * What a read must check in its own snapshot before trusting a source, by name:
 * - `none`: the source is exact as it is;
 * - `after_purge_edge`: the window starts at or above the application's purge edge, so no roll-up
 *   bucket of it lost spans to retention (purge-edge.ts);
 * - `slot_buckets_counted`: as `after_purge_edge`, and every bucket's slot_rollups rows of the slot's
 *   generation count as many spans as span_rollups does, none holds a value the slot does not keep;
 * - `pending_within_limit`: at most MAX_PENDING summaries wait to be filed (fold/trace-figures.ts).
 */
export type ExactnessCheck = 'none' | 'after_purge_edge' | 'slot_buckets_counted' | 'pending_within_limit';

/** span_rollups at one width: its whole buckets end at bucketsEndNs, the rest (under a minute) is read from the spans. */
export interface PlannedSpanRollups {
  source: 'span_rollups';
  check: 'after_purge_edge';
  widthS: number;
  bucketsEndNs: bigint;
  /** The roll-up column of each group_by field, in order. */
  dimensions: RollupDimension[];
}

/** slot_rollups of one ready slot at one width; the window is whole buckets (bucketsEndNs is its end). */
export interface PlannedSlotRollups {
  source: 'slot_rollups';
  check: 'slot_buckets_counted';
  widthS: number;
  bucketsEndNs: bigint;
  slot: IndexedSlot;
}

/** The folded trace figures: the window's whole hours [firstHour, endHour) and its partial edges. */
export interface PlannedFold {
  source: 'trace_fold';
  check: 'pending_within_limit';
  /** The hour the window starts in (the origin of the buckets' hours). */
  startHour: bigint;
  firstHour: bigint;
  endHour: bigint;
  /** Bucket width in hours; null: the window is one bucket. */
  widthHours: bigint | null;
  /** The windows [from, to) before the first and after the last whole hour, read from the summaries. */
  edges: Array<[bigint, bigint]>;
}

export type PlannedSource =
  PlannedSpanRollups | PlannedSlotRollups | PlannedFold | { source: 'spans'; check: 'none' } | { source: 'trace_summaries'; check: 'none' };

export type SourceName = PlannedSource['source'];

/** Which sources a read tries, cheapest first; the last is always exact as it is (check `none`). */
export interface ReadPlan {
  sources: PlannedSource[];
}
