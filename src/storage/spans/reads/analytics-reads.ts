// POST /engine/analytics's reads: the matching spans (or traces) of a window grouped by up to
// three text keys and split into time buckets, with exact measures, in one snapshot. Without a
// percentile, one statement (rankedPointsQuery) reads every group's cells (group × bucket), ranks
// the groups from them and folds those past row_limit into `other`, as a hand-written query
// would. With one, the values at its ranks need each cell's own rows, so the reads go in steps:
//  1. the groups ranked over the whole window by one measure (row_limit + 1 of them, so that a
//     left-out group shows), when there is a group_by;
//  2. the measures per kept group and bucket;
//  3. when groups were left out, the measures per bucket of everything else (`other`);
//  4. per percentile field, the values at the ranks around each percentile position
//     (ROW_NUMBER() partitioned by group and bucket; never PERCENTILE_CONT), for 2 and 3.
// Keys group, sort and compare by their exact bytes (dialect.exactKey). Everything reads the
// same matching builders as POST /engine/query and POST /traces, so the window's index serves.
// Which source answers is planned in the domain (src/traces/read-planner.ts); analyticsRows runs
// the plan: each source's exactness check in the snapshot, the first source that passes answers.
// The roll-ups (rollup-reads.ts; per indexed attribute key, slot-rollup-reads.ts) take the same
// statements as the spans over another source, with the same AnalyticsRows; the folded figures
// answer through folded-analytics.ts.
import type { Knex } from 'knex';
import type { SqlDialect } from '../../sql/dialect.js';
import { dialectFor } from '../../sql/index.js';
import type { ResolvedField } from '../../../filter/fields.js';
import { targetOfResolved, type FilterColumn } from '../filter-targets.js';
import { matchingSpans, type WindowFilter } from './span-pages.js';
import { asNumber, asText } from '../stored-span.js';
import { MIN_STORED_INTEGER } from '../time-bounds.js';
import { afterPurgeEdge, matchingRollups, rollupAggregateSql, rollupAverageParts } from '../rollups/rollup-reads.js';
import { foldedAnalyticsRows } from '../fold/folded-analytics.js';
import { pendingWithinLimit } from '../fold/trace-figure-reads.js';
import { matchingTraces, windowSpanTimes, type SpanTimes } from '../traces/trace-pages.js';
import { matchingSlotRollups, SLOT_KEY_SQL, slotBucketsExact } from '../rollups/slot-rollup-reads.js';
import type { PlannedSlotRollups, PlannedSource, PlannedSpanRollups, ReadPlan } from '../read-sources.js';

export type AnalyticsGrain = 'spans' | 'traces';
export type AggregateFn = 'count' | 'sum' | 'avg' | 'min' | 'max';
export type PercentileFn = 'p50' | 'p90' | 'p95' | 'p99';

/** The whole percent of each percentile function. */
export const PERCENT_OF: Record<PercentileFn, number> = { p50: 50, p90: 90, p95: 95, p99: 99 };

/** The stored column a measure field reads, per grain. */
export const MEASURE_COLUMNS: Record<AnalyticsGrain, Record<string, string>> = {
  spans: {
    duration_ms: 'duration_ms',
    cost: 'cost',
    'usage.amount': 'usage_amount',
    'tokens.input': 'input_tokens',
    'tokens.output': 'output_tokens',
    'tokens.cache_read': 'cache_read_tokens',
    'tokens.cache_creation': 'cache_creation_tokens',
    'tokens.total': 'total_tokens',
  },
  traces: { duration_ms: 'duration_ms', total_cost: 'total_cost', spans_count: 'spans_count', error_count: 'error_count' },
};

/** The root fields a trace summary carries, the group keys at trace grain. */
export const TRACE_GROUP_FIELDS = ['service_name', 'span_name', 'unit', 'parent_unit'] as const;

export type StoredMeasure = { fn: 'count' } | { fn: Exclude<AggregateFn, 'count'> | PercentileFn; field: string };

export interface AnalyticsQuery extends WindowFilter {
  grain: AnalyticsGrain;
  /** Validated text fields, resolved (attribute paths included; at trace grain, TRACE_GROUP_FIELDS). */
  groupBy: ResolvedField[];
  measures: StoredMeasure[];
  /** Index of a non-percentile measure in `measures`. */
  orderBy: { measure: number; direction: 'asc' | 'desc' };
  rowLimit: number;
  widthNs: bigint;
  /** At grain traces, the span times of the window's traces (set by analyticsRows, windowSpanTimes()). */
  spanTimes?: SpanTimes | null;
  /** Read from the roll-ups instead of the spans (set by analyticsRows when the plan's roll-up passed its check). */
  rollup?: PlannedSpanRollups | PlannedSlotRollups;
}

/** A percentile measure's material: how many values, and the values at the ranks it needs. */
export interface RankedValues {
  count: number;
  byRank: Map<number, number>;
}

export type StoredValue = number | null | RankedValues;

export interface StoredPoint {
  /** 0-based index of the bucket from the window's start. */
  bucket: number;
  values: StoredValue[];
}

export interface StoredGroup {
  key: Array<string | null>;
  points: StoredPoint[];
}

export interface AnalyticsRows {
  groups: StoredGroup[];
  /** The buckets of every group past rowLimit, null when none was left out. */
  other: StoredPoint[] | null;
  truncated: boolean;
}

function isPercentile(fn: StoredMeasure['fn']): fn is PercentileFn {
  return fn in PERCENT_OF;
}

/** How one query reads the matching rows: its builder, alias, time column and key expressions. */
interface Source {
  dialect: SqlDialect;
  matching: () => Knex.QueryBuilder;
  alias: string;
  timeColumn: string;
  /** Per group_by field: its text expression (with its bindings). */
  keys: Array<{ sql: string; bindings: Knex.Value[] }>;
  /** The aggregate of a non-percentile measure (a percentile's is the count of its values). */
  aggregate(measure: StoredMeasure): string;
  /** The sum and count of a field's values, from which averages over several cells combine. */
  averageParts(field: string): { sum: string; count: string };
}

function sourceOf(knex: Knex, query: AnalyticsQuery): Source {
  const dialect = dialectFor(knex);
  const plan = query.rollup;
  if (plan?.source === 'slot_rollups') {
    return {
      dialect,
      matching: () => matchingSlotRollups(knex, dialect, query, plan),
      alias: 'r',
      timeColumn: 'r.bucket_start_unix_nano',
      keys: [{ sql: SLOT_KEY_SQL, bindings: [] }],
      aggregate: (measure) => rollupAggregateSql(dialect, measure.fn, 'field' in measure ? measure.field : undefined),
      averageParts: rollupAverageParts,
    };
  }
  if (plan) {
    return {
      dialect,
      matching: () => matchingRollups(knex, dialect, query, plan),
      alias: 'r',
      timeColumn: 'r.bucket_start_unix_nano',
      keys: plan.dimensions.map((dimension) => ({ sql: `r.${dimension}`, bindings: [] })),
      aggregate: (measure) => rollupAggregateSql(dialect, measure.fn, 'field' in measure ? measure.field : undefined),
      averageParts: rollupAverageParts,
    };
  }
  const alias = query.grain === 'spans' ? 's' : 't';
  const keys = query.groupBy.map((field) => {
    const target = targetOfResolved(field);
    if (target.kind === 'attribute') return dialect.attributeText(`${alias}.${target.source}`, target.key);
    if (target.kind === 'number' || target.kind === 'trace') throw new Error(`numeric group key ${target.column}`);
    return { sql: `${alias}.${target.column satisfies FilterColumn}`, bindings: [] };
  });
  return {
    dialect,
    matching: () =>
      query.grain === 'spans'
        ? matchingSpans(knex, query, { throughSlotValues: true })
        : matchingTraces(knex, { ...query, searchChildSpans: true }),
    alias,
    timeColumn: query.grain === 'spans' ? 's.start_time_unix_nano' : 't.root_start_time_unix_nano',
    keys,
    aggregate: (measure) => aggregateSql(query, dialect, alias, measure),
    averageParts: (field) => {
      const column = columnOf(query, alias, field);
      return { sum: `SUM(${dialect.asDouble(column)})`, count: `COUNT(${column})` };
    },
  };
}

function columnOf(query: AnalyticsQuery, alias: string, field: string): string {
  const column = MEASURE_COLUMNS[query.grain][field];
  if (column === undefined) throw new Error(`no measure field ${field} at grain ${query.grain}`);
  return `${alias}.${column}`;
}

/** A measure's aggregate over spans or traces; a percentile's is the count of its values (its ranks come from percentileValuesQuery). */
function aggregateSql(query: AnalyticsQuery, dialect: SqlDialect, alias: string, measure: StoredMeasure): string {
  if (measure.fn === 'count') return 'COUNT(*)';
  const column = columnOf(query, alias, measure.field);
  if (isPercentile(measure.fn)) return `COUNT(${column})`;
  if (measure.fn === 'avg') return `AVG(${dialect.asDouble(column)})`;
  return `${measure.fn.toUpperCase()}(${column})`;
}

function bucketSql(source: Source, query: AnalyticsQuery): { sql: string; bindings: Knex.Value[] } {
  const { dialect } = source;
  return {
    sql: dialect.integerDivide(`${source.timeColumn} - ${dialect.exactInteger}`, dialect.exactInteger),
    bindings: [query.startNs.toString(), query.widthNs.toString()],
  };
}

export type GroupKey = Array<string | null>;

/**
 * Which matching rows a points read covers: all of them as one series (no group_by), every group
 * each apart (none was left out), the kept groups each apart, or the rest (every group but the
 * kept ones) as one series, `other`.
 */
export type Selection = { kind: 'all' | 'every' } | { kind: 'kept' | 'rest'; keys: GroupKey[] };

/** Whether a selection's points are read per group (the kept groups, or every group when none was left out). */
function perGroup(selection: Selection): boolean {
  return selection.kind === 'kept' || selection.kind === 'every';
}

/** `keys match one of the tuples` (`rest`: none of them); a null key matches only NULL. */
function selected(source: Source, selection: Selection) {
  return (builder: Knex.QueryBuilder) => {
    if (!('keys' in selection)) return;
    const negate = selection.kind === 'rest';
    const kept = selection.keys;
    const bindings: Knex.Value[] = [];
    const tuples = kept.map((tuple) => {
      const parts = tuple.map((value, index) => {
        const key = source.keys[index] as { sql: string; bindings: Knex.Value[] };
        if (value === null) {
          bindings.push(...key.bindings);
          return `${key.sql} IS NULL`;
        }
        // `IS NOT NULL AND`: never NULL, so that the negation holds for NULL keys too.
        bindings.push(...key.bindings, ...key.bindings, value);
        return `(${key.sql} IS NOT NULL AND ${source.dialect.exactKey(key.sql)} = ${source.dialect.exactKey('?')})`;
      });
      return `(${parts.join(' AND ')})`;
    });
    const sql = `(${tuples.join(' OR ')})`;
    builder.whereRaw(negate ? `NOT ${sql}` : sql, bindings);
  };
}

type Row = Record<string, unknown>;

/** 1. The groups ranked over the window by the order measure, rowLimit + 1 of them (k0, k1, …). */
export function rankedKeysQuery(knex: Knex, query: AnalyticsQuery): Knex.QueryBuilder {
  const source = sourceOf(knex, query);
  const measure = query.measures[query.orderBy.measure] as StoredMeasure;
  const builder = source.matching();
  source.keys.forEach((key, index) => builder.select(knex.raw(`MIN(${key.sql}) AS k${index}`, key.bindings)));
  builder.select(knex.raw(`${source.aggregate(measure)} AS r`));
  source.keys.forEach((key) => builder.groupByRaw(source.dialect.exactKey(key.sql), key.bindings));
  const direction = query.orderBy.direction === 'asc' ? 'ASC' : 'DESC';
  builder.orderByRaw(`CASE WHEN ${source.aggregate(measure)} IS NULL THEN 1 ELSE 0 END, ${source.aggregate(measure)} ${direction}`);
  source.keys.forEach((key) => builder.orderByRaw(source.dialect.exactKey(key.sql), key.bindings));
  return builder.limit(query.rowLimit + 1);
}

function keyText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return asText(value);
}

function tupleId(key: Array<string | null>, bucket: number): string {
  return JSON.stringify([key, bucket]);
}

/** 2 and 3. Measures per bucket (b, m0, m1, …), and per group (k0, k1, …) for the kept groups. */
export function pointsQuery(knex: Knex, query: AnalyticsQuery, selection: Selection): Knex.QueryBuilder {
  const source = sourceOf(knex, query);
  const grouped = perGroup(selection);
  const bucket = bucketSql(source, query);
  const builder = source.matching().modify(selected(source, selection));
  if (grouped) source.keys.forEach((key, index) => builder.select(knex.raw(`MIN(${key.sql}) AS k${index}`, key.bindings)));
  builder.select(knex.raw(`${bucket.sql} AS b`, bucket.bindings));
  query.measures.forEach((measure, index) => builder.select(knex.raw(`${source.aggregate(measure)} AS m${index}`)));
  if (grouped) source.keys.forEach((key) => builder.groupByRaw(source.dialect.exactKey(key.sql), key.bindings));
  // By its alias: the same expression written twice would need its bindings twice.
  builder.groupByRaw('b');
  return builder;
}

/**
 * 4. For one percentile field: per group (when `grouped`) and bucket, the values at the given
 * ranks of each percent (ROW_NUMBER() over the non-null values, the count beside it).
 */
export function percentileValuesQuery(
  knex: Knex,
  query: AnalyticsQuery,
  selection: Selection,
  field: string,
  percents: number[],
): Knex.QueryBuilder {
  const source = sourceOf(knex, query);
  const grouped = perGroup(selection);
  const { dialect } = source;
  const bucket = bucketSql(source, query);
  const column = columnOf(query, source.alias, field);
  const inner = source.matching().modify(selected(source, selection)).whereNotNull(column);
  const keyNames = grouped ? source.keys.map((_, index) => `g${index}`) : [];
  if (grouped) {
    source.keys.forEach((key, index) => {
      inner.select(knex.raw(`${key.sql} AS k${index}`, key.bindings));
      inner.select(knex.raw(`${dialect.exactKey(key.sql)} AS g${index}`, key.bindings));
    });
  }
  inner.select(knex.raw(`${bucket.sql} AS b`, bucket.bindings)).select(knex.raw(`${column} AS v`));
  const partition = [...keyNames, 'b'].join(', ');
  const ranked = knex
    .select(
      knex.raw(
        [
          'd.*',
          `ROW_NUMBER() OVER (PARTITION BY ${partition} ORDER BY v) - 1 AS rk`,
          `COUNT(*) OVER (PARTITION BY ${partition}) AS n`,
        ].join(', '),
      ),
    )
    .from(inner.as('d'))
    .as('r');
  const wanted = percents.flatMap((percent) => {
    const low = dialect.integerDivide(`${percent} * (n - 1)`, '100');
    return [`rk = ${low}`, `rk = ${low} + 1`];
  });
  return knex.select('*').from(ranked).whereRaw(wanted.join(' OR '));
}

/** A measure over several cells' values (columns m, s, n of measure `index`), `over` a window or none. */
function combinedSql(dialect: SqlDialect, measure: StoredMeasure, index: number, over = ''): string {
  if (measure.fn === 'min' || measure.fn === 'max') return `${measure.fn.toUpperCase()}(m${index})${over}`;
  if (measure.fn === 'avg') return `${dialect.asDouble(`SUM(s${index})${over}`)} / NULLIF(SUM(n${index})${over}, 0)`;
  if (measure.fn === 'count' || measure.fn === 'sum') return `SUM(m${index})${over}`;
  throw new Error(`${measure.fn} does not combine from cells`);
}

/**
 * 1 to 3 in one statement, for a grouped request without a percentile: every group's cells (its
 * measures per bucket, k0… its exact key bytes), the groups ranked by the order measure combined
 * over their cells (no value last, ties by key bytes), and per bucket the kept groups' cells as
 * they are (p, their place from 1) and the rest combined into one series (p 0: `other`).
 */
export function rankedPointsQuery(knex: Knex, query: AnalyticsQuery): Knex.QueryBuilder {
  const source = sourceOf(knex, query);
  const { dialect } = source;
  const bucket = bucketSql(source, query);
  const keys = source.keys.map((_, index) => `k${index}`);
  const cells = source.matching();
  source.keys.forEach((key, index) => cells.select(knex.raw(`${dialect.exactKey(key.sql)} AS k${index}`, key.bindings)));
  cells.select(knex.raw(`${bucket.sql} AS b`, bucket.bindings));
  query.measures.forEach((measure, index) => {
    cells.select(knex.raw(`${source.aggregate(measure)} AS m${index}`));
    if (measure.fn === 'avg') {
      const parts = source.averageParts(measure.field);
      cells.select(knex.raw(`${parts.sum} AS s${index}, ${parts.count} AS n${index}`));
    }
  });
  // By their aliases: the same expressions written twice would need their bindings twice.
  cells.groupByRaw([...keys, 'b'].join(', '));
  const orderIndex = query.orderBy.measure;
  const rankValue = combinedSql(
    dialect,
    query.measures[orderIndex] as StoredMeasure,
    orderIndex,
    ` OVER (PARTITION BY ${keys.join(', ')})`,
  );
  const totals = knex.select(knex.raw(`cells.*, ${rankValue} AS r`)).from(cells.as('cells'));
  const direction = query.orderBy.direction === 'asc' ? 'ASC' : 'DESC';
  const ranked = knex
    .select(
      knex.raw(`totals.*, DENSE_RANK() OVER (ORDER BY CASE WHEN r IS NULL THEN 1 ELSE 0 END, r ${direction}, ${keys.join(', ')}) AS pos`),
    )
    .from(totals.as('totals'));
  const limit = query.rowLimit;
  const outer = knex.select(knex.raw('CASE WHEN pos <= ? THEN pos ELSE 0 END AS p, b', [limit])).from(ranked.as('ranked'));
  keys.forEach((key) => outer.select(knex.raw(`MIN(CASE WHEN pos <= ? THEN ${key} END) AS ${key}`, [limit])));
  // A kept group has one cell per bucket: MIN takes it as it is.
  query.measures.forEach((measure, index) =>
    outer.select(
      knex.raw(`CASE WHEN MIN(pos) <= ? THEN MIN(m${index}) ELSE ${combinedSql(dialect, measure, index)} END AS m${index}`, [limit]),
    ),
  );
  return outer.groupByRaw('p, b');
}

function pointOf(query: AnalyticsQuery, row: Row): StoredPoint {
  return {
    bucket: asNumber(row.b),
    values: query.measures.map((measure, index) => {
      const value = row[`m${index}`];
      if (isPercentile(measure.fn)) return { count: asNumber(value), byRank: new Map() };
      return value === null || value === undefined ? null : asNumber(value);
    }),
  };
}

/** The rows of a grouped request without a percentile, from rankedPointsQuery. */
async function rankedFromCells(knex: Knex, query: AnalyticsQuery): Promise<AnalyticsRows> {
  const rows = ((await rankedPointsQuery(knex, query)) as Row[]).sort(
    (a, b) => asNumber(a.p) - asNumber(b.p) || asNumber(a.b) - asNumber(b.b),
  );
  const groups: StoredGroup[] = [];
  const other: StoredPoint[] = [];
  let place = 0;
  for (const row of rows) {
    if (asNumber(row.p) === 0) {
      other.push(pointOf(query, row));
      continue;
    }
    if (asNumber(row.p) !== place) {
      place = asNumber(row.p);
      groups.push({ key: query.groupBy.map((_, index) => keyText(row[`k${index}`])), points: [] });
    }
    (groups[groups.length - 1] as StoredGroup).points.push(pointOf(query, row));
  }
  const truncated = other.length > 0;
  return { groups, other: truncated ? other : null, truncated };
}

/** The points of a selection (pointsQuery, then percentileValuesQuery per percentile field), per key tuple (one [] key when not grouped). */
async function readPoints(
  knex: Knex,
  query: AnalyticsQuery,
  selection: Selection,
): Promise<Map<string, { key: GroupKey; points: StoredPoint[] }>> {
  const keyOf = (row: Row) => (perGroup(selection) ? query.groupBy.map((_, index) => keyText(row[`k${index}`])) : []);
  const rows = (await pointsQuery(knex, query, selection)) as Row[];
  const points = new Map<string, StoredPoint>();
  const series = new Map<string, { key: Array<string | null>; points: StoredPoint[] }>();
  for (const row of rows) {
    const key = keyOf(row);
    const point = pointOf(query, row);
    points.set(tupleId(key, point.bucket), point);
    const id = JSON.stringify(key);
    const entry = series.get(id) ?? { key, points: [] };
    entry.points.push(point);
    series.set(id, entry);
  }
  const percentileFields = [
    ...new Set(query.measures.flatMap((measure) => (isPercentile(measure.fn) && 'field' in measure ? [measure.field] : []))),
  ];
  for (const field of percentileFields) {
    const percents = [
      ...new Set(
        query.measures.flatMap((measure) =>
          isPercentile(measure.fn) && 'field' in measure && measure.field === field ? [PERCENT_OF[measure.fn]] : [],
        ),
      ),
    ];
    const ranked = (await percentileValuesQuery(knex, query, selection, field, percents)) as Row[];
    for (const row of ranked) {
      const point = points.get(tupleId(keyOf(row), asNumber(row.b)));
      if (!point) throw new Error('a ranked value outside every point');
      query.measures.forEach((measure, index) => {
        if (isPercentile(measure.fn) && 'field' in measure && measure.field === field)
          (point.values[index] as RankedValues).byRank.set(asNumber(row.rk), asNumber(row.v));
      });
    }
  }
  for (const entry of series.values()) entry.points.sort((a, b) => a.bucket - b.bucket);
  return series;
}

/**
 * The rows of a planned source, in the caller's snapshot, once its exactness check passed;
 * undefined when the check fails (then the plan's next source answers).
 */
async function rowsFrom(trx: Knex.Transaction, request: AnalyticsQuery, planned: PlannedSource): Promise<AnalyticsRows | undefined> {
  const dialect = dialectFor(trx);
  switch (planned.check) {
    case 'pending_within_limit': {
      const pending = await pendingWithinLimit(trx, request.applicationId);
      return pending && foldedAnalyticsRows(trx, request, planned, pending);
    }
    case 'after_purge_edge':
      return (await afterPurgeEdge(trx, request)) ? rowsOf(trx, { ...request, rollup: planned }) : undefined;
    case 'slot_buckets_counted':
      return (await slotBucketsExact(trx, dialect, request, planned)) ? rowsOf(trx, { ...request, rollup: planned }) : undefined;
    case 'none':
      return rowsOf(trx, planned.source === 'trace_summaries' ? { ...request, spanTimes: await windowSpanTimes(trx, request) } : request);
  }
}

/** The rows of the spans, the summaries or a roll-up (`query.rollup`), by the statements described at the top. */
async function rowsOf(trx: Knex.Transaction, query: AnalyticsQuery): Promise<AnalyticsRows> {
  if (query.groupBy.length === 0) {
    const series = await readPoints(trx, query, { kind: 'all' });
    const all = [...series.values()][0];
    return { groups: [{ key: [], points: all?.points ?? [] }], other: null, truncated: false };
  }
  if (!query.measures.some((measure) => isPercentile(measure.fn))) return rankedFromCells(trx, query);
  const ranked = ((await rankedKeysQuery(trx, query)) as Row[]).map((row) => query.groupBy.map((_, index) => keyText(row[`k${index}`])));
  if (ranked.length === 0) return { groups: [], other: null, truncated: false };
  const truncated = ranked.length > query.rowLimit;
  const kept = ranked.slice(0, query.rowLimit);
  // Nothing left out: every group's points, without a predicate naming each kept key.
  const series = await readPoints(trx, query, truncated ? { kind: 'kept', keys: kept } : { kind: 'every' });
  const groups = kept.map((key) => ({ key, points: series.get(JSON.stringify(key))?.points ?? [] }));
  if (!truncated) return { groups, other: null, truncated };
  const rest = await readPoints(trx, query, { kind: 'rest', keys: kept });
  return { groups, other: [...rest.values()][0]?.points ?? [], truncated };
}

/** POST /engine/analytics's rows, from one snapshot, by the plan of src/traces/read-planner.ts. */
export async function analyticsRows(knex: Knex, request: AnalyticsQuery, plan: ReadPlan): Promise<AnalyticsRows> {
  // A window starting before 1677 (the stored times' signed 64-bit range) cannot be bound as the
  // buckets' origin; at most 300 days long, it ends before anything a span can carry (from 1970).
  if (request.startNs < MIN_STORED_INTEGER)
    return { groups: request.groupBy.length === 0 ? [{ key: [], points: [] }] : [], other: null, truncated: false };
  const work = async (trx: Knex.Transaction): Promise<AnalyticsRows> => {
    for (const planned of plan.sources) {
      const rows = await rowsFrom(trx, request, planned);
      if (rows) return rows;
    }
    throw new Error('no source of the plan answered: its last one is exact as it is');
  };
  // One snapshot for every read, so that spans stored in between cannot move a group or a rank.
  return knex.transaction(work, dialectFor(knex).snapshot);
}
