// Inserts span rows, skipping those already stored (same application, trace_id, span_id), in
// multi-row statements. On MariaDB/MySQL through mysql2 prepared statements (`execute`): values
// travel in the binary protocol, with no client-side escaping of the attribute JSON and no
// parsing of a statement hundreds of kilobytes long; measured here about 1.4 times the rows per
// second of the same statement built and escaped by Knex (see BENCHMARKS.md).
import type { Knex } from 'knex';
import type { Mysql2Connection } from '../sql/mysql-transaction.js';
import { SPAN_ROW_COLUMNS, type SpanRow } from './span-row.js';

const COLUMNS = SPAN_ROW_COLUMNS;

// Knex writes a multi-row SQLite insert as a compound SELECT, which SQLite caps at 500 terms.
const SQLITE_ROWS_PER_INSERT = 500;

// Statement sizes are powers of two up to 1,024 rows (38,912 values at 38 columns, under
// MySQL's 65,535), so each connection prepares at most 11 distinct statements, whatever the
// batch sizes: the server-wide max_prepared_stmt_count is never exhausted by one statement per tail size.
const MYSQL_MAX_ROWS = 1024;

/** Rows per statement: the largest powers of two, at most `largest` (a power of two), that add up to `total`. */
export function statementSizes(total: number, largest = MYSQL_MAX_ROWS): number[] {
  const sizes: number[] = [];
  let left = total;
  for (let size = largest; left > 0; ) {
    if (size <= left) {
      sizes.push(size);
      left -= size;
    } else {
      size /= 2;
    }
  }
  return sizes;
}

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



/** The items in runs of statementSizes(items.length, largest), in order: one statement text per size. */
export function inPowerOfTwoRuns<T>(items: readonly T[], largest: number): T[][] {
  const runs: T[][] = [];
  let offset = 0;
  for (const size of statementSizes(items.length, largest)) {
    runs.push(items.slice(offset, offset + size));
    offset += size;
  }
  return runs;
}

/** Inserts the rows not stored yet; answers how many that were. The first statement is sent at once. */
export async function insertSpansMysql(connection: Mysql2Connection, rows: SpanRow[]): Promise<number> {
  let inserted = 0;
  let offset = 0;
  for (const size of statementSizes(rows.length)) {
    // Laid out in place, sized ahead: no copy of the rows, no growing array.
    const values: unknown[] = new Array(size * COLUMNS.length);
    let index = 0;
    for (let row = offset; row < offset + size; row += 1) for (const column of COLUMNS) values[index++] = (rows[row] as SpanRow)[column];
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
