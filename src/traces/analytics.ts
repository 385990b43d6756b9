// The engine's analytics maths (POST /engine/analytics): the time-bucket granularities and the
// choice of one from the window (at most MAX_BUCKETS buckets), the read's plan (read-planner.ts),
// and the answer built from the stored rows (src/storage/spans/reads/analytics-reads.ts):
// percentiles interpolated exactly as trace metrics do (percentileAt), bucket starts as exact
// nanoseconds.
import type { components } from '../generated/engine.js';
import {
  PERCENT_OF,
  type AnalyticsQuery,
  type AnalyticsRows,
  type PercentileFn,
  type StoredPoint,
  type StoredValue,
  type ReadPlan,
} from '../storage/spans/span-store.js';
import { planRead } from './read-planner.js';
import { percentileAt } from './trace-metrics.js';

type Granularity = components['schemas']['AnalyticsResponse']['granularity'];
type AnalyticsResponse = components['schemas']['AnalyticsResponse'];
type AnalyticsGroup = components['schemas']['AnalyticsGroup'];

/** The wire shape: nanoseconds as bigints, which exact-json writes as their digits (src/json/exact-json.ts). */
export type WireAnalyticsPoint = Omit<components['schemas']['AnalyticsPoint'], 'bucket_start_unix_nano'> & {
  bucket_start_unix_nano: bigint;
};
export type WireAnalytics = Omit<AnalyticsResponse, 'bucket_width_ns' | 'groups' | 'other'> & {
  bucket_width_ns: bigint;
  groups: Array<Omit<AnalyticsGroup, 'points'> & { points: WireAnalyticsPoint[] }>;
  other: { points: WireAnalyticsPoint[] } | null;
};

/** The most buckets one answer may hold. */
export const MAX_BUCKETS = 300n;

const SECOND = 1_000_000_000n;

/** Bucket widths in nanoseconds, finest first (the order `auto` tries them in). */
export const GRANULARITY_WIDTHS: ReadonlyArray<readonly [Granularity, bigint]> = [
  ['minute', 60n * SECOND],
  ['five_minutes', 300n * SECOND],
  ['fifteen_minutes', 900n * SECOND],
  ['hour', 3_600n * SECOND],
  ['day', 86_400n * SECOND],
];

/** How many buckets of `widthNs` cover `[startNs, endNs)`. */
export function bucketCount(startNs: bigint, endNs: bigint, widthNs: bigint): bigint {
  return (endNs - startNs + widthNs - 1n) / widthNs;
}

/**
 * The granularity of a request (`auto`: the finest within MAX_BUCKETS; `all`: one bucket, the
 * window's length) and its width; undefined when the window needs more than MAX_BUCKETS buckets
 * of it (of a day, for `auto`).
 */
export function resolveGranularity(
  requested: Granularity | 'auto',
  startNs: bigint,
  endNs: bigint,
): { granularity: Granularity; widthNs: bigint } | undefined {
  // The window is never empty (time-window.ts), so the width is at least 1 ns.
  if (requested === 'all') return { granularity: 'all', widthNs: endNs - startNs };
  const candidates = requested === 'auto' ? GRANULARITY_WIDTHS : GRANULARITY_WIDTHS.filter(([name]) => name === requested);
  const found = candidates.find(([, width]) => bucketCount(startNs, endNs, width) <= MAX_BUCKETS);
  return found && { granularity: found[0], widthNs: found[1] };
}

/** Which sources answer an analytics read, cheapest first (read-planner.ts). */
export function analyticsPlan(query: AnalyticsQuery): ReadPlan {
  return planRead(
    {
      kind: 'analytics',
      grain: query.grain,
      fns: query.measures.map((measure) => measure.fn),
      measureFields: query.measures.flatMap((measure) => ('field' in measure ? [measure.field] : [])),
      groupBy: query.groupBy,
      filter: query.filter,
      startNs: query.startNs,
      endNs: query.endNs,
      widthNs: query.widthNs,
    },
    { readySlots: query.indexedSlots, foldMayAnswer: true },
  );
}

function valueOf(value: StoredValue, fn: string): number | null {
  if (value === null || typeof value === 'number') return value;
  if (value.count === 0) return null;
  return percentileAt(PERCENT_OF[fn as PercentileFn], value.count, (rank) => {
    const found = value.byRank.get(rank);
    if (found === undefined) throw new Error(`rank ${rank} of ${value.count} missing from the analytics rows`);
    return found;
  });
}

/** The answer of POST /engine/analytics from its stored rows. */
export function analyticsResponse(
  rows: AnalyticsRows,
  request: {
    grain: AnalyticsResponse['grain'];
    granularity: Granularity;
    widthNs: bigint;
    startNs: bigint;
    groupBy: string[];
    fns: string[];
  },
): WireAnalytics {
  const points = (stored: StoredPoint[]): WireAnalyticsPoint[] =>
    stored.map((point) => ({
      bucket_start_unix_nano: request.startNs + BigInt(point.bucket) * request.widthNs,
      values: point.values.map((value, index) => valueOf(value, request.fns[index] as string)),
    }));
  return {
    grain: request.grain,
    granularity: request.granularity,
    bucket_width_ns: request.widthNs,
    groups: rows.groups.map((group) => ({
      key: Object.fromEntries(request.groupBy.map((field, index) => [field, group.key[index] ?? null])),
      points: points(group.points),
    })),
    other: rows.other === null ? null : { points: points(rows.other) },
    truncated: rows.truncated,
  };
}
