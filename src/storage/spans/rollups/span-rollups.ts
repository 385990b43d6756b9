// Roll-ups of the spans (table `span_rollups`, docs/analytics.md): per application, per minute
// and per hour of start time, and per combination of the low-cardinality text columns
// (ROLLUP_DIMENSIONS), the count of spans and the count, sum, minimum and maximum of duration,
// cost and usage amount. The span writer adds the spans it stores in the same transaction. The
// retention purge subtracts nothing: it raises the application's purge edge (../purge-edge.ts),
// below which no roll-up row is read again, and deletes those rows a bounded number at a time.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Run } from '../../sql/dialect.js';
import { dialectFor } from '../../sql/index.js';
import { RowStatements, type NativeStatement } from '../../sql/row-statements.js';
import type { DerivedData } from '../derived/derived-data.js';
import { heldHoursOf } from '../derived/held-hours.js';
import type { SpanRow } from '../span-row.js';
import { ROLLUP_DIMENSIONS, ROLLUP_WIDTHS_S, type RollupDimension } from '../read-sources.js';

// What the roll-ups keep is read by the planner too (src/traces/read-planner.ts): it lives in read-sources.ts.
export { ROLLUP_DIMENSIONS, ROLLUP_WIDTHS_S, type RollupDimension } from '../read-sources.js';

/** What a roll-up reads of a span. */
export type RollupSpan = Pick<
  SpanRow,
  'application_id' | 'start_time_unix_nano' | 'duration_ms' | 'cost' | 'usage_amount' | RollupDimension
>;

/** The measured numbers of a roll-up row: count, sum, min and max of each figure. */
export const FIGURES = [
  ['duration', 'duration_ms'],
  ['cost', 'cost'],
  ['usage', 'usage_amount'],
] as const;

export interface RollupDelta {
  application_id: string;
  bucket_width_s: number;
  bucket_start_unix_nano: string;
  dimensions_hash: string;
  [column: string]: string | number | null;
}

function dimensionsHash(dimensions: string): string {
  return createHash('sha256').update(dimensions).digest('hex').slice(0, 32);
}

const NANOS_PER_SECOND = 1_000_000_000n;
export const WIDTHS_NS = ROLLUP_WIDTHS_S.map((widthS) => [widthS, BigInt(widthS) * NANOS_PER_SECOND] as const);

/** Whole seconds of a nanosecond time, floored (also before 1970): exact as a double for any 64-bit time. */
export function secondsOf(nanos: string): number {
  // From 1970 on, a time's seconds are its digits but the last nine: no BigInt on the ingest path.
  if (nanos.length > 9 && nanos.charCodeAt(0) !== 45) return Number(nanos.slice(0, -9));
  const time = BigInt(nanos);
  const seconds = time / NANOS_PER_SECOND;
  return Number(time < 0n && time % NANOS_PER_SECOND !== 0n ? seconds - 1n : seconds);
}

/** The start, in whole seconds, of the bucket of `widthS` seconds holding a time of `seconds` (floored). */
export function bucketStartSeconds(seconds: number, widthS: number): number {
  return Math.floor(seconds / widthS) * widthS;
}

/** Whole seconds as the stored decimal nanoseconds. */
export function nanosText(seconds: number): string {
  return seconds === 0 ? '0' : `${seconds}000000000`;
}

/** What a roll-up row measures of a span. */
export type FigureSpan = Pick<SpanRow, 'duration_ms' | 'cost' | 'usage_amount'>;

/** The figures of one roll-up row while it is summed up: the span count, then count, sum, min and max per figure. */
export interface FigureTotals {
  spanCount: number;
  figures: Float64Array;
  extremes: Array<number | null>;
}

export function emptyTotals(): FigureTotals {
  return { spanCount: 0, figures: new Float64Array(FIGURES.length * 2), extremes: Array<number | null>(FIGURES.length * 2).fill(null) };
}

/** One delta while it is summed up. */
interface Accumulator extends FigureTotals {
  span: RollupSpan;
  widthS: number;
  start: string;
  hash: string;
}

/** Adds one span's figures. */
export function accumulate(accumulator: FigureTotals, span: FigureSpan): void {
  accumulator.spanCount += 1;
  for (let index = 0; index < FIGURES.length; index += 1) {
    const raw = span[(FIGURES[index] as (typeof FIGURES)[number])[1]];
    if (raw === null || raw === undefined) continue;
    const value = Number(raw);
    (accumulator.figures[index * 2] as number) += 1;
    (accumulator.figures[index * 2 + 1] as number) += value;
    const min = accumulator.extremes[index * 2] as number | null;
    const max = accumulator.extremes[index * 2 + 1] as number | null;
    if (min === null || value < min) accumulator.extremes[index * 2] = value;
    if (max === null || value > max) accumulator.extremes[index * 2 + 1] = value;
  }
}

/** Each figure's count, sum, minimum and maximum columns. */
const FIGURE_COLUMNS = FIGURES.map(([name]) => [`${name}_count`, `${name}_sum`, `${name}_min`, `${name}_max`] as const);

/** The measure columns of a roll-up row from its totals. */
export function figureColumns(totals: FigureTotals): Record<string, number | null> {
  const columns: Record<string, number | null> = { span_count: totals.spanCount };
  FIGURE_COLUMNS.forEach(([count, sum, min, max], index) => {
    columns[count] = totals.figures[index * 2] as number;
    columns[sum] = totals.figures[index * 2 + 1] as number;
    columns[min] = totals.extremes[index * 2] ?? null;
    columns[max] = totals.extremes[index * 2 + 1] ?? null;
  });
  return columns;
}

function deltaOf(accumulator: Accumulator): RollupDelta {
  const { span } = accumulator;
  const delta: RollupDelta = {
    application_id: span.application_id,
    bucket_width_s: accumulator.widthS,
    bucket_start_unix_nano: accumulator.start,
    dimensions_hash: accumulator.hash,
  };
  for (const column of ROLLUP_DIMENSIONS) delta[column] = span[column] ?? null;
  return Object.assign(delta, figureColumns(accumulator));
}

/** A combination's dimension values, copied from the span it was first found for (kept spans would hold their rows). */
type DimensionValues = { [column in RollupDimension]: string | null };

/**
 * The dimension values of a span, spelled out (each read by its field's name; a test holds them
 * to ROLLUP_DIMENSIONS): a span without one of them holds null there.
 */
function dimensionsOf(span: RollupSpan): DimensionValues {
  return {
    span_kind: span.span_kind ?? null,
    status_code: span.status_code ?? null,
    span_name: span.span_name ?? null,
    service_name: span.service_name ?? null,
    unit: span.unit ?? null,
    parent_unit: span.parent_unit ?? null,
    billing_resource_type: span.billing_resource_type ?? null,
    billing_resource_name: span.billing_resource_name ?? null,
    billing_service_id: span.billing_service_id ?? null,
    billing_service_name: span.billing_service_name ?? null,
    billing_sku_id: span.billing_sku_id ?? null,
    billing_sku_name: span.billing_sku_name ?? null,
    billing_region: span.billing_region ?? null,
    usage_unit: span.usage_unit ?? null,
    scope_name: span.scope_name ?? null,
  };
}

/** Whether the span has the values, compared field by field as dimensionsOf reads them. */
function hasDimensions(span: RollupSpan, values: DimensionValues): boolean {
  return (
    (span.span_kind ?? null) === values.span_kind &&
    (span.status_code ?? null) === values.status_code &&
    (span.span_name ?? null) === values.span_name &&
    (span.service_name ?? null) === values.service_name &&
    (span.unit ?? null) === values.unit &&
    (span.parent_unit ?? null) === values.parent_unit &&
    (span.billing_resource_type ?? null) === values.billing_resource_type &&
    (span.billing_resource_name ?? null) === values.billing_resource_name &&
    (span.billing_service_id ?? null) === values.billing_service_id &&
    (span.billing_service_name ?? null) === values.billing_service_name &&
    (span.billing_sku_id ?? null) === values.billing_sku_id &&
    (span.billing_sku_name ?? null) === values.billing_sku_name &&
    (span.billing_region ?? null) === values.billing_region &&
    (span.usage_unit ?? null) === values.usage_unit &&
    (span.scope_name ?? null) === values.scope_name
  );
}

/**
 * One application's combination of dimension values: the values, their hash, and while one call
 * of rollupDeltas runs, its spans per width and bucket start (seconds; empty between calls).
 */
interface Combination {
  values: DimensionValues;
  hash: string;
  buckets: Array<Map<number, Accumulator>>;
}

/**
 * The combinations of one application, span name and service: the one found last, which the next
 * span of that name and service has as a rule (it is checked by comparing values, with no lookup),
 * and all of them by the other dimensions' values in turn (no key string built per span).
 */
interface NamedCombinations {
  last: Combination | undefined;
  byValues: CombinationTrie;
}

type CombinationTrie = Map<string | null, CombinationTrie | Combination>;

/**
 * The combinations seen, by application, span name and service, kept from call to call, so that
 * a batch's spans find their hashes without hashing or allocating anything in the usual case: the
 * same services, names and SKUs arrive batch after batch. Emptied once it holds
 * KEPT_COMBINATIONS, which bounds its memory whatever the values' cardinality. rollupDeltas runs
 * start to end without awaiting and empties the buckets it filled before it returns (or throws),
 * so one call's buckets are never another's.
 */
const combinations = new Map<string, Map<string | null, Map<string | null, NamedCombinations>>>();
const KEPT_COMBINATIONS = 20_000;
let keptCombinations = 0;

/** The map under `key`, made when missing. */
function childOf<Key, Value>(map: Map<Key, Value>, key: Key, make: () => Value): Value {
  let child = map.get(key);
  if (child === undefined) {
    child = make();
    map.set(key, child);
  }
  return child;
}

/** The dimensions the trie keys, past the span name and service. */
const TRIE_DIMENSIONS = ROLLUP_DIMENSIONS.filter((column) => column !== 'span_name' && column !== 'service_name');
const LAST_DIMENSION = TRIE_DIMENSIONS.length - 1;

function combinationOf(span: RollupSpan): Combination {
  const byName = childOf(combinations, span.application_id, () => new Map());
  const byService = childOf(byName, span.span_name ?? null, () => new Map());
  const named = childOf(byService, span.service_name ?? null, (): NamedCombinations => ({ last: undefined, byValues: new Map() }));
  if (named.last !== undefined && hasDimensions(span, named.last.values)) return named.last;
  let node = named.byValues;
  for (let index = 0; index < LAST_DIMENSION; index += 1)
    node = childOf(node, span[TRIE_DIMENSIONS[index] as RollupDimension] ?? null, () => new Map()) as CombinationTrie;
  const last = span[TRIE_DIMENSIONS[LAST_DIMENSION] as RollupDimension] ?? null;
  let combination = node.get(last) as Combination | undefined;
  if (combination === undefined) {
    const values = dimensionsOf(span);
    const dimensions = JSON.stringify(ROLLUP_DIMENSIONS.map((column) => values[column]));
    combination = { values, hash: dimensionsHash(dimensions), buckets: ROLLUP_WIDTHS_S.map(() => new Map()) };
    node.set(last, combination);
    keptCombinations += 1;
  }
  named.last = combination;
  return combination;
}

/** Adds one span to its combination's buckets, noting a new accumulator in `accumulators` and its bucket map in `filled`. */
function addSpan(
  span: RollupSpan,
  accumulators: Array<[id: string, accumulator: Accumulator]>,
  filled: Array<Map<number, Accumulator>>,
): void {
  const combination = combinationOf(span);
  const seconds = secondsOf(String(span.start_time_unix_nano));
  for (let index = 0; index < ROLLUP_WIDTHS_S.length; index += 1) {
    const widthS = ROLLUP_WIDTHS_S[index] as number;
    const startS = bucketStartSeconds(seconds, widthS);
    const buckets = combination.buckets[index] as Map<number, Accumulator>;
    let accumulator = buckets.get(startS);
    if (accumulator === undefined) {
      const start = nanosText(startS);
      accumulator = { span, widthS, start, hash: combination.hash, ...emptyTotals() };
      buckets.set(startS, accumulator);
      accumulators.push([`${span.application_id}/${widthS}/${start}/${combination.hash}`, accumulator]);
      filled.push(buckets);
    }
    accumulate(accumulator, span);
  }
}

/**
 * The roll-up rows that add the spans, one per application, width, bucket and dimension values,
 * in key order (a fixed lock order for concurrent writers). On the ingest path: each combination of dimension values is hashed once (while kept), and a
 * span's buckets are found by number.
 */
export function rollupDeltas(spans: RollupSpan[]): RollupDelta[] {
  if (keptCombinations >= KEPT_COMBINATIONS) {
    combinations.clear();
    keptCombinations = 0;
  }
  const accumulators: Array<[id: string, accumulator: Accumulator]> = [];
  const filled: Array<Map<number, Accumulator>> = [];
  try {
    for (const span of spans) addSpan(span, accumulators, filled);
    return accumulators.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, accumulator]) => deltaOf(accumulator));
  } finally {
    // The kept combinations let go of this call's spans and totals.
    for (const buckets of filled) buckets.clear();
  }
}

/** Rows per upsert: within SQLite's 500-term compound inserts and the placeholder limits. */
const ROWS_PER_STATEMENT = 400;

const SPAN_ROLLUPS_KEY = ['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash'];

/**
 * Upserts that add the deltas to the stored roll-ups: counts and sums add up, the extremes widen
 * (a missing extreme on either side keeps the other). Every
 * assignment reads only old values and the incoming row, so MariaDB's left-to-right SET and
 * SQLite's old-row SET agree.
 */
export function addRollupsQuery(db: Knex, deltas: RollupDelta[]): Knex.QueryBuilder[] {
  return mergeRollupsQueries(db, 'span_rollups', SPAN_ROLLUPS_KEY, deltas);
}

/** addRollupsQuery for any table with the roll-up measure columns and the given key (slot-rollups.ts too). */
export function mergeRollupsQueries(
  db: Knex,
  table: string,
  key: string[],
  deltas: ReadonlyArray<Record<string, unknown>>,
): Knex.QueryBuilder[] {
  const statements: Knex.QueryBuilder[] = [];
  for (let offset = 0; offset < deltas.length; offset += ROWS_PER_STATEMENT)
    statements.push(mergeRollupsQuery(db, table, key, deltas.slice(offset, offset + ROWS_PER_STATEMENT)));
  return statements;
}

/** One upsert of mergeRollupsQueries: at most ROWS_PER_STATEMENT rows. */
export function mergeRollupsQuery(db: Knex, table: string, key: string[], rows: ReadonlyArray<Record<string, unknown>>): Knex.QueryBuilder {
  const { insertedValue, greatest, least } = dialectFor(db);
  const incoming = (column: string) => db.raw(insertedValue, [column]);
  const merge: Record<string, Knex.Raw> = {
    span_count: db.raw('?? + ?', [`${table}.span_count`, incoming('span_count')]),
  };
  for (const [name] of FIGURES) {
    for (const part of ['count', 'sum'])
      merge[`${name}_${part}`] = db.raw('?? + ?', [`${table}.${name}_${part}`, incoming(`${name}_${part}`)]);
    for (const [part, pick] of [
      ['min', least],
      ['max', greatest],
    ] as const) {
      const old = `${table}.${name}_${part}`;
      merge[`${name}_${part}`] = db.raw(`COALESCE(${pick}(??, ?), ??, ?)`, [
        old,
        incoming(`${name}_${part}`),
        old,
        incoming(`${name}_${part}`),
      ]);
    }
  }
  return db(table).insert(rows).onConflict(key).merge(merge);
}

/** Most rows in one upsert of the span writer (within ROWS_PER_STATEMENT). */
const WRITER_ROWS_PER_UPSERT = 256;

/**
 * The span writer's upserts are rounded up to a multiple of this many rows, so that a batch's
 * deltas (a few dozen as a rule) go in one statement, while each connection prepares at most
 * WRITER_ROWS_PER_UPSERT / ROW_STEP statement texts per table.
 */
const ROW_STEP = 8;

/**
 * The deltas in runs of at most WRITER_ROWS_PER_UPSERT rows, each filled up to a multiple of
 * ROW_STEP with copies of its last row that add nothing: no span, every count and sum 0, no
 * extreme (`nothing`: another table's measures that add nothing). Merged into the row its original made or met, such a copy leaves it as it is (0 added,
 * LEAST/GREATEST with NULL give NULL and COALESCE keeps the old extreme); it repeats the last key, so the runs stay in key order.
 */
export function paddedRuns<Row extends Record<string, unknown>>(
  deltas: readonly Row[],
  nothing: Record<string, unknown> = figureColumns(emptyTotals()),
): Row[][] {
  const runs: Row[][] = [];
  for (let offset = 0; offset < deltas.length; offset += WRITER_ROWS_PER_UPSERT) {
    const run = deltas.slice(offset, offset + WRITER_ROWS_PER_UPSERT);
    const last = run[run.length - 1] as Row;
    while (run.length % ROW_STEP !== 0) run.push({ ...last, ...nothing } as Row);
    runs.push(run);
  }
  return runs;
}

const writerUpserts = new RowStatements<RollupDelta>((db, rows) => mergeRollupsQuery(db, 'span_rollups', SPAN_ROLLUPS_KEY, rows));

/** The span writer's upserts of the deltas (addRollupsQuery's statements, as paddedRuns sizes them). */
export function writerRollupUpserts(db: Knex, deltas: readonly RollupDelta[]): NativeStatement[] {
  return paddedRuns(deltas).map((run) => writerUpserts.statement(db, run));
}

/**
 * Deletes at most `limit` rows per width of `table` (a roll-up table, keyed by application, width
 * and bucket start first, then `keyRest`) whose bucket starts below the application's purge edge:
 * never read again (../purge-edge.ts). Bounded, so that a retention cut by weeks deletes its rows
 * over many short purge transactions; in key order, along the primary key's range.
 */
export async function deleteBelowEdge(
  db: Knex,
  run: Run,
  table: string,
  keyRest: readonly string[],
  applicationId: string,
  edgeNs: bigint,
  limit: number,
): Promise<void> {
  const dialect = dialectFor(db);
  for (const [widthS] of WIDTHS_NS) {
    // The width written out: bound, MariaDB may compare it as a double and sort instead of reading in key order.
    const where = {
      sql: `application_id = ? AND bucket_width_s = ${Math.trunc(widthS)} AND bucket_start_unix_nano < ${dialect.exactInteger}`,
      bindings: [applicationId, edgeNs.toString()],
    };
    // Ordered by the whole key: MariaDB sorts when a bound text's collation differs from the key column's.
    const order = ['application_id', 'bucket_width_s', 'bucket_start_unix_nano', ...keyRest];
    await run(dialect.deleteFirstRows(db, table, where, order, limit) as unknown as Knex.QueryBuilder);
  }
}

/** The measure columns of a roll-up row computed over the spans `s` of a group (slot-rollups.ts too). */
export function figureAggregates(): string {
  const columns = FIGURES.map(
    ([name, column]) =>
      `COUNT(s.${column}) AS ${name}_count, COALESCE(SUM(s.${column}), 0) AS ${name}_sum, MIN(s.${column}) AS ${name}_min, MAX(s.${column}) AS ${name}_max`,
  );
  return ['COUNT(*) AS span_count', ...columns].join(', ');
}

/** The start of the bucket of `s.start_time_unix_nano` (bindings: hour start twice, width twice), exact on 64-bit times. */
export function bucketStartSql(db: Knex): string {
  const { exactInteger, integerDivide } = dialectFor(db);
  return `${exactInteger} + ${integerDivide(`s.start_time_unix_nano - ${exactInteger}`, exactInteger)} * ${exactInteger}`;
}

/**
 * Recomputes the application's roll-up rows of one hour (its hour bucket and its minutes) from
 * the stored spans: the rows are deleted, then grouped anew per width in SQL (each dimension by
 * its exact bytes), hashed here as the writer hashes them, and inserted. The caller's transaction
 * keeps writers out of the hour's spans meanwhile (derived-rebuild.ts).
 */
export async function rebuildRollupHour(db: Knex, run: Run, applicationId: string, startNs: bigint, endNs: bigint): Promise<void> {
  const dialect = dialectFor(db);
  const [start, end] = [startNs.toString(), endNs.toString()];
  await run(
    db('span_rollups')
      .where('application_id', applicationId)
      .whereIn(
        'bucket_width_s',
        WIDTHS_NS.map(([widthS]) => widthS),
      )
      .whereRaw(`bucket_start_unix_nano >= ${dialect.exactInteger}`, [start])
      .whereRaw(`bucket_start_unix_nano < ${dialect.exactInteger}`, [end])
      .del(),
  );
  // Within a group every value has the same bytes: MIN picks it.
  const dimensions = ROLLUP_DIMENSIONS.map((column) => `MIN(s.${column}) AS ${column}`).join(', ');
  const groups = ['bucket_start', ...ROLLUP_DIMENSIONS.map((column) => dialect.exactKey(`s.${column}`))].join(', ');
  for (const [widthS, widthNs] of WIDTHS_NS) {
    // Grouped by the output column's name: the spans have no column of that name.
    const rows = await run<Array<Record<string, unknown> & { bucket_start: string }>>(
      db.raw(
        `SELECT ${dialect.asText(bucketStartSql(db))} AS bucket_start, ${dimensions}, ${figureAggregates()} ` +
          `FROM spans s WHERE s.application_id = ? AND s.start_time_unix_nano >= ${dialect.exactInteger} AND s.start_time_unix_nano < ${dialect.exactInteger} ` +
          `GROUP BY ${groups}`,
        [start, start, widthNs.toString(), widthNs.toString(), applicationId, start, end],
      ) as unknown as Knex.QueryBuilder,
    );
    const deltas: RollupDelta[] = rows.map((row) => {
      const values = dimensionsOf(row as unknown as RollupSpan);
      const delta: RollupDelta = {
        application_id: applicationId,
        bucket_width_s: widthS,
        bucket_start_unix_nano: String(row.bucket_start),
        dimensions_hash: dimensionsHash(JSON.stringify(ROLLUP_DIMENSIONS.map((column) => values[column]))),
        ...values,
      };
      for (const column of MEASURE_COLUMNS) {
        const value = row[column];
        delta[column] = value === null || value === undefined ? null : Number(value);
      }
      return delta;
    });
    for (const statement of addRollupsQuery(db, deltas)) await run(statement);
  }
}

/** The measure columns of a roll-up row, in table order. */
export const MEASURE_COLUMNS = [
  'span_count',
  ...FIGURES.flatMap(([name]) => ['count', 'sum', 'min', 'max'].map((part) => `${name}_${part}`)),
];

/** The table `span_rollups` behind the derived-data seam. */
export const spanRollups: DerivedData = {
  name: 'span roll-ups',
  // Once per batch, after every round, so that the roll-up rows every writer of the application
  // touches stay locked briefly: one statement for a batch's few dozen deltas as a rule (paddedRuns).
  async onStored({ fresh }, { db, runNative }) {
    for (const statement of writerRollupUpserts(db, rollupDeltas(fresh))) await runNative(statement);
  },
  // Nothing is subtracted: the purged spans' buckets are below the edge the purge raised, so
  // their rows are never read again and go, a bounded number per batch.
  async onDeleted({ applicationId, purgedBeforeNs, rowLimit }, { db, run }) {
    await deleteBelowEdge(db, run, 'span_rollups', ['dimensions_hash'], applicationId, purgedBeforeNs, rowLimit);
  },
  async rebuild({ applicationId, startNs, endNs }, { db, run }) {
    await rebuildRollupHour(db, run, applicationId, startNs, endNs);
  },
  heldHours: (db, applicationId) =>
    heldHoursOf(db, db('span_rollups').where({ application_id: applicationId, bucket_width_s: 3600 }), 'bucket_start_unix_nano'),
};
