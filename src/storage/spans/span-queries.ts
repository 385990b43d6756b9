// Reads of the engine API over tables `spans` and `traces`: span pages, trace-summary pages,
// the ranked rows that trace metrics are computed from, and the receive-order reads of the live
// endpoints. The SQL of the engine lives here and in the filter compiler, nowhere else.
//
// A page and its total are two statements run side by side: COUNT(*) over the window, and the
// page. Spans are read in list order from spans_newest_first, which is also their window's index,
// so a page stops early without sorting the window. (COUNT(*) OVER () in one statement was
// tried: it materialises every matching row, 7 s for a day of 1M spans.) Nanosecond times are
// bound as exact integers and read back as decimal text.
import type { Knex } from 'knex';
import type { FilterNode } from '../../filter/ast.js';
import { compileFilter } from './filter-sql.js';
import type { FilterDialect } from '../sql/dialect.js';
import { dialectFor } from '../sql/index.js';
import { targetOf, type FilterColumn } from './filter-targets.js';
import { bigintAsText, isMysql } from '../database.js';
import { pageWindow, readPage, type PageWindow } from '../paging.js';
import { SPAN_ROW_COLUMNS, type SpanRow } from './span-row.js';

export interface PageRequest {
  page: number;
  limit: number;
}

export interface WindowFilter {
  applicationId: string;
  startNs: bigint;
  endNs: bigint;
  filter: FilterNode | null;
}

export interface Page<T> {
  rows: T[];
  total: number;
}

/** The columns read back as other types than SpanRow's, or not at all. */
type ConvertedColumn = 'application_id' | 'received_at' | 'resource_attributes' | 'span_attributes' | 'events' | 'links';

/** A stored span as the engine reads it back: nanoseconds and receive sequence as decimal text. */
export type StoredSpan = Omit<SpanRow, ConvertedColumn> & {
  seq: string;
  /** JSON text of the attribute map (an object where a driver parses JSON columns itself). */
  resource_attributes: string | Record<string, unknown> | null;
  span_attributes: string | Record<string, unknown> | null;
  /** JSON text of the events and links arrays (an array where a driver parses JSON columns itself). */
  events: string | unknown[] | null;
  links: string | unknown[] | null;
};

export interface StoredTraceSummary {
  trace_id: string;
  span_name: string;
  duration_ms: number;
  spans_count: number;
  total_cost: number;
  error_count: number;
  min_start_time_unix_nano: string;
  service_name: string | null;
  unit: string | null;
  parent_unit: string | null;
}

/** The columns read as they are stored; selectSpanColumns() converts the others. */
const SPAN_COLUMNS = SPAN_ROW_COLUMNS.filter(
  (column) => !['application_id', 'received_at', 'start_time_unix_nano', 'end_time_unix_nano', 'resource_attributes', 'span_attributes', 'events', 'links'].includes(column),
);

function asNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/**
 * A JSON column as its stored text. mysql2 parses MariaDB's JSON columns into objects (through a
 * double, so large integers lose digits); as CHAR they arrive as the exact text.
 */
function jsonText(knex: Knex, column: string): Knex.Raw | string {
  return isMysql(knex) ? knex.raw(`CAST(${column} AS CHAR)`) : column;
}

function selectSpanColumns(knex: Knex, query: Knex.QueryBuilder, alias: string): Knex.QueryBuilder {
  return query
    .select(SPAN_COLUMNS.map((column) => `${alias}.${column}`))
    .select({
      seq: bigintAsText(knex, `${alias}.seq`),
      start_time_unix_nano: bigintAsText(knex, `${alias}.start_time_unix_nano`),
      end_time_unix_nano: bigintAsText(knex, `${alias}.end_time_unix_nano`),
      resource_attributes: jsonText(knex, `${alias}.resource_attributes`),
      span_attributes: jsonText(knex, `${alias}.span_attributes`),
      events: jsonText(knex, `${alias}.events`),
      links: jsonText(knex, `${alias}.links`),
    });
}

function normaliseSpan(row: Record<string, unknown>): StoredSpan {
  return {
    ...(row as unknown as StoredSpan),
    seq: String(row.seq),
    duration_ms: asNumber(row.duration_ms),
    cost: row.cost === null ? null : asNumber(row.cost),
    usage_amount: row.usage_amount === null ? null : asNumber(row.usage_amount),
    dropped_attributes_count: row.dropped_attributes_count === null ? null : asNumber(row.dropped_attributes_count),
    dropped_events_count: row.dropped_events_count === null ? null : asNumber(row.dropped_events_count),
    dropped_links_count: row.dropped_links_count === null ? null : asNumber(row.dropped_links_count),
  };
}

/** The range of the BIGINT time and sequence columns. */
export const MIN_STORED_INTEGER = -(2n ** 63n);
export const MAX_STORED_INTEGER = 2n ** 63n - 1n;

/**
 * `[startNs, endNs)` on a nanosecond column. A bound outside the column's signed 64-bit range
 * (RFC 3339 reaches from year 0001 to 9999) is applied as what it means, either no bound or one
 * that nothing meets: bound as it is, MariaDB's CAST would wrap it to a wrong number.
 */
function betweenNanos(dialect: FilterDialect, column: string, startNs: bigint | undefined, endNs: bigint | undefined) {
  return (query: Knex.QueryBuilder) => {
    if (startNs !== undefined) {
      if (startNs > MAX_STORED_INTEGER) query.whereRaw('1 = 0');
      else if (startNs > MIN_STORED_INTEGER) query.whereRaw(`${column} >= ${dialect.exactInteger}`, [startNs.toString()]);
    }
    if (endNs !== undefined) {
      if (endNs <= MIN_STORED_INTEGER) query.whereRaw('1 = 0');
      else if (endNs <= MAX_STORED_INTEGER) query.whereRaw(`${column} < ${dialect.exactInteger}`, [endNs.toString()]);
    }
  };
}

/** The rows of one page and the total over all pages, read at the same time. */
async function pageAndTotal<T>(
  base: () => Knex.QueryBuilder,
  page: (query: Knex.QueryBuilder, window: PageWindow) => Promise<T[]>,
  request: PageRequest,
): Promise<Page<T>> {
  const [rows, counted] = await Promise.all([
    page(base(), pageWindow(request.page, request.limit)),
    base().count({ total: '*' }) as Promise<Array<{ total: unknown }>>,
  ]);
  return { rows, total: asNumber(counted[0]?.total ?? 0) };
}

/** POST /engine/query: spans of the window matching the filter, newest first. */
export async function findSpans(knex: Knex, query: WindowFilter & PageRequest): Promise<Page<StoredSpan>> {
  const dialect = dialectFor(knex);
  const where = compileFilter(query.filter, { dialect, column: (name) => `s.${name}` });
  const base = () =>
    knex({ s: 'spans' })
      .where('s.application_id', query.applicationId)
      .modify(betweenNanos(dialect, 's.start_time_unix_nano', query.startNs, query.endNs))
      .modify((builder) => {
        if (where) builder.where(where);
      });
  return pageAndTotal(
    base,
    async (builder, window) => {
      const rows = await readPage<Record<string, unknown>>(
        selectSpanColumns(knex, builder, 's').orderBy([
          { column: 's.start_time_unix_nano', order: 'desc' },
          { column: 's.trace_id' },
          { column: 's.span_id' },
        ]),
        window,
      );
      return rows.map(normaliseSpan);
    },
    query,
  );
}

// The root's span_name, service_name, unit and parent_unit are copied into its trace summary;
// a filter on root spans that reads nothing else needs no join to the root span.
const SUMMARY_COLUMNS: ReadonlySet<FilterColumn> = new Set(['trace_id', 'span_name', 'service_name', 'unit', 'parent_unit']);

function filterFields(node: FilterNode | null, out: Set<string> = new Set()): Set<string> {
  if (node === null) return out;
  if (node.kind === 'condition') out.add(node.field);
  else node.children.forEach((child) => filterFields(child, out));
  return out;
}

export interface TraceQuery extends WindowFilter {
  /** false: the filter tests each trace's root span; true: at least one of its spans. */
  searchChildSpans: boolean;
}

/** Traces whose root starts in the window and that match the filter (a builder over `traces t`). */
export function matchingTraces(knex: Knex, query: TraceQuery): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  const builder = knex({ t: 'traces' })
    .where('t.application_id', query.applicationId)
    // A trace without a root (no parentless and no SERVER span) belongs to no window.
    .whereNotNull('t.root_start_time_unix_nano')
    .modify(betweenNanos(dialect, 't.root_start_time_unix_nano', query.startNs, query.endNs));
  if (query.filter === null) return builder;
  if (query.searchChildSpans) {
    const where = compileFilter(query.filter, { dialect, column: (name) => `s.${name}` });
    return builder.whereExists((exists) => {
      exists
        .select(knex.raw('1'))
        .from({ s: 'spans' })
        .whereRaw('s.application_id = t.application_id')
        .whereRaw('s.trace_id = t.trace_id')
        .where(where as (inner: Knex.QueryBuilder) => void);
    });
  }
  const onSummary = (name: FilterColumn) => SUMMARY_COLUMNS.has(name);
  const needsRoot = [...filterFields(query.filter)].some((field) => {
    const target = targetOf(field);
    return target.kind === 'attribute' || !onSummary(target.column);
  });
  if (needsRoot) {
    builder.join({ r: 'spans' }, (join) => {
      join.on('r.application_id', 't.application_id').andOn('r.trace_id', 't.trace_id').andOn('r.span_id', 't.root_span_id');
    });
  }
  const where = compileFilter(query.filter, { dialect, column: (name) => (onSummary(name) ? `t.${name}` : `r.${name}`) });
  return builder.where(where as (inner: Knex.QueryBuilder) => void);
}

/** POST /traces: one summary per matching trace, latest first. */
export async function findTraces(knex: Knex, query: TraceQuery & PageRequest): Promise<Page<StoredTraceSummary>> {
  return pageAndTotal(
    () => matchingTraces(knex, query),
    async (builder, window) => {
      // Sorted after the window is found (traces_by_root_start or the primary key, as the
      // optimizer judges): an index in list order would let a page with few matches walk every
      // older trace of the application, since the window bounds the root's start, not the order.
      const rows = await readPage<Record<string, unknown>>(
        builder
          .select('t.trace_id', 't.span_name', 't.duration_ms', 't.spans_count', 't.total_cost', 't.error_count', 't.service_name', 't.unit', 't.parent_unit')
          .select({ min_start_time_unix_nano: bigintAsText(knex, 't.min_start_time_unix_nano') })
          .orderBy([{ column: 't.min_start_time_unix_nano', order: 'desc' }, { column: 't.trace_id' }]),
        window,
      );
      return rows.map((row) => ({
        ...(row as unknown as StoredTraceSummary),
        duration_ms: asNumber(row.duration_ms),
        spans_count: asNumber(row.spans_count),
        total_cost: asNumber(row.total_cost),
        error_count: asNumber(row.error_count),
      }));
    },
    query,
  );
}

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

/**
 * The statistics trace metrics are made of, computed in the database over the traces that
 * `POST /traces?search_child_spans=true` lists, in two reads of one snapshot:
 *  1. count, mean, population variance, min and max of each figure (VAR_POP, a single
 *     accurate pass, where the database has it; two passes on SQLite);
 *  2. each figure's values at the ranks around its percentile positions (ROW_NUMBER(); never
 *     MariaDB's PERCENTILE_CONT, whose DOUBLE(18,10) result is wrong from about 1e8, and with
 *     the ranks bound as constants: COUNT(*) OVER () costs as much as a sort there).
 * At most a few dozen values reach Node, however many traces match.
 */
export async function traceMetricRanks(knex: Knex, query: WindowFilter): Promise<MetricRanks> {
  const mysql = isMysql(knex);
  const work = async (trx: Knex.Transaction): Promise<MetricRanks> => {
    const dialect = dialectFor(trx);
    const matched = () =>
      matchingTraces(trx, { ...query, searchChildSpans: true })
        .select({ d: 't.duration_ms', c: 't.total_cost' })
        .select(trx.raw(`${dialect.asDouble('t.spans_count')} AS s`))
        .as('m');
    const figures = Object.values(FIGURE_COLUMNS);
    const summary = figures.flatMap((v) => [`AVG(${v}) AS mean_${v}`, `MIN(${v}) AS min_${v}`, `MAX(${v}) AS max_${v}`]);
    let aggregates: Record<string, unknown> | undefined;
    if (mysql) {
      const spreads = figures.map((v) => `VAR_POP(${v}) AS variance_${v}`);
      [aggregates] = await trx.select(trx.raw(['COUNT(*) AS n', ...summary, ...spreads].join(', '))).from(matched());
    } else {
      // SQLite has no VAR_POP: the mean first, then the mean squared deviation from it.
      const spreads = figures.map((v) => `(SELECT AVG((${v} - a.mean_${v}) * (${v} - a.mean_${v})) FROM m) AS variance_${v}`);
      [aggregates] = await trx
        .with('m', (inner) => inner.select('*').from(matched()))
        .select(trx.raw(['a.*', ...spreads].join(', ')))
        .from(trx.select(trx.raw(['COUNT(*) AS n', ...summary].join(', '))).from('m').as('a'));
    }
    const count = asNumber(aggregates?.n ?? 0);
    const ranks = count > 0 ? percentileRanks(count) : [];
    const ranked: Array<Record<string, unknown>> =
      ranks.length === 0
        ? []
        : await trx
            .select('*')
            .from(
              trx
                .select(figures)
                .select(trx.raw(figures.map((v) => `ROW_NUMBER() OVER (ORDER BY ${v}) - 1 AS rank_${v}`).join(', ')))
                .from(matched())
                .as('r'),
            )
            .where((where) => {
              for (const v of figures) where.orWhereIn(`rank_${v}`, ranks);
            });
    const statistics = (v: string): FigureStatistics => ({
      mean: asNumber(aggregates?.[`mean_${v}`] ?? 0),
      stddev: Math.sqrt(Math.max(0, asNumber(aggregates?.[`variance_${v}`] ?? 0))),
      min: asNumber(aggregates?.[`min_${v}`] ?? 0),
      max: asNumber(aggregates?.[`max_${v}`] ?? 0),
      byRank: new Map(ranked.filter((row) => ranks.includes(asNumber(row[`rank_${v}`]))).map((row) => [asNumber(row[`rank_${v}`]), asNumber(row[v])])),
    });
    return { count, figures: { duration: statistics('d'), cost: statistics('c'), spans: statistics('s') } };
  };
  // One snapshot for both reads, so that spans stored in between cannot shift the ranks.
  return knex.transaction(work, mysql ? { isolationLevel: 'repeatable read' } : undefined);
}

/** GET /traces/live: the application's spans by receive sequence, newest first. */
export async function recentSpans(
  knex: Knex,
  query: { applicationId: string; startNs: bigint | undefined; endNs: bigint | undefined } & PageRequest,
): Promise<Page<StoredSpan>> {
  const dialect = dialectFor(knex);
  const windowed = query.startNs !== undefined || query.endNs !== undefined;
  const base = (from: string | Knex.Raw = 'spans as s') =>
    knex.from(from).where('s.application_id', query.applicationId).modify(betweenNanos(dialect, 's.start_time_unix_nano', query.startNs, query.endNs));
  const window = pageWindow(query.page, query.limit);
  const page = async (): Promise<StoredSpan[]> => {
    if (!windowed) {
      // The (application_id, seq) index read backwards: the page, and nothing more.
      const rows = await readPage<Record<string, unknown>>(selectSpanColumns(knex, base(), 's').orderBy('s.seq', 'desc'), window);
      return rows.map(normaliseSpan);
    }
    // With a window, walking the receive order from the newest span can pass every span received
    // after the window first; the window's own (start time) index bounds the work by its size.
    const keys = await readPage<{ seq: unknown }>(
      base(knex.raw(dialect.tableThroughIndex('spans', 's', 'spans_newest_first')))
        .select({ seq: 's.seq' })
        .orderBy('s.seq', 'desc'),
      window,
    );
    const bySeq = new Map((await spansBySeq(knex, query.applicationId, keys.map((key) => String(key.seq)))).map((span) => [span.seq, span]));
    return keys.map((key) => bySeq.get(String(key.seq))).filter((span): span is StoredSpan => span !== undefined);
  };
  // Without a window the total is the sum of the trace summaries' span counts, which the span
  // writer keeps in the same transactions as the spans: the same number, from a fraction of the
  // rows (one per trace), where counting a million spans took 0.3 to 0.7 s.
  const total = windowed ? base().count({ total: '*' }) : knex('traces').where('application_id', query.applicationId).sum({ total: 'spans_count' });
  const [rows, counted] = await Promise.all([page(), total as Promise<Array<{ total: unknown }>>]);
  return { rows, total: asNumber(counted[0]?.total ?? 0) };
}

/** The highest receive sequence of the application's stored spans ('0' when none). */
export async function latestSeq(knex: Knex, applicationId: string): Promise<string> {
  const [row] = (await knex('spans').where('application_id', applicationId).select({ latest: bigintAsText(knex, 'MAX(seq)') })) as Array<{ latest: unknown }>;
  return row?.latest === null || row?.latest === undefined ? '0' : String(row.latest);
}

/** Receive sequences of the application in `(after, upTo]` (upTo omitted: no upper bound), ascending. */
export async function seqsBetween(knex: Knex, applicationId: string, after: string, upTo: string | undefined, limit: number): Promise<string[]> {
  const dialect = dialectFor(knex);
  const rows: Array<{ seq: unknown }> = await knex('spans')
    .where('application_id', applicationId)
    .whereRaw(`seq > ${dialect.exactInteger}`, [after])
    .modify((query) => {
      if (upTo !== undefined) query.whereRaw(`seq <= ${dialect.exactInteger}`, [upTo]);
    })
    .select({ seq: bigintAsText(knex, 'seq') })
    .orderBy('seq')
    .limit(limit);
  return rows.map((row) => String(row.seq));
}

/** How many of the application's spans have a receive sequence in `(after, upTo]`. */
export async function countSeqsBetween(knex: Knex, applicationId: string, after: string, upTo: string): Promise<number> {
  const dialect = dialectFor(knex);
  const [row] = (await knex('spans')
    .where('application_id', applicationId)
    .whereRaw(`seq > ${dialect.exactInteger}`, [after])
    .whereRaw(`seq <= ${dialect.exactInteger}`, [upTo])
    .count({ total: '*' })) as Array<{ total: unknown }>;
  return asNumber(row?.total ?? 0);
}

/** The application's spans with these receive sequences, ascending. */
export async function spansBySeq(knex: Knex, applicationId: string, seqs: string[]): Promise<StoredSpan[]> {
  if (seqs.length === 0) return [];
  const rows: Array<Record<string, unknown>> = await selectSpanColumns(knex, knex({ s: 'spans' }), 's')
    .where('s.application_id', applicationId)
    .whereIn('s.seq', seqs.map(Number))
    .orderBy('s.seq');
  return rows.map(normaliseSpan);
}

/** The application's spans with a receive sequence above `after`, ascending, at most `limit`. */
export async function spansAfter(knex: Knex, applicationId: string, after: string, limit: number): Promise<StoredSpan[]> {
  const dialect = dialectFor(knex);
  const rows: Array<Record<string, unknown>> = await selectSpanColumns(knex, knex({ s: 'spans' }), 's')
    .where('s.application_id', applicationId)
    .whereRaw(`s.seq > ${dialect.exactInteger}`, [after])
    .orderBy('s.seq')
    .limit(limit);
  return rows.map(normaliseSpan);
}
