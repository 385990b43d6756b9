// The statistics GET /traces/metrics is made of, computed in the database: count, mean, spread,
// extremes, and the values at the ranks around each percentile, over the matching traces.
import type { Knex } from 'knex';
import { dialectFor } from '../../sql/index.js';
import type { WindowFilter } from './span-pages.js';
import { asNumber } from '../stored-span.js';
import { figureCells, pendingWithinLimit } from '../fold/trace-figure-reads.js';
import type { SummaryFigures, TraceFigure } from '../fold/trace-figures.js';
import type { PlannedFold, ReadPlan } from '../read-sources.js';
import { matchingTraces, windowSpanTimes, type SpanTimes } from '../traces/trace-pages.js';

/** The percentiles of trace metrics, as whole percents: position = p × (n − 1) / 100. */
export const METRIC_PERCENTS = [50, 90, 95, 99] as const;

export const METRIC_FIGURES = ['duration', 'cost', 'spans'] as const;
export type MetricFigure = (typeof METRIC_FIGURES)[number];

export interface FigureStatistics {
  mean: number;
  /** Population standard deviation. */
  stddev: number;
  min: number;
  max: number;
  /** Values by 0-based rank in ascending order, at least around every percentile position. */
  byRank: Map<number, number>;
}

export interface MetricRanks {
  count: number;
  figures: Record<MetricFigure, FigureStatistics>;
}

/** The ranks either side of each percentile position p × (n − 1), in whole numbers. */
export function percentileRanks(count: number): number[] {
  const ranks = new Set<number>();
  for (const percent of METRIC_PERCENTS) {
    const low = Math.floor((percent * (count - 1)) / 100);
    ranks.add(low);
    if (low + 1 < count) ranks.add(low + 1);
  }
  return [...ranks].sort((a, b) => a - b);
}

const FIGURE_COLUMNS: Record<MetricFigure, string> = { duration: 'd', cost: 'c', spans: 's' };
const FIGURES = Object.values(FIGURE_COLUMNS);

/** A window and filter, with the span times of the window's traces when the filter reads spans (windowSpanTimes()). */
export type MetricQuery = WindowFilter & { spanTimes?: SpanTimes | null };

/** The figures of every trace `POST /traces?search_child_spans=true` lists, as the derived table `m`. */
function matchedFigures(knex: Knex, query: MetricQuery): Knex.QueryBuilder {
  return matchingTraces(knex, { ...query, searchChildSpans: true })
    .select({ d: 't.duration_ms', c: 't.total_cost' })
    .select(knex.raw(`${dialectFor(knex).asDouble('t.spans_count')} AS s`))
    .as('m');
}

/**
 * The first read: count, and each figure's mean, min, max and population variance (VAR_POP, a
 * single accurate pass, where the database has it; else the mean first, then the mean squared
 * deviation from it, over the CTE `m`).
 */
export function metricAggregatesQuery(knex: Knex, query: MetricQuery): Knex.QueryBuilder {
  const summary = FIGURES.flatMap((v) => [`AVG(${v}) AS mean_${v}`, `MIN(${v}) AS min_${v}`, `MAX(${v}) AS max_${v}`]);
  if (dialectFor(knex).hasVarPop) {
    const spreads = FIGURES.map((v) => `VAR_POP(${v}) AS variance_${v}`);
    return knex.select(knex.raw(['COUNT(*) AS n', ...summary, ...spreads].join(', '))).from(matchedFigures(knex, query));
  }
  const spreads = FIGURES.map((v) => `(SELECT AVG((${v} - a.mean_${v}) * (${v} - a.mean_${v})) FROM m) AS variance_${v}`);
  return knex
    .with('m', (inner) => inner.select('*').from(matchedFigures(knex, query)))
    .select(knex.raw(['a.*', ...spreads].join(', ')))
    .from(
      knex
        .select(knex.raw(['COUNT(*) AS n', ...summary].join(', ')))
        .from('m')
        .as('a'),
    );
}

/** The second read: each figure's values at the given 0-based ranks in ascending order (ROW_NUMBER()). */
export function rankedValuesQuery(knex: Knex, query: MetricQuery, ranks: number[]): Knex.QueryBuilder {
  return knex
    .select('*')
    .from(
      knex
        .select(FIGURES)
        .select(knex.raw(FIGURES.map((v) => `ROW_NUMBER() OVER (ORDER BY ${v}) - 1 AS rank_${v}`).join(', ')))
        .from(matchedFigures(knex, query))
        .as('r'),
    )
    .where((where) => {
      for (const v of FIGURES) where.orWhereIn(`rank_${v}`, ranks);
    });
}

const FOLDED_FIGURES: Record<MetricFigure, TraceFigure> = { duration: 'duration_ms', cost: 'total_cost', spans: 'spans_count' };

/**
 * The same statistics from the folded figures (trace-figure-reads.ts) over the hours the plan gave
 * the fold, once its check passed (`pending`): the extremes and percentiles exact, the mean and
 * spread from sums (within rounding; exact when every value is the same).
 */
async function foldedMetricRanks(
  trx: Knex.Transaction,
  query: WindowFilter,
  fold: PlannedFold,
  pending: SummaryFigures[],
): Promise<MetricRanks> {
  const cells = await figureCells(
    trx,
    {
      applicationId: query.applicationId,
      startNs: query.startNs,
      endNs: query.endNs,
      figures: Object.values(FOLDED_FIGURES),
      widthNs: null,
      services: { kind: 'all' },
      ranksFor: (_figure, count) => [0, count - 1, ...percentileRanks(count)],
    },
    fold,
    pending,
  );
  const [cell] = cells;
  const count = cell?.count ?? 0;
  const statistics = (figure: TraceFigure): FigureStatistics => {
    const found = cell?.figures.get(figure);
    if (!found || count === 0) return { mean: 0, stddev: 0, min: 0, max: 0, byRank: new Map() };
    const min = found.byRank.get(0) as number;
    const max = found.byRank.get(count - 1) as number;
    if (min === max) return { mean: min, stddev: 0, min, max, byRank: found.byRank };
    return { mean: found.sum / count, stddev: Math.sqrt(found.squaredDeviations / count), min, max, byRank: found.byRank };
  };
  return { count, figures: { duration: statistics('duration_ms'), cost: statistics('total_cost'), spans: statistics('spans_count') } };
}

/**
 * The statistics trace metrics are made of, computed in the database over the traces that
 * `POST /traces?search_child_spans=true` lists, in two reads of one snapshot:
 *  1. count, mean, population variance, min and max of each figure (VAR_POP, a single
 *     accurate pass, where the database has it; two passes on SQLite);
 *  2. each figure's values at the ranks around its percentile positions (ROW_NUMBER(); never
 *     MariaDB's PERCENTILE_CONT, whose DOUBLE(18,10) result is wrong from about 1e8, and with
 *     the ranks bound as constants: COUNT(*) OVER () costs as much as a sort there).
 * At most a few dozen values reach Node, however many traces match. Without a filter, the folded
 * figures answer instead when the plan (src/traces/read-planner.ts) puts them first and their
 * check passes in the snapshot.
 */
export async function traceMetricRanks(knex: Knex, request: WindowFilter, plan: ReadPlan): Promise<MetricRanks> {
  const { snapshot } = dialectFor(knex);
  const work = async (trx: Knex.Transaction): Promise<MetricRanks> => {
    for (const planned of plan.sources) {
      if (planned.source === 'trace_fold') {
        const pending = await pendingWithinLimit(trx, request.applicationId);
        if (pending) return foldedMetricRanks(trx, request, planned, pending);
      } else if (planned.source === 'trace_summaries') return summaryMetricRanks(trx, request);
      else throw new Error(`trace metrics cannot read ${planned.source}`);
    }
    throw new Error('no source of the plan answered: its last one is exact as it is');
  };
  // One snapshot for both reads, so that spans stored in between cannot shift the ranks.
  return knex.transaction(work, snapshot);
}

/** The statistics from the trace summaries, exact as they are. */
async function summaryMetricRanks(trx: Knex.Transaction, request: WindowFilter): Promise<MetricRanks> {
  const query = { ...request, spanTimes: await windowSpanTimes(trx, request) };
  const [aggregates] = (await metricAggregatesQuery(trx, query)) as Array<Record<string, unknown> | undefined>;
  const count = asNumber(aggregates?.n ?? 0);
  const ranks = count > 0 ? percentileRanks(count) : [];
  const ranked: Array<Record<string, unknown>> = ranks.length === 0 ? [] : await rankedValuesQuery(trx, query, ranks);
  const statistics = (v: string): FigureStatistics => ({
    mean: asNumber(aggregates?.[`mean_${v}`] ?? 0),
    stddev: Math.sqrt(Math.max(0, asNumber(aggregates?.[`variance_${v}`] ?? 0))),
    min: asNumber(aggregates?.[`min_${v}`] ?? 0),
    max: asNumber(aggregates?.[`max_${v}`] ?? 0),
    byRank: new Map(
      ranked.filter((row) => ranks.includes(asNumber(row[`rank_${v}`]))).map((row) => [asNumber(row[`rank_${v}`]), asNumber(row[v])]),
    ),
  });
  return { count, figures: { duration: statistics('d'), cost: statistics('c'), spans: statistics('s') } };
}
