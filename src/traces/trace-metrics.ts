// Trace metrics from the ranked rows the database returns (src/storage/spans/reads/metric-ranks.ts, traceMetricRanks):
// percentiles interpolate linearly between the closest ranks, as SQL's PERCENTILE_CONT does, at
// position p × (n − 1), computed in whole numbers so that it is exact; median = p50; stddev is
// the population standard deviation; with no trace every figure is 0.
import type { components } from '../generated/engine.js';
import { METRIC_PERCENTS, type FigureStatistics, type MetricRanks, type WindowFilter, type ReadPlan } from '../storage/spans/span-store.js';
import { planRead } from './read-planner.js';

type Distribution = components['schemas']['Distribution'];
type TraceMetrics = components['schemas']['TraceMetrics'];

const ZERO: Distribution = { mean: 0, median: 0, p50: 0, p90: 0, p95: 0, p99: 0, min: 0, max: 0, stddev: 0 };

/** The value at `percent` of n sorted values, given the values at the ranks around its position. */
export function percentileAt(percent: number, count: number, valueAt: (rank: number) => number): number {
  const scaled = percent * (count - 1);
  const low = Math.floor(scaled / 100);
  const remainder = scaled - low * 100;
  const lowValue = valueAt(low);
  if (remainder === 0) return lowValue;
  return lowValue + (remainder / 100) * (valueAt(low + 1) - lowValue);
}

/** Which sources answer a trace metrics read, cheapest first (read-planner.ts). */
export function metricsPlan(read: WindowFilter): ReadPlan {
  return planRead(
    { kind: 'metrics', filter: read.filter, startNs: read.startNs, endNs: read.endNs },
    { readySlots: read.indexedSlots, foldMayAnswer: true },
  );
}

function distribution(count: number, figure: FigureStatistics): Distribution {
  const valueAt = (rank: number) => {
    const value = figure.byRank.get(rank);
    if (value === undefined) throw new Error(`rank ${rank} of ${count} missing from the metric rows`);
    return value;
  };
  const [p50, p90, p95, p99] = METRIC_PERCENTS.map((percent) => percentileAt(percent, count, valueAt)) as [number, number, number, number];
  return { mean: figure.mean, median: p50, p50, p90, p95, p99, min: figure.min, max: figure.max, stddev: figure.stddev };
}

export function traceMetrics(ranks: MetricRanks): TraceMetrics {
  if (ranks.count === 0) return { trace_count: 0, duration: { ...ZERO }, cost: { ...ZERO }, spans_per_trace: { ...ZERO } };
  return {
    trace_count: ranks.count,
    duration: distribution(ranks.count, ranks.figures.duration),
    cost: distribution(ranks.count, ranks.figures.cost),
    spans_per_trace: distribution(ranks.count, ranks.figures.spans),
  };
}
