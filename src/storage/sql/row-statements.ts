// Multi-row writes whose text depends only on their row count (the span writer's upserts, sent
// with every ingested batch, and the trace fold's). Knex compiles the text once per dialect and
// count; each later write of that count reuses it and only lays out its values. The text is then
// the same string every time, so mysql2 finds its prepared statement without hashing a text of
// tens of kilobytes again. Rows go in runs of powers of two, so each connection prepares a
// handful of texts per statement whatever the batch sizes.
import type { Knex } from 'knex';

/** Rows per statement: the largest powers of two, at most `largest` (a power of two), that add up to `total`. */
export function statementSizes(total: number, largest: number): number[] {
  const sizes: number[] = [];
  let left = total;
  for (let size = largest; left > 0;) {
    if (size <= left) {
      sizes.push(size);
      left -= size;
    } else {
      size /= 2;
    }
  }
  return sizes;
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

/** A statement ready to send: its text in the dialect's placeholders, and its values in order. */
export interface NativeStatement {
  sql: string;
  bindings: unknown[];
}

interface Compiled {
  sql: string;
  columns: string[];
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((column, index) => column === b[index]);
}

/** The statements one builder makes, compiled once per dialect and row count. */
export class RowStatements<Row extends object> {
  private readonly compiled = new Map<string, Compiled>();

  /** `build` makes the statement for rows that all have the same keys. */
  constructor(private readonly build: (db: Knex, rows: readonly Row[]) => Knex.QueryBuilder) {}

  statement(db: Knex, rows: readonly Row[]): NativeStatement {
    const first = rows[0];
    if (first === undefined) throw new Error('a row statement needs at least one row');
    // Knex lays out an insert's values row by row, in the sorted order of the first row's keys.
    const columns = Object.keys(first).sort();
    const bindings: unknown[] = [];
    for (const row of rows) for (const column of columns) bindings.push((row as Record<string, unknown>)[column]);
    const id = `${String(db.client.config.client)}/${rows.length}`;
    let compiled = this.compiled.get(id);
    if (compiled === undefined) {
      const native = this.build(db, rows).toSQL().toNative();
      // The layout above must be Knex's own, value for value: checked once per text.
      if (native.bindings.length !== bindings.length || native.bindings.some((value, index) => value !== bindings[index])) {
        throw new Error('the values of a row statement are not laid out as Knex lays them out');
      }
      compiled = { sql: native.sql, columns };
      this.compiled.set(id, compiled);
    } else if (!sameColumns(compiled.columns, columns)) {
      throw new Error('a row statement was given rows with other columns than it was compiled for');
    }
    return { sql: compiled.sql, bindings };
  }
}
