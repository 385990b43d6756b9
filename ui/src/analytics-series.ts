// The metrics view's questions to POST /engine/analytics (openapi/engine.yaml, getAnalytics), and
// their answers turned into chart series: one time axis of every bucket of the window (the engine
// lists only buckets holding something) and one series per group, plus "Other" when groups were
// folded. Counts and sums of an empty bucket are 0; a percentile of an empty bucket has no value.
import type { components } from '../../src/generated/engine';
import type { FilterNode } from './view-query';

export type AnalyticsRequest = components['schemas']['AnalyticsRequest'];
export type AnalyticsResponse = components['schemas']['AnalyticsResponse'];
type AnalyticsPoint = components['schemas']['AnalyticsPoint'];

/** How many groups the cost chart lists before folding the rest into "Other". */
export const COST_GROUP_LIMIT = 8;

/** Cost of the matching spans per group and bucket, the costliest groups first. */
export function costRequest(groupBy: string, filter: FilterNode | undefined): AnalyticsRequest {
  return {
    grain: 'spans',
    filter: filter ?? null,
    group_by: [groupBy],
    granularity: 'auto',
    measures: [{ fn: 'sum', field: 'cost' }],
    order_by: { measure: 0, direction: 'desc' },
    row_limit: COST_GROUP_LIMIT,
  };
}

/** The measures of trafficRequest, by index. */
export const TRAFFIC_COUNT = 0;
export const TRAFFIC_P95 = 1;

/** Traces per bucket and their p95 duration: the same traces POST /engine/metrics counts. */
export function trafficRequest(filter: FilterNode | undefined): AnalyticsRequest {
  return {
    grain: 'traces',
    filter: filter ?? null,
    granularity: 'auto',
    measures: [{ fn: 'count' }, { fn: 'p95', field: 'duration_ms' }],
  };
}

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
}

export interface ChartData {
  /** Bucket starts, Unix seconds (what uPlot's time axis reads). */
  times: number[];
  /** Whether the engine listed the bucket (for the data table, which leaves empty buckets out). */
  listed: boolean[];
  series: ChartSeries[];
  bucketSeconds: number;
}

export const OTHER_LABEL = 'Other';
export const NO_VALUE_LABEL = '(none)';

/** A group's name: its key's values (an absent value is "(none)"); no group_by makes one group, "All". */
export function groupLabel(key: Record<string, string | null>): string {
  const values = Object.values(key);
  if (values.length === 0) return 'All';
  return values.map((value) => (value === null ? NO_VALUE_LABEL : value)).join(' · ');
}

/**
 * One series per group (and "Other") of measure `measure`, over every bucket of the window
 * [start, end). `emptyAs` is what a bucket the engine did not list holds.
 */
export function chartData(response: AnalyticsResponse, measure: number, window: { start: Date; end: Date }, emptyAs: 0 | null): ChartData {
  // Bucket starts come as int64 nanoseconds; as doubles they are off by under a microsecond,
  // so a bucket is placed by rounding to its index.
  const widthMs = response.bucket_width_ns / 1e6;
  const startMs = window.start.getTime();
  const count = Math.max(1, Math.ceil((window.end.getTime() - startMs) / widthMs));
  const times = Array.from({ length: count }, (_, index) => (startMs + index * widthMs) / 1000);
  const listed = new Array<boolean>(count).fill(false);
  const seriesOf = (label: string, points: AnalyticsPoint[]): ChartSeries => {
    const values = new Array<number | null>(count).fill(emptyAs);
    for (const point of points) {
      const index = Math.round((point.bucket_start_unix_nano / 1e6 - startMs) / widthMs);
      if (index < 0 || index >= count) continue;
      values[index] = point.values[measure] ?? emptyAs;
      listed[index] = true;
    }
    return { label, values };
  };
  const series = response.groups.map((group) => seriesOf(groupLabel(group.key), group.points));
  if (response.other) series.push(seriesOf(OTHER_LABEL, response.other.points));
  return { times, listed, series, bucketSeconds: widthMs / 1000 };
}

/** How a series is summed up in the legend: counts and costs add up, percentiles do not. */
export type SeriesSummary = 'total' | 'highest';

/** Each series' total or highest value over the window, null where no bucket had a value. */
export function seriesSummaries(data: ChartData, summary: SeriesSummary): Array<number | null> {
  return data.series.map((series) => {
    const present = series.values.filter((value): value is number => value !== null);
    if (present.length === 0) return null;
    return summary === 'total' ? present.reduce((sum, value) => sum + value, 0) : Math.max(...present);
  });
}

/** The granularity's name for people. */
export function bucketLabel(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? '1 day' : `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
}
