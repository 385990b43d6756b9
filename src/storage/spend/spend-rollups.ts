// Spend roll-ups (table `spend_rollups`, README.md beside this file): per application, UTC hour and
// UTC day of span start time (two widths) and combination of the spend dimensions
// (SPEND_DIMENSIONS, with the spend currency), the spans, the traces rooted in them, the cost
// summed as analytics sums it, the token sums and the unpriced LLM calls. Kept through the
// derived-data seam (../spans/derived/): the writer adds the spans it stores to their hour and day
// rows in the same transaction, the purge deletes rows below the purge edge, the rebuild
// recomputes an hour from the spans and its day from the day's hours. The same code keeps
// `spend_slot_rollups` (spend-slot-rollups.ts), whose rows tell apart an indexed attribute's
// values instead of the dimensions: a table is a SpendTable.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Run } from '../sql/dialect.js';
import { dialectFor } from '../sql/index.js';
import { RowStatements, type NativeStatement } from '../sql/row-statements.js';
import type { DerivedData } from '../spans/derived/derived-data.js';
import { heldHoursOf } from '../spans/derived/held-hours.js';
import { purgeEdgeOf } from '../spans/purge-edge.js';
import { bucketStartSeconds, bucketStartSql, nanosText, paddedRuns, secondsOf } from '../spans/rollups/span-rollups.js';
import type { SpanRow } from '../spans/span-row.js';
import { DAY_NS, DAY_S, dayStartNs, HOUR_S, SPEND_WIDTHS_S, type SpendWidth } from './spend-ranges.js';

/** The span columns a spend summary groups by; the currency is the seventh key part. */
export const SPEND_DIMENSIONS = ['service_name', 'model', 'provider', 'billing_sku_id', 'billing_resource_type'] as const;
export type SpendDimension = (typeof SPEND_DIMENSIONS)[number];

/** The currency of a cost that names none (a reported cost): the default price book's and the GenAI conventions'. */
export const REPORTED_COST_CURRENCY = 'USD';

/** The token columns, summed per row under the same names. */
export const TOKEN_COLUMNS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens', 'total_tokens'] as const;

/** The measure columns of a row, in table order: every one is added up. */
export const SPEND_MEASURES = [
  'span_count',
  'trace_count',
  'cost_count',
  'cost_sum',
  ...TOKEN_COLUMNS,
  'unpriced_count',
  'unpriced_tokens',
] as const;
type SpendMeasure = (typeof SPEND_MEASURES)[number];

/** What a spend roll-up reads of a span. */
export type SpendSpan = Pick<
  SpanRow,
  | 'application_id'
  | 'start_time_unix_nano'
  | 'parent_span_id'
  | 'cost'
  | 'price_currency'
  | 'unpriced_reason'
  | SpendDimension
  | (typeof TOKEN_COLUMNS)[number]
>;

export interface SpendDelta {
  application_id: string;
  bucket_width_s: SpendWidth;
  bucket_start_unix_nano: string;
  dimensions_hash: string;
  [column: string]: string | number | null;
}

const SPEND_KEY = ['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash'];

/**
 * A table of spend roll-ups: the primary key SPEND_KEY, the measures SPEND_MEASURES, and the
 * columns that tell its rows apart besides the bucket, hashed in this order into dimensions_hash
 * (the key cannot hold TEXT columns on MariaDB/MySQL).
 */
export interface SpendTable {
  name: string;
  columns: readonly string[];
}

export const SPEND_ROLLUPS: SpendTable = { name: 'spend_rollups', columns: [...SPEND_DIMENSIONS, 'currency'] };

/** A span's spend currency: its computed cost's, a reported cost's USD, none without a cost. */
export function spendCurrencyOf(span: Pick<SpanRow, 'cost' | 'price_currency'>): string | null {
  if (span.cost === null || span.cost === undefined) return null;
  return span.price_currency ?? REPORTED_COST_CURRENCY;
}

/** The key values of a row, column for column with its table's `columns` (spend_rollups: the dimensions, then the currency). */
export type KeyValues = Array<string | null>;

/** Hashes kept from batch to batch by their values' JSON (bounded as span-rollups.ts bounds its combinations). */
const hashes = new Map<string, string>();
const KEPT_HASHES = 20_000;

function hashOfText(text: string): string {
  let hash = hashes.get(text);
  if (hash === undefined) {
    if (hashes.size >= KEPT_HASHES) hashes.clear();
    hash = createHash('sha256').update(text).digest('hex').slice(0, 32);
    hashes.set(text, hash);
  }
  return hash;
}

function hashOf(values: KeyValues): string {
  return hashOfText(JSON.stringify(values));
}

function emptyMeasures(): Record<SpendMeasure, number> {
  return Object.fromEntries(SPEND_MEASURES.map((column) => [column, 0])) as Record<SpendMeasure, number>;
}

function rowOf(
  table: SpendTable,
  applicationId: string,
  widthS: SpendWidth,
  bucketStart: string,
  values: KeyValues,
  hash = hashOf(values),
): SpendDelta {
  const row: SpendDelta = {
    application_id: applicationId,
    bucket_width_s: widthS,
    bucket_start_unix_nano: bucketStart,
    dimensions_hash: hash,
  };
  table.columns.forEach((column, index) => (row[column] = values[index] ?? null));
  return Object.assign(row, emptyMeasures());
}

/** One combination of an application's batch: its key values, hash, and its rows by width and bucket start (seconds). */
interface Combination {
  applicationId: string;
  values: KeyValues;
  hash: string;
  rows: Array<Map<number, SpendDelta>>;
}

/** Key order (the writers' lock order): application, width, bucket start, hash. */
function keyOrder(a: SpendDelta, b: SpendDelta): number {
  if (a.application_id !== b.application_id) return a.application_id < b.application_id ? -1 : 1;
  if (a.bucket_width_s !== b.bucket_width_s) return a.bucket_width_s - b.bucket_width_s;
  const startA = BigInt(a.bucket_start_unix_nano);
  const startB = BigInt(b.bucket_start_unix_nano);
  if (startA !== startB) return startA < startB ? -1 : 1;
  return a.dimensions_hash < b.dimensions_hash ? -1 : a.dimensions_hash > b.dimensions_hash ? 1 : 0;
}

/**
 * The rows that add the spans, one per application, width, bucket and key values, in key order
 * (the writers' lock order).
 */
export function spendDeltas(spans: readonly SpendSpan[]): SpendDelta[] {
  return spendDeltasOf(SPEND_ROLLUPS, spans, (span) => {
    const values: KeyValues = SPEND_DIMENSIONS.map((column) => span[column] ?? null);
    values.push(spendCurrencyOf(span));
    return [values];
  });
}

/**
 * The rows of `table` that add the spans, each span under every key values `keysOf` gives it, one
 * row per application, width, bucket and key values, in key order. A span's key text is made once
 * and its buckets looked up by number: this runs on every ingested batch.
 */
export function spendDeltasOf<S extends SpendSpan>(table: SpendTable, spans: readonly S[], keysOf: (span: S) => KeyValues[]): SpendDelta[] {
  const combinations = new Map<string, Combination>();
  const made: SpendDelta[] = [];
  for (const span of spans) {
    const seconds = secondsOf(String(span.start_time_unix_nano));
    const isRoot = span.parent_span_id === null || span.parent_span_id === undefined;
    const hasCost = span.cost !== null && span.cost !== undefined;
    const unpriced = span.unpriced_reason !== null && span.unpriced_reason !== undefined;
    for (const values of keysOf(span)) {
      const text = JSON.stringify(values);
      const id = `${span.application_id}\u0000${text}`;
      let combination = combinations.get(id);
      if (combination === undefined) {
        combination = { applicationId: span.application_id, values, hash: hashOfText(text), rows: SPEND_WIDTHS_S.map(() => new Map()) };
        combinations.set(id, combination);
      }
      for (let width = 0; width < SPEND_WIDTHS_S.length; width += 1) {
        const widthS = SPEND_WIDTHS_S[width] as SpendWidth;
        const bucket = bucketStartSeconds(seconds, widthS);
        const buckets = combination.rows[width] as Map<number, SpendDelta>;
        let row = buckets.get(bucket);
        if (row === undefined) {
          row = rowOf(table, combination.applicationId, widthS, nanosText(bucket), combination.values, combination.hash);
          buckets.set(bucket, row);
          made.push(row);
        }
        const measures = row as unknown as Record<SpendMeasure, number>;
        measures.span_count += 1;
        // A root span (no parent) stands for its trace: counted once, in its own row.
        if (isRoot) measures.trace_count += 1;
        if (hasCost) {
          measures.cost_count += 1;
          measures.cost_sum += Number(span.cost);
        }
        for (const column of TOKEN_COLUMNS) measures[column] += Number(span[column] ?? 0);
        if (unpriced) {
          measures.unpriced_count += 1;
          measures.unpriced_tokens += Number(span.total_tokens ?? 0);
        }
      }
    }
  }
  return made.sort(keyOrder);
}

/** An upsert adding the rows to the stored ones: every measure adds up (reads only old values and the incoming row). */
export function addSpendQuery(db: Knex, table: SpendTable, rows: ReadonlyArray<Record<string, unknown>>): Knex.QueryBuilder {
  const { insertedValue } = dialectFor(db);
  const merge = Object.fromEntries(
    SPEND_MEASURES.map((column) => [column, db.raw(`?? + ${insertedValue}`, [`${table.name}.${column}`, column])]),
  );
  return db(table.name).insert(rows).onConflict(SPEND_KEY).merge(merge);
}

/** Rows per upsert outside the writer (migration, rebuild): within SQLite's and MariaDB's placeholder limits. */
const ROWS_PER_STATEMENT = 400;

export function addSpendQueries(db: Knex, table: SpendTable, rows: readonly SpendDelta[]): Knex.QueryBuilder[] {
  const statements: Knex.QueryBuilder[] = [];
  for (let offset = 0; offset < rows.length; offset += ROWS_PER_STATEMENT)
    statements.push(addSpendQuery(db, table, rows.slice(offset, offset + ROWS_PER_STATEMENT)));
  return statements;
}

/** The writer's compiled upserts, per table. */
const writerUpserts = new Map<string, RowStatements<SpendDelta>>();

/** The span writer's upserts: padded runs as span-rollups.ts sends them, with copies that add 0. */
export function writerSpendUpserts(db: Knex, table: SpendTable, deltas: readonly SpendDelta[]): NativeStatement[] {
  let statements = writerUpserts.get(table.name);
  if (statements === undefined) {
    statements = new RowStatements<SpendDelta>((db, rows) => addSpendQuery(db, table, rows));
    writerUpserts.set(table.name, statements);
  }
  const upserts = statements;
  return paddedRuns(deltas, emptyMeasures()).map((run) => upserts.statement(db, run));
}

/** The measures of a group of spans `s`, named as the columns (the SQL twin of spendDeltas). */
export function spendAggregates(): string {
  const tokens = TOKEN_COLUMNS.map((column) => `COALESCE(SUM(s.${column}), 0) AS ${column}`);
  return [
    'COUNT(*) AS span_count',
    'COUNT(CASE WHEN s.parent_span_id IS NULL THEN 1 END) AS trace_count',
    'COUNT(s.cost) AS cost_count',
    'COALESCE(SUM(s.cost), 0) AS cost_sum',
    ...tokens,
    'COUNT(s.unpriced_reason) AS unpriced_count',
    'COALESCE(SUM(CASE WHEN s.unpriced_reason IS NULL THEN 0 ELSE s.total_tokens END), 0) AS unpriced_tokens',
  ].join(', ');
}

/** The spend currency of a span `s` in SQL (spendCurrencyOf). */
export const SPEND_CURRENCY_SQL = `CASE WHEN s.cost IS NULL THEN NULL ELSE COALESCE(s.price_currency, '${REPORTED_COST_CURRENCY}') END`;

/** The key columns of a table as expressions over a stored span `s`, column for column with its `columns`, and their bindings in order. */
export interface SpanKeys {
  expressions: readonly string[];
  bindings: readonly Knex.Value[];
}

/** spend_rollups' key columns over a span: the dimensions as stored, and the spend currency. */
const SPEND_SPAN_KEYS: SpanKeys = { expressions: [...SPEND_DIMENSIONS.map((column) => `s.${column}`), SPEND_CURRENCY_SQL], bindings: [] };

/** The span columns spendAggregates reads. */
const AGGREGATED_COLUMNS = ['start_time_unix_nano', 'parent_span_id', 'cost', 'unpriced_reason', ...TOKEN_COLUMNS];

/**
 * Recomputes the application's spend_rollups rows of one hour from the stored spans, then the day
 * rows of the hour's day (rebuildSpendHourOf).
 */
export async function rebuildSpendHour(db: Knex, run: Run, applicationId: string, startNs: bigint, endNs: bigint): Promise<void> {
  await rebuildSpendHourOf(db, run, SPEND_ROLLUPS, { applicationId, startNs, endNs, keys: SPEND_SPAN_KEYS });
  await rebuildSpendDays(db, run, SPEND_ROLLUPS, applicationId, startNs, endNs);
}

/** One hour of one application's rows of a table to recompute: those matching `where` (besides the hour), keyed by `keys`. */
export interface SpendHour {
  applicationId: string;
  startNs: bigint;
  endNs: bigint;
  keys: SpanKeys;
  where?: Record<string, string | number>;
}

/** Deletes the application's hour rows of a table (those matching `where`) of one hour. */
export async function deleteSpendHour(db: Knex, run: Run, table: SpendTable, hour: Omit<SpendHour, 'keys'>): Promise<void> {
  const { exactInteger } = dialectFor(db);
  await run(
    db(table.name)
      .where({ ...hour.where, application_id: hour.applicationId, bucket_width_s: HOUR_S })
      .whereRaw(`bucket_start_unix_nano >= ${exactInteger}`, [hour.startNs.toString()])
      .whereRaw(`bucket_start_unix_nano < ${exactInteger}`, [hour.endNs.toString()])
      .del(),
  );
}

/**
 * Recomputes the application's hour rows of a table (those matching `where`) from the stored
 * spans: deleted, grouped anew in SQL (each key value by its exact bytes), hashed here as the
 * writer hashes them, inserted. The caller's transaction keeps writers out of the hour's spans
 * meanwhile (derived-rebuild.ts), and recomputes the days (rebuildSpendDays).
 */
export async function rebuildSpendHourOf(db: Knex, run: Run, table: SpendTable, hour: SpendHour): Promise<void> {
  const dialect = dialectFor(db);
  const [start, end] = [hour.startNs.toString(), hour.endNs.toString()];
  await deleteSpendHour(db, run, table, hour);
  // The keys computed once per span in a derived table (their bindings once); within a group
  // every key value has the same bytes: MIN picks it.
  const keys = hour.keys.expressions.map((expression, index) => `${expression} AS k${index}`);
  const spans =
    `SELECT ${[...AGGREGATED_COLUMNS.map((column) => `s.${column}`), ...keys].join(', ')} FROM spans s ` +
    `WHERE s.application_id = ? AND s.start_time_unix_nano >= ${dialect.exactInteger} AND s.start_time_unix_nano < ${dialect.exactInteger}`;
  const picked = table.columns.map((_, index) => `MIN(s.k${index}) AS k${index}`).join(', ');
  const groups = ['hour_start', ...table.columns.map((_, index) => dialect.exactKey(`s.k${index}`))].join(', ');
  const hourNs = (BigInt(HOUR_S) * 1_000_000_000n).toString();
  const rows = await run<Array<Record<string, unknown> & { hour_start: string }>>(
    db.raw(
      `SELECT ${dialect.asText(bucketStartSql(db))} AS hour_start, ${picked}, ${spendAggregates()} FROM (${spans}) s GROUP BY ${groups}`,
      [start, start, hourNs, hourNs, ...hour.keys.bindings, hour.applicationId, start, end],
    ) as unknown as Knex.QueryBuilder,
  );
  const deltas = rows.map((row) => {
    const values: KeyValues = table.columns.map((_, index) => textOrNull(row[`k${index}`]));
    const delta = rowOf(table, hour.applicationId, HOUR_S, String(row.hour_start), values);
    for (const column of SPEND_MEASURES) delta[column] = Number(row[column] ?? 0);
    return delta;
  });
  for (const statement of addSpendQueries(db, table, deltas)) await run(statement);
}

/** A key value as read back: text as the writer hashes it (MariaDB may answer a binary-collated text as bytes). */
function textOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/**
 * Recomputes the application's day rows of a table for the days [startNs, endNs) touches from
 * their hour rows (exact: every measure is a count or a sum; 24 rows per combination rather than
 * the day's spans). A day starting below the purge edge is never read again and its hour rows may
 * be gone in part: its rows are deleted, not written again.
 */
export async function rebuildSpendDays(
  db: Knex,
  run: Run,
  table: SpendTable,
  applicationId: string,
  startNs: bigint,
  endNs: bigint,
): Promise<void> {
  const dialect = dialectFor(db);
  const edge = await purgeEdgeOf(db, applicationId, run);
  const measures = SPEND_MEASURES.map((column) => `SUM(h.${column})`).join(', ');
  const columns = ['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash', ...table.columns, ...SPEND_MEASURES];
  for (let day = dayStartNs(startNs); day < endNs; day += DAY_NS) {
    const [from, to] = [day.toString(), (day + DAY_NS).toString()];
    await run(
      db(table.name)
        .where({ application_id: applicationId, bucket_width_s: DAY_S })
        .whereRaw(`bucket_start_unix_nano = ${dialect.exactInteger}`, [from])
        .del(),
    );
    if (typeof edge === 'bigint' && day < edge) continue;
    // One hash per key values, whatever the width: the day row's is its hours'.
    await run(
      db.raw(
        `INSERT INTO ${table.name} (${columns.join(', ')}) ` +
          `SELECT ?, ${DAY_S}, ${dialect.exactInteger}, h.dimensions_hash, ${table.columns.map((column) => `MIN(h.${column})`).join(', ')}, ${measures} ` +
          `FROM ${table.name} h WHERE h.application_id = ? AND h.bucket_width_s = ${HOUR_S} ` +
          `AND h.bucket_start_unix_nano >= ${dialect.exactInteger} AND h.bucket_start_unix_nano < ${dialect.exactInteger} ` +
          `GROUP BY h.dimensions_hash`,
        [applicationId, from, applicationId, from, to],
      ) as unknown as Knex.QueryBuilder,
    );
  }
}

/** Deletes at most `limit` rows per width below the purge edge, in key order: never read again (../spans/purge-edge.ts). */
export async function deleteSpendBelowEdge(
  db: Knex,
  run: Run,
  table: SpendTable,
  applicationId: string,
  edgeNs: bigint,
  limit: number,
): Promise<void> {
  const dialect = dialectFor(db);
  for (const widthS of SPEND_WIDTHS_S) {
    // The width written out, as span-rollups.ts does: MariaDB may compare a bound one as a double and sort.
    const where = {
      sql: `application_id = ? AND bucket_width_s = ${widthS} AND bucket_start_unix_nano < ${dialect.exactInteger}`,
      bindings: [applicationId, edgeNs.toString()],
    };
    await run(dialect.deleteFirstRows(db, table.name, where, SPEND_KEY, limit) as unknown as Knex.QueryBuilder);
  }
}

/** The hours a table holds rows of, for the rebuild's default window. */
export function spendHeldHours(table: SpendTable): NonNullable<DerivedData['heldHours']> {
  return (db, applicationId) =>
    heldHoursOf(db, db(table.name).where({ application_id: applicationId, bucket_width_s: HOUR_S }), 'bucket_start_unix_nano');
}

/** The table `spend_rollups` behind the derived-data seam. */
export const spendRollups: DerivedData = {
  name: 'spend roll-ups',
  // Once per batch, after every round, beside the span roll-ups: one padded upsert as a rule.
  async onStored({ fresh }, { db, runNative }) {
    for (const statement of writerSpendUpserts(db, SPEND_ROLLUPS, spendDeltas(fresh))) await runNative(statement);
  },
  // Nothing is subtracted: rows below the edge the purge raised are never read again and go, a bounded number per batch.
  async onDeleted({ applicationId, purgedBeforeNs, rowLimit }, { db, run }) {
    await deleteSpendBelowEdge(db, run, SPEND_ROLLUPS, applicationId, purgedBeforeNs, rowLimit);
  },
  async rebuild({ applicationId, startNs, endNs }, { db, run }) {
    await rebuildSpendHour(db, run, applicationId, startNs, endNs);
  },
  heldHours: spendHeldHours(SPEND_ROLLUPS),
};
