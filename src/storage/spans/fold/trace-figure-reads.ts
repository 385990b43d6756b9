// Exact trace statistics per cell (a time bucket, and a root service or all of them) from the
// folded figures (src/storage/spans/fold/README.md), for trace metrics and trace-grain
// analytics without a filter: the count, sum and sum of squares of each figure, and its values
// at given ranks, without ranking every summary of the window. Inside one snapshot:
//  1. the histograms of the window's whole hours, summed per cell, figure and bin group;
//  2. the pending summaries (at most MAX_PENDING, the fold's exactness check, pendingWithinLimit,
//     which the caller runs first; else it reads the summaries as before):
//     their folded figures, now stale, are taken out, their current ones put in;
//  3. the summaries of the partial hours at the window's edges, put in as they are;
//  4. per rank, the bin group holding it, found by counting, and the value read inside that
//     group: the folded values of the group in value order from the index, around the rank
//     (the values put in by 2 and 3 are merged in Node): trace-figure-ranks.ts.
// Whether the fold may answer, and its whole hours and edges, are planned in src/traces/read-planner.ts.
import type { Knex } from 'knex';
import { bigintAsText } from '../../database.js';
import {
  binOf,
  figureGroupOf,
  figureNumber,
  FIRST_SHARED_WHOLE_BIN,
  FOLD_STATE,
  HOUR_NS,
  MAX_PENDING,
  originOfBin,
  serviceOfKey,
  TRACE_FIGURES,
  TRACE_HISTOGRAM_TABLE,
  WHOLE_FIGURES,
  type SummaryFigures,
  type TraceFigure,
} from './trace-figures.js';
import { readFolded } from './trace-folding.js';
import { betweenNanos } from '../time-bounds.js';
import {
  bucketOfHour,
  bucketOfStart,
  excludedKeys,
  figureRead,
  selectsService,
  type BinGroup,
  type CellTotals,
  type FigureCell,
  type FigureCellQuery,
  type FigureRead,
} from './trace-figure-cells.js';
import { resolveRanks } from './trace-figure-ranks.js';
import type { PlannedFold } from '../read-sources.js';

export type { CellFigure, FigureCell, FigureCellQuery, ServiceCells } from './trace-figure-cells.js';

type Row = Record<string, unknown>;

class Cells {
  private readonly cells = new Map<string, CellTotals>();

  constructor(private readonly plan: FigureRead) {}

  private cell(bucket: number, service: string | null): CellTotals {
    const perService = this.plan.query.services.kind === 'each';
    const id = JSON.stringify([bucket, perService ? service : null]);
    let cell = this.cells.get(id);
    if (!cell) {
      cell = { bucket, service: perService ? service : null, figures: new Map() };
      this.cells.set(id, cell);
    }
    return cell;
  }

  private group(bucket: number, service: string | null, figure: TraceFigure, group: number, bin: number): BinGroup {
    const cell = this.cell(bucket, service);
    let totals = cell.figures.get(figure);
    if (!totals) {
      totals = { groups: new Map() };
      cell.figures.set(figure, totals);
    }
    let found = totals.groups.get(group);
    if (!found) {
      found = {
        group,
        firstBin: bin,
        lastBin: bin,
        stored: 0,
        origin: originOfBin(bin),
        sum: 0,
        sumSq: 0,
        low: Infinity,
        high: -Infinity,
        staleTraceIds: [],
        added: [],
      };
      totals.groups.set(group, found);
    }
    return found;
  }

  /** A row of summed histograms. */
  addHistogram(row: Row): void {
    const figure = TRACE_FIGURES[Number(row.f)] as TraceFigure;
    const service = this.plan.query.services.kind === 'each' ? serviceOfKey(row.k) : null;
    const group = this.group(Number(row.b), service, figure, Number(row.g), Number(row.first_bin));
    group.firstBin = Math.min(group.firstBin, Number(row.first_bin));
    group.lastBin = Math.max(group.lastBin, Number(row.last_bin));
    group.stored += Number(row.n);
    group.low = Math.min(group.low, Number(row.lo));
    group.high = Math.max(group.high, Number(row.hi));
    group.sum += Number(row.s);
    group.sumSq += Number(row.q);
  }

  /** A folded figure of a pending trace: stale, taken out. */
  removeStale(traceId: string, hour: bigint, service: string | null, figure: TraceFigure, bin: number, value: number): void {
    const group = this.group(
      bucketOfHour(this.plan, hour),
      service,
      figure,
      figureGroupOf(figureNumber(figure), bin, this.plan.binsPerGroup),
      bin,
    );
    const deviation = value - group.origin;
    group.stored -= 1;
    group.staleTraceIds.push(traceId);
    group.sum -= deviation;
    group.sumSq -= deviation * deviation;
  }

  /** A summary's current figures, put in. */
  addSummary(summary: SummaryFigures, rootStart: bigint): void {
    const bucket = bucketOfStart(this.plan, rootStart);
    for (const figure of this.plan.query.figures) {
      const value = Number(summary[figure]);
      const bin = binOf(value);
      const group = this.group(bucket, summary.service_name, figure, figureGroupOf(figureNumber(figure), bin, this.plan.binsPerGroup), bin);
      const deviation = value - group.origin;
      group.added.push(value);
      group.sum += deviation;
      group.sumSq += deviation * deviation;
    }
  }

  values(): CellTotals[] {
    return [...this.cells.values()];
  }
}

/** The group of a histogram row's bin, as figureGroupOf computes it. */
function groupSql(plan: FigureRead): string {
  const groups = plan.dialect.integerDivide('bin', String(plan.binsPerGroup));
  if (plan.binsPerGroup === 1) return groups;
  return `CASE WHEN figure IN (${WHOLE_FIGURES.join(', ')}) AND bin < ${FIRST_SHARED_WHOLE_BIN} THEN bin ELSE ${groups} END`;
}

/** 1. The whole hours' histograms, summed per cell, figure and bin group. */
function histogramQuery(knex: Knex, plan: FigureRead): Knex.QueryBuilder {
  const { dialect, query } = plan;
  const bucket =
    plan.widthHours === null
      ? knex.raw('0 AS b')
      : knex.raw(`${dialect.integerDivide(`hour - ${dialect.exactInteger}`, dialect.exactInteger)} AS b`, [
          plan.startHour.toString(),
          plan.widthHours.toString(),
        ]);
  const builder = knex(TRACE_HISTOGRAM_TABLE)
    .select(bucket)
    .select(knex.raw('figure AS f'))
    .select(knex.raw(`${groupSql(plan)} AS g`))
    .select(
      knex.raw(
        'MIN(bin) AS first_bin, MAX(bin) AS last_bin, SUM(trace_count) AS n, SUM(value_sum) AS s, SUM(value_sum_sq) AS q, MIN(value_low) AS lo, MAX(value_high) AS hi',
      ),
    )
    .where('application_id', query.applicationId)
    .whereRaw(`hour >= ${dialect.exactInteger}`, [plan.firstHour.toString()])
    .whereRaw(`hour < ${dialect.exactInteger}`, [plan.endHour.toString()])
    .whereIn('figure', query.figures.map(figureNumber))
    .where('trace_count', '>', 0);
  const excluded = excludedKeys(query.services);
  if (excluded.length > 0) builder.whereNotIn('service_key', excluded);
  builder.groupByRaw('b');
  if (query.services.kind === 'each') builder.select(knex.raw('service_key AS k')).groupBy('service_key');
  return builder.groupByRaw('f, g');
}

const SUMMARY_FIGURES = ['trace_id', 'service_name', 'duration_ms', 'total_cost', 'spans_count', 'error_count'];

/**
 * The exactness check `pending_within_limit`: the application's pending summaries, undefined when
 * there are more than MAX_PENDING (then the fold cannot answer and nothing else of it is read).
 */
export async function pendingWithinLimit(knex: Knex, applicationId: string): Promise<SummaryFigures[] | undefined> {
  const pending = (await knex('traces')
    .select(...SUMMARY_FIGURES, { root_start: bigintAsText(knex, 'root_start_time_unix_nano') })
    .where('application_id', applicationId)
    .whereIn('folded', [FOLD_STATE.pending, FOLD_STATE.unfoldable])
    .limit(MAX_PENDING + 1)) as SummaryFigures[];
  return pending.length > MAX_PENDING ? undefined : pending;
}

/** 2. The pending summaries: their stale folded figures out, their current ones in. */
async function takeInPending(knex: Knex, plan: FigureRead, cells: Cells, pending: SummaryFigures[]): Promise<void> {
  const { query } = plan;
  const wanted = new Set(query.figures);
  const folded = await readFolded(
    knex,
    async <T>(statement: Knex.QueryBuilder) => (await statement) as T,
    query.applicationId,
    pending.map((trace) => trace.trace_id),
  );
  for (const row of folded) {
    const figure = TRACE_FIGURES[row.figure] as TraceFigure;
    const hour = BigInt(row.hour);
    const service = serviceOfKey(row.service_key);
    if (!wanted.has(figure) || hour < plan.firstHour || hour >= plan.endHour || !selectsService(query.services, service)) continue;
    cells.removeStale(row.trace_id, hour, service, figure, row.bin, row.value);
  }
  for (const trace of pending) {
    if (trace.root_start === null) continue;
    const rootStart = BigInt(trace.root_start);
    // Inside the whole hours only: the edges' summaries are all read by takeInEdges.
    if (rootStart < plan.firstHour * HOUR_NS || rootStart >= plan.endHour * HOUR_NS || !selectsService(query.services, trace.service_name))
      continue;
    cells.addSummary(trace, rootStart);
  }
}

/** 3. The summaries whose root starts in a partial hour at an edge of the window, as they are. */
async function takeInEdges(knex: Knex, plan: FigureRead, cells: Cells): Promise<void> {
  const { dialect, query } = plan;
  for (const [from, to] of plan.edges) {
    const summaries = (await knex('traces')
      .select(...SUMMARY_FIGURES, { root_start: bigintAsText(knex, 'root_start_time_unix_nano') })
      .where('application_id', query.applicationId)
      .modify(betweenNanos(dialect, 'root_start_time_unix_nano', from, to))) as SummaryFigures[];
    for (const summary of summaries) {
      if (selectsService(query.services, summary.service_name)) cells.addSummary(summary, BigInt(summary.root_start as string));
    }
  }
}

/**
 * The cells of the window with at least one trace, from the folded figures over the hours the plan
 * gave the fold, in the caller's snapshot, once its check passed (`pending`: pendingWithinLimit).
 */
export async function figureCells(knex: Knex, query: FigureCellQuery, fold: PlannedFold, pending: SummaryFigures[]): Promise<FigureCell[]> {
  const plan = figureRead(knex, query, fold);
  const cells = new Cells(plan);
  for (const row of (await histogramQuery(knex, plan)) as Row[]) cells.addHistogram(row);
  await takeInPending(knex, plan, cells, pending);
  await takeInEdges(knex, plan, cells);
  return resolveRanks(knex, plan, cells.values());
}
