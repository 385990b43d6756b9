// Inserts span rows, skipping those already stored (same application, trace_id, span_id), in
// multi-row statements. On MariaDB/MySQL through mysql2 prepared statements (`execute`): values
// travel in the binary protocol, with no client-side escaping of the attribute JSON and no
// parsing of a statement hundreds of kilobytes long; measured here 11k → 17–20k rows per second
// against the same statement built and escaped by Knex (BENCHMARKS.md, "What the parts of
// ingestion cost", commit 900413a).
import type { Knex } from 'knex';
import type { Mysql2Connection } from '../../sql/mysql-transaction.js';
import { statementSizes } from '../../sql/row-statements.js';
import { SPAN_ROW_COLUMNS, type SpanRow } from '../span-row.js';

const COLUMNS = SPAN_ROW_COLUMNS;

// Knex writes a multi-row SQLite insert as a compound SELECT, which SQLite caps at 500 terms.
const SQLITE_ROWS_PER_INSERT = 500;

// Statement sizes are powers of two up to 1,024 rows (52,224 values at 51 columns, under
// MySQL's 65,535), so each connection prepares at most 11 distinct statements, whatever the
// batch sizes: the server-wide max_prepared_stmt_count is never exhausted by one statement per tail size.
const MYSQL_MAX_ROWS = 1024;

const insertStatements = new Map<number, string>();

function mysqlInsert(rows: number): string {
  let sql = insertStatements.get(rows);
  if (!sql) {
    const tuple = `(${COLUMNS.map(() => '?').join(',')})`;
    sql = `INSERT IGNORE INTO spans (${COLUMNS.join(',')}) VALUES ${Array(rows).fill(tuple).join(',')}`;
    insertStatements.set(rows, sql);
  }
  return sql;
}

/**
 * Writes the row's values into `values` from `at` on, in SPAN_ROW_COLUMNS order (a test holds the
 * two together): each value read by its field's name, a fixed place in the row, where reading
 * `row[column]` down the column list looks every name up.
 */
export function layOutSpanRow(row: SpanRow, values: unknown[], at: number): void {
  values[at] = row.application_id;
  values[at + 1] = row.trace_id;
  values[at + 2] = row.span_id;
  values[at + 3] = row.parent_span_id;
  values[at + 4] = row.start_time_unix_nano;
  values[at + 5] = row.end_time_unix_nano;
  values[at + 6] = row.span_kind;
  values[at + 7] = row.status_code;
  values[at + 8] = row.span_name;
  values[at + 9] = row.service_name;
  values[at + 10] = row.unit;
  values[at + 11] = row.parent_unit;
  values[at + 12] = row.billing_resource_type;
  values[at + 13] = row.billing_resource_name;
  values[at + 14] = row.billing_service_id;
  values[at + 15] = row.billing_service_name;
  values[at + 16] = row.billing_sku_id;
  values[at + 17] = row.billing_sku_name;
  values[at + 18] = row.billing_region;
  values[at + 19] = row.usage_unit;
  values[at + 20] = row.status_message;
  values[at + 21] = row.scope_name;
  values[at + 22] = row.scope_version;
  values[at + 23] = row.model;
  values[at + 24] = row.provider;
  values[at + 25] = row.duration_ms;
  values[at + 26] = row.cost;
  values[at + 27] = row.usage_amount;
  values[at + 28] = row.input_tokens;
  values[at + 29] = row.output_tokens;
  values[at + 30] = row.cache_read_tokens;
  values[at + 31] = row.cache_creation_tokens;
  values[at + 32] = row.total_tokens;
  values[at + 33] = row.cost_source;
  values[at + 34] = row.price_model;
  values[at + 35] = row.price_provider;
  values[at + 36] = row.price_book;
  values[at + 37] = row.unpriced_reason;
  values[at + 38] = row.price_entry_id;
  values[at + 39] = row.price_currency;
  values[at + 40] = row.resource_attributes;
  values[at + 41] = row.span_attributes;
  values[at + 42] = row.events;
  values[at + 43] = row.links;
  values[at + 44] = row.dropped_attributes_count;
  values[at + 45] = row.dropped_events_count;
  values[at + 46] = row.dropped_links_count;
  values[at + 47] = row.received_at;
  values[at + 48] = row.indexed_value_1;
  values[at + 49] = row.indexed_value_2;
  values[at + 50] = row.indexed_value_3;
}

/** Inserts the rows not stored yet; answers how many that were. The first statement is sent at once. */
export async function insertSpansMysql(connection: Mysql2Connection, rows: SpanRow[]): Promise<number> {
  let inserted = 0;
  let offset = 0;
  for (const size of statementSizes(rows.length, MYSQL_MAX_ROWS)) {
    // Laid out in place, sized ahead: no copy of the rows, no growing array.
    const values: unknown[] = new Array(size * COLUMNS.length);
    for (let row = 0; row < size; row += 1) layOutSpanRow(rows[offset + row] as SpanRow, values, row * COLUMNS.length);
    inserted += await new Promise<number>((resolve, reject) =>
      connection.execute(mysqlInsert(size), values, (error, result) => (error ? reject(error) : resolve(result?.affectedRows ?? 0))),
    );
    offset += size;
  }
  return inserted;
}

/** Inserts the rows not stored yet; answers how many that were. */
export async function insertSpansSqlite(trx: Knex, rows: SpanRow[]): Promise<number> {
  let inserted = 0;
  for (let offset = 0; offset < rows.length; offset += SQLITE_ROWS_PER_INSERT) {
    await trx('spans')
      .insert(rows.slice(offset, offset + SQLITE_ROWS_PER_INSERT))
      .onConflict(['application_id', 'trace_id', 'span_id'])
      .ignore();
    const [{ changed }] = await trx.raw('SELECT changes() AS changed');
    inserted += Number(changed);
  }
  return inserted;
}
