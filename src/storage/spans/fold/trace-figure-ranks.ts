// The values at given ranks of the folded trace figures' cells (trace-figure-reads.ts, step 4),
// and each cell figure's sum and spread: per rank, the bin group holding it, found by counting,
// and the value at its offset inside the group: known when every folded value of the group is
// the same, else read in value order from the index around the offset (one statement for all
// ranks) and merged with the values the read put in itself.
import type { Knex } from 'knex';
import { figureNumber, serviceKeyOf, TRACE_FIGURE_TABLE, type TraceFigure } from './trace-figures.js';
import {
  excludedKeys,
  hoursOf,
  type BinGroup,
  type CellFigure,
  type CellTotals,
  type FigureCell,
  type FigureRead,
} from './trace-figure-cells.js';

/** Value reads per statement (UNION ALL terms; SQLite allows 500). */
const READS_PER_STATEMENT = 100;

type Row = Record<string, unknown>;

/** A value to find: the `offset`-th (0-based) value of a bin group of one cell's figure. */
interface RankRead {
  cell: CellTotals;
  figure: TraceFigure;
  group: BinGroup;
  offset: number;
  /** Folded values read from the index: those at ranks [from, from + values.length) of the group's folded values left. */
  from: number;
  values: number[];
  resolve: (value: number) => void;
}

/** The value at `offset` in (folded values left ∪ added), where every folded value left equals `only`. */
function offsetAmongEqual(added: number[], stored: number, only: number, offset: number): number {
  const below = added.filter((value) => value < only).length;
  const equal = added.filter((value) => value === only).length;
  if (offset < below) return added[offset] as number;
  if (offset < below + stored + equal) return only;
  return added[offset - stored] as number;
}

/**
 * The value at `offset` in (folded values left ∪ the group's added values), given the folded values at ranks
 * [from, from + values.length), where from = max(0, offset - added.length): at most `offset`
 * values lie below values[0] when from > 0, so the answer is the smallest candidate at or above
 * it with more than `offset` values at or below it (the count below values[0] is exactly `from`).
 */
function offsetFromWindow(read: RankRead): number {
  const { offset, from, values } = read;
  const { added } = read.group;
  if (from === 0) return [...values, ...added].sort((a, b) => a - b)[offset] as number;
  const floor = values[0] as number;
  const candidates = [...values, ...added.filter((value) => value >= floor)].sort((a, b) => a - b);
  for (const candidate of candidates) {
    const atOrBelow = from + values.filter((value) => value <= candidate).length + added.filter((value) => value <= candidate).length;
    if (atOrBelow > offset) return candidate;
  }
  throw new Error('a rank past the values of its bin group');
}

/** One subquery: the group's folded values at ranks [from, from + count) in value order, stale ones left out. */
function rankReadSql(plan: FigureRead, read: RankRead, index: number, count: number): { sql: string; bindings: Knex.Value[] } {
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
  return {
    sql: `SELECT ${index} AS r, value FROM (SELECT value FROM ${table} WHERE ${where} ORDER BY bin, value LIMIT ${count} OFFSET ${read.from}) AS w${index}`,
    bindings,
  };
}

/** 4. Reads the folded values around every rank that needs them, in statements of READS_PER_STATEMENT subqueries. */
async function readWindows(knex: Knex, plan: FigureRead, reads: RankRead[]): Promise<void> {
  for (let offset = 0; offset < reads.length; offset += READS_PER_STATEMENT) {
    const chunk = reads.slice(offset, offset + READS_PER_STATEMENT);
    const parts = chunk.map((read, index) => rankReadSql(plan, read, index, read.offset - read.from + 1));
    const union = knex.raw(
      `(${parts.map((part) => part.sql).join(' UNION ALL ')}) AS u`,
      parts.flatMap((part) => part.bindings),
    );
    for (const row of (await knex.select('r', 'value').from(union)) as Row[])
      (chunk[Number(row.r)] as RankRead).values.push(Number(row.value));
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

/** Resolves every wanted rank of every cell's figures, reading the index only for groups with distinct folded values. */
export async function resolveRanks(knex: Knex, plan: FigureRead, cells: CellTotals[]): Promise<FigureCell[]> {
  const reads: RankRead[] = [];
  const answers: FigureCell[] = [];
  for (const cell of cells) {
    const figures = new Map<TraceFigure, CellFigure>();
    let count = 0;
    for (const [figure, totals] of cell.figures) {
      // By their bins: a group's number does not order it among groups of another kind (figureGroupOf).
      const groups = [...totals.groups.values()].sort((a, b) => a.firstBin - b.firstBin);
      for (const group of groups) {
        if (group.stored < 0) throw new Error('a histogram holds fewer folded figures than are stale');
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
          reads.push({ cell, figure, group, offset, from, values: [], resolve: (value) => byRank.set(rank, value) });
        }
      }
    }
    if (count > 0) answers.push({ bucket: cell.bucket, service: cell.service, count, figures });
  }
  await readWindows(knex, plan, reads);
  for (const read of reads) read.resolve(offsetFromWindow(read));
  return answers;
}
