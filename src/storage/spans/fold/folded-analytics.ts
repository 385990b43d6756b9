// POST /engine/analytics at trace grain from the folded figures (trace-figure-reads.ts,
// src/storage/spans/fold/README.md) when the planner (src/traces/read-planner.ts) chose
// them: no filter, grouped by nothing or by the root's service_name, buckets of whole hours from a
// window starting on an hour. The same AnalyticsRows as the summaries give: counts, extremes and
// percentiles exactly, sums and averages within rounding (added up in another order).
import type { Knex } from 'knex';
import type { AnalyticsQuery, AnalyticsRows, GroupKey, StoredMeasure, StoredPoint, StoredValue } from '../reads/analytics-reads.js';
import { PERCENT_OF, type PercentileFn } from '../reads/analytics-reads.js';
import { figureCells, type FigureCell, type ServiceCells } from './trace-figure-reads.js';
import { TRACE_FIGURES, type SummaryFigures, type TraceFigure } from './trace-figures.js';
import type { PlannedFold } from '../read-sources.js';

function isPercentile(fn: StoredMeasure['fn']): fn is PercentileFn {
  return fn in PERCENT_OF;
}

function figureOf(measure: StoredMeasure): TraceFigure | undefined {
  return 'field' in measure ? (measure.field as TraceFigure) : undefined;
}

/** The ranks a cell's figure needs for the request's measures: the percentiles' and the extremes'. */
function ranksFor(measures: StoredMeasure[]) {
  return (figure: TraceFigure, count: number): number[] => {
    const ranks: number[] = [];
    for (const measure of measures) {
      if (figureOf(measure) !== figure) continue;
      if (measure.fn === 'min') ranks.push(0);
      else if (measure.fn === 'max') ranks.push(count - 1);
      else if (isPercentile(measure.fn)) {
        const low = Math.floor((PERCENT_OF[measure.fn] * (count - 1)) / 100);
        ranks.push(low);
        if (low + 1 < count) ranks.push(low + 1);
      }
    }
    return ranks;
  };
}

function valueOf(cell: FigureCell, measure: StoredMeasure): StoredValue {
  if (measure.fn === 'count') return cell.count;
  const figure = cell.figures.get(figureOf(measure) as TraceFigure);
  if (!figure) throw new Error(`no figure ${figureOf(measure)} in a folded cell`);
  if (measure.fn === 'sum') return figure.sum;
  if (measure.fn === 'avg') return figure.sum / cell.count;
  if (measure.fn === 'min') return figure.byRank.get(0) as number;
  if (measure.fn === 'max') return figure.byRank.get(cell.count - 1) as number;
  return { count: cell.count, byRank: figure.byRank };
}

function pointsOf(cells: FigureCell[], measures: StoredMeasure[]): StoredPoint[] {
  return cells
    .map((cell) => ({ bucket: cell.bucket, values: measures.map((measure) => valueOf(cell, measure)) }))
    .sort((a, b) => a.bucket - b.bucket);
}

/** A group's order measure over the whole window, from its cells. */
function rankingValue(cells: FigureCell[], measure: StoredMeasure): number {
  const count = cells.reduce((sum, cell) => sum + cell.count, 0);
  if (measure.fn === 'count') return count;
  const values = cells.map((cell) => valueOf(cell, measure) as number);
  if (measure.fn === 'min') return Math.min(...values);
  if (measure.fn === 'max') return Math.max(...values);
  const sum = cells.reduce((total, cell) => total + (cell.figures.get(figureOf(measure) as TraceFigure)?.sum ?? 0), 0);
  return measure.fn === 'avg' ? sum / count : sum;
}

/** Orders group keys as the summaries' ranking does: by their exact bytes, a missing one first. */
function compareKeys(a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The request's rows from the folded figures over the hours the plan gave the fold, in the
 * caller's snapshot, once its check passed (`pending`: pendingWithinLimit).
 */
export async function foldedAnalyticsRows(
  trx: Knex.Transaction,
  query: AnalyticsQuery,
  fold: PlannedFold,
  pending: SummaryFigures[],
): Promise<AnalyticsRows> {
  const named = query.measures.map(figureOf).filter((figure): figure is TraceFigure => figure !== undefined);
  // A count alone still needs one figure to count: the error count has the fewest bins.
  const figures = named.length > 0 ? [...new Set(named)] : [TRACE_FIGURES[3]];
  const read = (services: ServiceCells) =>
    figureCells(
      trx,
      {
        applicationId: query.applicationId,
        startNs: query.startNs,
        endNs: query.endNs,
        figures,
        widthNs: query.widthNs,
        services,
        ranksFor: ranksFor(query.measures),
      },
      fold,
      pending,
    );
  if (query.groupBy.length === 0) {
    const cells = await read({ kind: 'all' });
    return { groups: [{ key: [], points: pointsOf(cells, query.measures) }], other: null, truncated: false };
  }
  const cells = await read({ kind: 'each' });
  const byService = new Map<string | null, FigureCell[]>();
  for (const cell of cells) byService.set(cell.service, [...(byService.get(cell.service) ?? []), cell]);
  const order = query.measures[query.orderBy.measure] as StoredMeasure;
  const direction = query.orderBy.direction === 'asc' ? 1 : -1;
  const ranked = [...byService.entries()]
    .map(([service, serviceCells]) => ({ service, serviceCells, value: rankingValue(serviceCells, order) }))
    .sort((a, b) => (a.value === b.value ? compareKeys(a.service, b.service) : direction * (a.value - b.value)));
  const kept = ranked.slice(0, query.rowLimit);
  const groups = kept.map(({ service, serviceCells }) => ({ key: [service] as GroupKey, points: pointsOf(serviceCells, query.measures) }));
  const truncated = ranked.length > query.rowLimit;
  if (!truncated) return { groups, other: null, truncated };
  const rest = await read({ kind: 'others', services: kept.map(({ service }) => service) });
  return { groups, other: pointsOf(rest, query.measures), truncated };
}
