// Every row the derived structures keep of one application, read so that two applications that
// hold the same spans compare equal row by row (without the application's id, 64-bit integers
// as exact text, doubles to 12 digits): for tests that put derived data right by unusual paths
// (the rebuild, a re-pricing job) and compare it with what the span writer keeps.
import type { Knex } from 'knex';
import { bigintAsText } from '../../src/storage/database.js';

/** The derived tables compared, with their 64-bit integer columns (read as text, exactly). */
const TABLES: Array<[table: string, bigints: string[]]> = [
  ['traces', ['root_start_time_unix_nano', 'min_start_time_unix_nano', 'max_end_time_unix_nano']],
  ['trace_slot_values', ['generation', 'root_start_time_unix_nano', 'min_start_time_unix_nano']],
  ['span_slot_values', ['start_time_unix_nano']],
  ['span_rollups', ['bucket_start_unix_nano']],
  ['slot_rollups', ['bucket_start_unix_nano', 'generation']],
  ['spend_rollups', ['bucket_start_unix_nano']],
  ['spend_slot_rollups', ['bucket_start_unix_nano', 'generation']],
  ['trace_figures', ['hour']],
  ['trace_histograms', ['hour']],
];

function normalized(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  return value;
}

/** Every derived row of the application, without the application's id, in a fixed order per table. */
export async function derivedRows(knex: Knex, applicationId: string): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const [table, bigints] of TABLES) {
    const rows = (await knex(table)
      .where('application_id', applicationId)
      .select('*', ...bigints.map((column) => ({ [`${column}_text`]: bigintAsText(knex, column) })))) as Array<Record<string, unknown>>;
    tables[table] = rows
      .map((row) => {
        const out: Record<string, unknown> = {};
        for (const [column, value] of Object.entries(row)) {
          if (column === 'application_id' || column.endsWith('_text')) continue;
          // MariaDB answers BIGINT counts as text.
          out[column] = bigints.includes(column)
            ? row[`${column}_text`]
            : normalized(typeof value === 'string' && column.endsWith('_count') ? Number(value) : value);
        }
        return JSON.stringify(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
      })
      .sort();
  }
  return tables;
}

type Row = Array<[column: string, value: unknown]>;

/**
 * Whether two cells agree: numbers within 1e-10 of the larger. A sum added up in another order
 * differs in its last bits, which derivedRows' 12 digits may carry into the 12th.
 */
function sameCell(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= 1e-10 * Math.max(1, Math.abs(a), Math.abs(b));
  return a === b;
}

/** A row's place in the comparison: its cells, numbers to 6 digits, so that the last bits of a sum never reorder rows. */
function orderKey(row: Row): string {
  return JSON.stringify(row.map(([column, value]) => [column, typeof value === 'number' ? Number(value.toPrecision(6)) : value]));
}

/**
 * The derived rows of two applications (derivedRows) must be the same, row by row, numbers within
 * 1e-10 (sameCell): for data whose costs are sums added up in another order in each (an application whose
 * derived data was rebuilt and one whose writer kept it).
 */
export function expectSameDerivedRows(actual: Record<string, string[]>, wanted: Record<string, string[]>): void {
  for (const [table] of TABLES) {
    const parse = (rows: string[] | undefined) =>
      (rows ?? [])
        .map((text) => JSON.parse(text) as Row)
        .sort((a, b) => (orderKey(a) < orderKey(b) ? -1 : orderKey(a) > orderKey(b) ? 1 : 0));
    const [got, want] = [parse(actual[table]), parse(wanted[table])];
    const differing = got.findIndex(
      (row, index) =>
        row.length !== want[index]?.length ||
        row.some(([column, value], cell) => column !== want[index]?.[cell]?.[0] || !sameCell(value, want[index]?.[cell]?.[1])),
    );
    if (got.length !== want.length || differing >= 0)
      throw new Error(
        `${table}: ${got.length} rows against ${want.length}; first differing row: ${JSON.stringify(got[differing])} against ${JSON.stringify(want[differing])}`,
      );
  }
}
