// Exact trace statistics per cell (a time bucket, and a root service or all of them) from the
// folded figures (docs/analytics.md, "Folded trace figures"), for trace metrics and trace-grain
// analytics without a filter: the count, sum and sum of squares of each figure, and its values
// at given ranks, without ranking every summary of the window. Inside one snapshot:
//  1. the histograms of the window's whole hours, summed per cell, figure and bin group;
//  2. the pending summaries (at most MAX_PENDING, else the caller reads the summaries as before):
//     their filed figures, now stale, are taken out, their current ones put in;
//  3. the summaries of the partial hours at the window's edges, put in as they are;
//  4. per rank, the bin group holding it, found by counting, and the value read inside that
//     group: the filed values of the group in value order from the index, around the rank
//     (the values put in by 2 and 3 are merged in Node).
import type { Knex } from 'knex';
import { bigintAsText } from '../database.js';
import { dialectFor } from '../sql/index.js';
import type { SqlDialect } from '../sql/dialect.js';
import {
  BINS_PER_COARSE_GROUP,
  binGroupOf,
  binOf,
  figureNumber,
  FOLD_STATE,
  HOUR_NS,
  hourOf,
  originOfBin,
  serviceKeyOf,
  serviceOfKey,
  TRACE_FIGURE_TABLE,
  TRACE_FIGURES,
  TRACE_HISTOGRAM_TABLE,
  type SummaryFigures,
  type TraceFigure,
} from './trace-figures.js';
import { readFiled } from './trace-folding.js';
import { MAX_STORED_INTEGER, MIN_STORED_INTEGER } from './time-bounds.js';

/** Which root services a read covers, and how: all together, each apart, or all but some together. */
export type ServiceCells = { kind: 'all' } | { kind: 'each' } | { kind: 'others'; services: Array<string | null> };

export interface FigureCellQuery {
  applicationId: string;
  startNs: bigint;
  endNs: bigint;
  figures: TraceFigure[];
  /** A bucket's width (a multiple of an hour, the window starting on an hour); null: the window is one bucket. */
  widthNs: bigint | null;
  services: ServiceCells;
  /** The 0-based ranks (ascending order) whose values a cell's figure needs, given how many values it has. */
  ranksFor: (figure: TraceFigure, count: number) => number[];
}

export interface CellFigure {
  sum: number;
  /** Σ(x − mean)², the population variance times the count. */
  squaredDeviations: number;
  byRank: Map<number, number>;
}

export interface FigureCell {
  /** 0-based index of the bucket from the window's start. */
  bucket: number;
  /** The root service ('each'); null otherwise or for roots without one. */
  service: string | null;
  count: number;
  figures: Map<TraceFigure, CellFigure>;
}

/** Pending summaries a read takes in itself at most; with more (the fold is behind), the caller reads the summaries. */
export const MAX_PENDING = 10_000;

/** Value reads per statement (UNION ALL terms; SQLite allows 500). */
const READS_PER_STATEMENT = 100;

/** A bin group of one cell's figure: the filed values left (after stale ones) and the values put in. */
interface BinGroup {
  group: number;
  firstBin: number;
  lastBin: number;
  stored: number;
  /** The origin of the group's bins (one coarse group), and Σ(x − origin), Σ(x − origin)² over its values. */
  origin: number;
  sum: number;
  sumSq: number;
  /** Bounds of the filed values (they only widen): equal means every filed value is this one. */
  low: number;
  high: number;
  staleTraceIds: string[];
  added: number[];
}

interface CellFigureTotals {
  groups: Map<number, BinGroup>;
}

interface CellTotals {
  bucket: number;
  service: string | null;
  figures: Map<TraceFigure, CellFigureTotals>;
}

type Row = Record<string, unknown>;

function ceilDiv(value: bigint, divisor: bigint): bigint {
  const floor = value >= 0n ? value / divisor : -((-value + divisor - 1n) / divisor);
  return floor * divisor === value ? floor : floor + 1n;
}

/** The plan of one read: its whole hours, edges, bucket width in hours and bin grouping. */
interface ReadPlan {
  query: FigureCellQuery;
  dialect: SqlDialect;
  firstHour: bigint;
  endHour: bigint;
  startHour: bigint;
  widthHours: bigint | null;
  binsPerGroup: number;
  edges: Array<[bigint, bigint]>;
}

/** The read's plan, or undefined when the folded figures cannot answer it (no whole hour, or a window past the stored times). */
function planOf(knex: Knex, query: FigureCellQuery): ReadPlan | undefined {
  if (query.startNs <= MIN_STORED_INTEGER || query.endNs > MAX_STORED_INTEGER || query.startNs >= query.endNs) return undefined;
  if (query.widthNs !== null && (query.startNs % HOUR_NS !== 0n || query.widthNs % HOUR_NS !== 0n)) return undefined;
  const firstHour = ceilDiv(query.startNs, HOUR_NS);
  const endHour = hourOf(query.endNs);
  if (firstHour >= endHour) return undefined;
  const edges: Array<[bigint, bigint]> = [];
  if (firstHour * HOUR_NS > query.startNs) edges.push([query.startNs, firstHour * HOUR_NS]);
  if (endHour * HOUR_NS < query.endNs) edges.push([endHour * HOUR_NS, query.endNs]);
  const manyCells = query.widthNs !== null || query.services.kind === 'each';
  return {
    query,
    dialect: dialectFor(knex),
    firstHour,
    endHour,
    startHour: hourOf(query.startNs),
    widthHours: query.widthNs === null ? null : query.widthNs / HOUR_NS,
    // Fewer histogram rows to sum where there are many cells, more values to read per rank; either
    // way a group lies inside one coarse group, so that its bins share one origin.
    binsPerGroup: manyCells ? BINS_PER_COARSE_GROUP : 1,
    edges,
  };
}

function bucketOfHour(plan: ReadPlan, hour: bigint): number {
  return plan.widthHours === null ? 0 : Number((hour - plan.startHour) / plan.widthHours);
}

function selectsService(services: ServiceCells, service: string | null): boolean {
  return services.kind !== 'others' || !services.services.includes(service);
}

/** The service keys a read leaves out (`others`): those a fold can have filed. */
function excludedKeys(services: ServiceCells): string[] {
  if (services.kind !== 'others') return [];
  return services.services.map(serviceKeyOf).filter((key): key is string => key !== undefined);
}

class Cells {
  private readonly cells = new Map<string, CellTotals>();

  constructor(private readonly plan: ReadPlan) {}

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
      found = { group, firstBin: bin, lastBin: bin, stored: 0, origin: originOfBin(bin), sum: 0, sumSq: 0, low: Infinity, high: -Infinity, staleTraceIds: [], added: [] };
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

  /** A filed figure of a pending trace: stale, taken out. */
  removeStale(traceId: string, hour: bigint, service: string | null, figure: TraceFigure, bin: number, value: number): void {
    const group = this.group(bucketOfHour(this.plan, hour), service, figure, binGroupOf(bin, this.plan.binsPerGroup), bin);
    const deviation = value - group.origin;
    group.stored -= 1;
    group.staleTraceIds.push(traceId);
    group.sum -= deviation;
    group.sumSq -= deviation * deviation;
  }

  /** A summary's current figures, put in. */
  addSummary(summary: SummaryFigures, rootStart: bigint): void {
    const { startNs, widthNs } = this.plan.query;
    const bucket = widthNs === null ? 0 : Number((rootStart - startNs) / widthNs);
    for (const figure of this.plan.query.figures) {
      const value = Number(summary[figure]);
      const bin = binOf(value);
      const group = this.group(bucket, summary.service_name, figure, binGroupOf(bin, this.plan.binsPerGroup), bin);
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

/** 1. The whole hours' histograms, summed per cell, figure and bin group. */
function histogramQuery(knex: Knex, plan: ReadPlan): Knex.QueryBuilder {
  const { dialect, query } = plan;
  const bucket =
    plan.widthHours === null
      ? knex.raw('0 AS b')
      : knex.raw(`${dialect.integerDivide(`hour - ${dialect.exactInteger}`, dialect.exactInteger)} AS b`, [plan.startHour.toString(), plan.widthHours.toString()]);
  const builder = knex(TRACE_HISTOGRAM_TABLE)
    .select(bucket)
    .select(knex.raw('figure AS f'))
    .select(knex.raw(`${dialect.integerDivide('bin', String(plan.binsPerGroup))} AS g`))
    .select(knex.raw('MIN(bin) AS first_bin, MAX(bin) AS last_bin, SUM(trace_count) AS n, SUM(value_sum) AS s, SUM(value_sum_sq) AS q, MIN(value_low) AS lo, MAX(value_high) AS hi'))
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

/** 2. The pending summaries: their stale filed figures out, their current ones in. False when there are too many. */
async function takeInPending(knex: Knex, plan: ReadPlan, cells: Cells): Promise<boolean> {
  const { query } = plan;
  const pending = (await knex('traces')
    .select(...SUMMARY_FIGURES, { root_start: bigintAsText(knex, 'root_start_time_unix_nano') })
    .where('application_id', query.applicationId)
    .whereIn('folded', [FOLD_STATE.pending, FOLD_STATE.unfoldable])
    .limit(MAX_PENDING + 1)) as SummaryFigures[];
  if (pending.length > MAX_PENDING) return false;
  const wanted = new Set(query.figures);
  const filed = await readFiled(knex, async <T>(statement: Knex.QueryBuilder) => (await statement) as T, query.applicationId, pending.map((trace) => trace.trace_id));
  for (const row of filed) {
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
    if (rootStart < plan.firstHour * HOUR_NS || rootStart >= plan.endHour * HOUR_NS || !selectsService(query.services, trace.service_name)) continue;
    cells.addSummary(trace, rootStart);
  }
  return true;
}

/** 3. The summaries whose root starts in a partial hour at an edge of the window, as they are. */
async function takeInEdges(knex: Knex, plan: ReadPlan, cells: Cells): Promise<void> {
  const { dialect, query } = plan;
  for (const [from, to] of plan.edges) {
    const summaries = (await knex('traces')
      .select(...SUMMARY_FIGURES, { root_start: bigintAsText(knex, 'root_start_time_unix_nano') })
      .where('application_id', query.applicationId)
      .whereRaw(`root_start_time_unix_nano >= ${dialect.exactInteger}`, [from.toString()])
      .whereRaw(`root_start_time_unix_nano < ${dialect.exactInteger}`, [to.toString()])) as SummaryFigures[];
    for (const summary of summaries) {
      if (selectsService(query.services, summary.service_name)) cells.addSummary(summary, BigInt(summary.root_start as string));
    }
  }
}

/** A value to find: the `offset`-th (0-based) value of a bin group of one cell's figure. */
interface RankRead {
  cell: CellTotals;
  figure: TraceFigure;
  group: BinGroup;
  offset: number;
  /** The added values of the group, ascending. */
  added: number[];
  /** Filed values read from the index: those at ranks [from, from + values.length) of the group's filed values left. */
  from: number;
  values: number[];
  resolve: (value: number) => void;
}

/** The value at `offset` in (filed values left ∪ added), where every filed value left equals `only`. */
function offsetAmongEqual(added: number[], stored: number, only: number, offset: number): number {
  const below = added.filter((value) => value < only).length;
  const equal = added.filter((value) => value === only).length;
  if (offset < below) return added[offset] as number;
  if (offset < below + stored + equal) return only;
  return added[offset - stored] as number;
}

/**
 * The value at `offset` in (filed values left ∪ added), given the filed values at ranks
 * [from, from + values.length), where from = max(0, offset - added.length): at most `offset`
 * values lie below values[0] when from > 0, so the answer is the smallest candidate at or above
 * it with more than `offset` values at or below it (the count below values[0] is exactly `from`).
 */
function offsetFromWindow(read: RankRead): number {
  const { added, offset, from, values } = read;
  if (from === 0) return [...values, ...added].sort((a, b) => a - b)[offset] as number;
  const floor = values[0] as number;
  const candidates = [...values, ...added.filter((value) => value >= floor)].sort((a, b) => a - b);
  for (const candidate of candidates) {
    const atOrBelow = from + values.filter((value) => value <= candidate).length + added.filter((value) => value <= candidate).length;
    if (atOrBelow > offset) return candidate;
  }
  throw new Error('a rank past the values of its bin group');
}

/** The hours [from, to) of a cell. */
function hoursOf(plan: ReadPlan, cell: CellTotals): [bigint, bigint] {
  if (plan.widthHours === null) return [plan.firstHour, plan.endHour];
  const from = plan.startHour + BigInt(cell.bucket) * plan.widthHours;
  const to = from + plan.widthHours;
  return [from > plan.firstHour ? from : plan.firstHour, to < plan.endHour ? to : plan.endHour];
}

/** One subquery: the group's filed values at ranks [from, from + count) in value order, stale ones left out. */
function rankReadSql(plan: ReadPlan, read: RankRead, index: number, count: number): { sql: string; bindings: Knex.Value[] } {
  const { dialect, query } = plan;
  const [fromHour, toHour] = hoursOf(plan, read.cell);
  const serviceKey = query.services.kind === 'each' ? serviceKeyOf(read.cell.service) : undefined;
  // One hour and service: its values of the bins, already in order along trace_figures_by_cell.
  const oneCell = serviceKey !== undefined && toHour - fromHour === 1n;
  const bindings: Knex.Value[] = [query.applicationId, figureNumber(read.figure)];
  let where = 'application_id = ? AND figure = ?';
  if (oneCell) {
    where += ` AND hour = ${dialect.exactInteger} AND service_key = ?`;
    bindings.push(fromHour.toString(), serviceKey);
  } else {
    where += ` AND hour >= ${dialect.exactInteger} AND hour < ${dialect.exactInteger}`;
    bindings.push(fromHour.toString(), toHour.toString());
    if (serviceKey !== undefined) {
      where += ' AND service_key = ?';
      bindings.push(serviceKey);
    }
    const excluded = excludedKeys(query.services);
    if (excluded.length > 0) {
      where += ` AND service_key NOT IN (${excluded.map(() => '?').join(', ')})`;
      bindings.push(...excluded);
    }
  }
  where += ' AND bin >= ? AND bin <= ?';
  bindings.push(read.group.firstBin, read.group.lastBin);
  if (read.group.staleTraceIds.length > 0) {
    where += ` AND trace_id NOT IN (${read.group.staleTraceIds.map(() => '?').join(', ')})`;
    bindings.push(...read.group.staleTraceIds);
  }
  const table = dialect.tableThroughIndex(TRACE_FIGURE_TABLE, 'v', oneCell ? 'trace_figures_by_cell' : 'trace_figures_by_bin');
  return { sql: `SELECT ${index} AS r, value FROM (SELECT value FROM ${table} WHERE ${where} ORDER BY bin, value LIMIT ${count} OFFSET ${read.from}) AS w${index}`, bindings };
}

/** 4. Reads the filed values around every rank that needs them, in statements of READS_PER_STATEMENT subqueries. */
async function readWindows(knex: Knex, plan: ReadPlan, reads: RankRead[]): Promise<void> {
  for (let offset = 0; offset < reads.length; offset += READS_PER_STATEMENT) {
    const chunk = reads.slice(offset, offset + READS_PER_STATEMENT);
    const parts = chunk.map((read, index) => rankReadSql(plan, read, index, read.offset - read.from + 1));
    const union = knex.raw(`(${parts.map((part) => part.sql).join(' UNION ALL ')}) AS u`, parts.flatMap((part) => part.bindings));
    for (const row of (await knex.select('r', 'value').from(union)) as Row[]) (chunk[Number(row.r)] as RankRead).values.push(Number(row.value));
    for (const read of chunk) read.values.sort((a, b) => a - b);
  }
}

/**
 * The sum and Σ(x − mean)² of a cell's figure from its groups' sums about their origins: each
 * group's own spread (about its mean, from values within about 5 % of each other) plus its
 * mean's distance from the cell's, weighted by its count (Chan et al.'s pairwise combination).
 */
function moments(groups: BinGroup[], count: number): { sum: number; squaredDeviations: number } {
  const sum = groups.reduce((total, group) => total + (group.stored + group.added.length) * group.origin + group.sum, 0);
  if (count === 0) return { sum, squaredDeviations: 0 };
  const mean = sum / count;
  let squaredDeviations = 0;
  for (const group of groups) {
    const n = group.stored + group.added.length;
    if (n === 0) continue;
    const offset = group.sum / n;
    const within = Math.max(0, group.sumSq - group.sum * offset);
    const between = group.origin + offset - mean;
    squaredDeviations += within + n * between * between;
  }
  return { sum, squaredDeviations };
}

/** Resolves every wanted rank of every cell's figures, reading the index only for groups with distinct filed values. */
async function resolveRanks(knex: Knex, plan: ReadPlan, cells: CellTotals[]): Promise<FigureCell[]> {
  const reads: RankRead[] = [];
  const answers: FigureCell[] = [];
  for (const cell of cells) {
    const figures = new Map<TraceFigure, CellFigure>();
    let count = 0;
    for (const [figure, totals] of cell.figures) {
      const groups = [...totals.groups.values()].sort((a, b) => a.group - b.group);
      for (const group of groups) {
        if (group.stored < 0) throw new Error('a histogram holds fewer filed figures than are stale');
        group.added.sort((a, b) => a - b);
      }
      const total = groups.reduce((sum, group) => sum + group.stored + group.added.length, 0);
      count = total;
      const byRank = new Map<number, number>();
      figures.set(figure, { ...moments(groups, total), byRank });
      if (total === 0) continue;
      let before = 0;
      let index = 0;
      for (const rank of [...new Set(plan.query.ranksFor(figure, total))].sort((a, b) => a - b)) {
        while (index < groups.length && before + (groups[index] as BinGroup).stored + (groups[index] as BinGroup).added.length <= rank) {
          before += (groups[index] as BinGroup).stored + (groups[index] as BinGroup).added.length;
          index += 1;
        }
        const group = groups[index] as BinGroup;
        const offset = rank - before;
        if (group.stored === 0) byRank.set(rank, group.added[offset] as number);
        else if (group.low === group.high) byRank.set(rank, offsetAmongEqual(group.added, group.stored, group.low, offset));
        else {
          const from = Math.max(0, offset - group.added.length);
          reads.push({ cell, figure, group, offset, added: group.added, from, values: [], resolve: (value) => byRank.set(rank, value) });
        }
      }
    }
    if (count > 0) answers.push({ bucket: cell.bucket, service: cell.service, count, figures });
  }
  await readWindows(knex, plan, reads);
  for (const read of reads) read.resolve(offsetFromWindow(read));
  return answers;
}

/**
 * The cells of the window with at least one trace, from the folded figures, in the caller's
 * snapshot; undefined when they cannot answer (no whole hour in the window, or more than
 * MAX_PENDING pending summaries): then the caller reads the summaries.
 */
export async function figureCells(knex: Knex, query: FigureCellQuery): Promise<FigureCell[] | undefined> {
  const plan = planOf(knex, query);
  if (!plan) return undefined;
  const cells = new Cells(plan);
  for (const row of (await histogramQuery(knex, plan)) as Row[]) cells.addHistogram(row);
  if (!(await takeInPending(knex, plan, cells))) return undefined;
  await takeInEdges(knex, plan, cells);
  return resolveRanks(knex, plan, cells.values());
}
