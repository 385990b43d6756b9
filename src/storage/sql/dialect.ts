// Every difference between the databases the service runs on, as one interface: one module per
// database implements it (sqlite.ts, mysql.ts) and nothing outside this folder asks which
// database it talks to. The filter's parts (JSON access, the text form and numeric reading of an
// attribute, literal string matching with its escaping, collation and padding rules) serve the
// compiler (../spans/filter-sql.ts); the rest serve the span reads and writes and the connection.
import type { Knex } from 'knex';
import type { RegexTree } from '../../filter/regex-syntax.js';
import type { Mysql2Connection } from './mysql-transaction.js';
import type { StatementLimits } from './regex-time-limit.js';

/** SQL text with `?` placeholders and the values bound to them, in order. */
export interface SqlFragment {
  sql: string;
  bindings: Knex.Value[];
}

export type TextMatch = 'contains' | 'starts_with' | 'ends_with';

/** A `regex` filter value: the RE2 pattern as sent and its tree (src/filter/regex-syntax.ts). */
export interface RegexPattern {
  source: string;
  tree: RegexTree;
}

export interface SqlDialect {
  readonly name: 'sqlite' | 'mysql';
  /**
   * The text form of an attribute (`GET`, `200`, `true`, arrays and objects as compact JSON),
   * NULL when the attribute is missing or JSON null. `column` is a trusted, qualified name.
   */
  attributeText(column: string, key: string): SqlFragment;
  /** The numeric reading of an attribute as a double, NULL when it has none. */
  attributeNumber(column: string, key: string): SqlFragment;
  /**
   * The attribute's value when it is a JSON string of at most maxLength characters, else NULL
   * (missing, JSON null, any other type, longer, or not text the database's JSON can read).
   */
  attributeStringUpTo(column: string, key: string, maxLength: number): SqlFragment;
  /**
   * A cheaper test for "the attribute's text form equals value" where the dialect has one for
   * this value; undefined means: compare attributeText.
   */
  attributeEquals?(column: string, key: string, value: string): SqlFragment | undefined;
  /**
   * Exact, case-sensitive equality of a text expression with a value (`negate`: inequality);
   * NULL (so: no match) when the expression is NULL. `plainColumn` says the expression is a
   * bare column, so that an index on it can serve the comparison.
   */
  textEquals(expression: SqlFragment, value: string, negate: boolean, plainColumn: boolean): SqlFragment;
  /**
   * Exact, case-sensitive membership of a text expression in a non-empty list (`negate`: in
   * none of them); NULL when the expression is NULL. `plainColumn` as for textEquals.
   */
  textIn(expression: SqlFragment, values: string[], negate: boolean, plainColumn: boolean): SqlFragment;
  /**
   * "Does not match": TRUE where the condition is FALSE or NULL, FALSE where it is TRUE, so a
   * `not` node also matches the spans its member leaves out for an absent value.
   */
  notMatching(condition: SqlFragment): SqlFragment;
  /** Case-sensitive literal substring, prefix or suffix test (no wildcards, no escapes). */
  textMatches(expression: SqlFragment, match: TextMatch, value: string): SqlFragment;
  /**
   * Whether RE2 finds the pattern anywhere in a text expression (case-sensitive, `^`/`$` at the
   * ends of the text); NULL when the expression is NULL. The statement runs under the regex time
   * limit (prepareConnection).
   */
  regexMatches(expression: SqlFragment, pattern: RegexPattern): SqlFragment;
  /**
   * Readies a new pooled connection (the driver's own object) for filters: the regex operator's
   * function and its statement time limit.
   */
  prepareConnection(connection: unknown, limits: StatementLimits): void;
  /** A placeholder that reads a decimal string as an exact 64-bit integer. */
  readonly exactInteger: string;
  /**
   * The same for an unsigned column (the receive sequence): MariaDB reads a range on an
   * unsigned index only against an unsigned value (against a signed one it sorts instead).
   */
  readonly exactUnsigned: string;
  /**
   * Integer division of two integer expressions, truncating (exact on 64-bit integers: time
   * buckets on nanoseconds must not pass through a double). Both are trusted SQL text.
   */
  integerDivide(dividend: string, divisor: string): string;
  /**
   * A text expression as a key that groups, sorts and compares by its exact bytes (MariaDB's
   * utf8mb4_bin pads spaces: `'a'` and `'a '` would fall into one group). Trusted SQL text.
   */
  exactKey(expression: string): string;
  /** An expression as a double (averages of integers must not become decimals). */
  asDouble(expression: string): string;
  /** An integer expression as decimal text, so that 19-digit nanoseconds survive every driver exactly. */
  asText(expression: string): string;
  /**
   * A JSON column as its stored text: mysql2 parses MariaDB's JSON columns into objects (through
   * a double, so large integers lose digits).
   */
  jsonText(column: string): string;
  /** A read inside a write transaction that locks the rows it reads (SQLite has one writer at a time: as it is). */
  lockRows(query: Knex.QueryBuilder): Knex.QueryBuilder;
  /**
   * Deletes at most `limit` rows of `table` meeting `where`, the first in `orderBy` order: bounded
   * work per transaction, in key order. MariaDB/MySQL: DELETE … ORDER BY … LIMIT; SQLite (built
   * without DELETE … LIMIT): the rowids of a bounded sub-select. Table and columns are trusted names.
   */
  deleteFirstRows(db: Knex, table: string, where: SqlFragment, orderBy: readonly string[], limit: number): Knex.Raw;
  /** `table AS alias`, read through the named index (a trusted name). */
  tableThroughIndex(table: string, alias: string, index: string): string;
  /** The inner join whose left side is read first, whatever the statistics say (MariaDB's STRAIGHT_JOIN, SQLite's CROSS JOIN). */
  readonly leftFirstJoin: string;
  /** In an upsert's update list, the value the insert brought for a column (`??` is the column). */
  readonly insertedValue: string;
  /** The scalar functions of the larger and the smaller of two values. */
  readonly greatest: string;
  readonly least: string;
  /** Whether the database has VAR_POP (else the variance takes a second pass). */
  readonly hasVarPop: boolean;
  /** The transaction settings under which two reads see one snapshot. */
  readonly snapshot: Knex.TransactionConfig | undefined;
  /**
   * Runs a write transaction: MariaDB/MySQL straight on one pooled connection (see
   * mysql-transaction.ts), SQLite through Knex.
   */
  writeTransaction<T>(knex: Knex, work: (transaction: WriteTransaction) => Promise<T>): Promise<T>;
  /**
   * A write transaction whose reads lock what they read, gaps included, and see the latest
   * committed rows: no other writer changes or adds a row such a read found or could have found
   * until it commits. MariaDB/MySQL: SERIALIZABLE. SQLite: as writeTransaction, whose one writer
   * at a time gives the same once the transaction's first statement writes (the caller's part).
   */
  lockingWriteTransaction<T>(knex: Knex, work: (transaction: WriteTransaction) => Promise<T>): Promise<T>;
  /** The Knex settings for a database URL of this database; SQLite's file lives in dataDir unless the URL names one. */
  knexSettings(databaseUrl: string | undefined, dataDir: string): Knex.Config;
}

/** Runs one statement of a write transaction, resolving with its rows or result. */
export type Run = <T>(query: Knex.QueryBuilder) => Promise<T>;

/** A write transaction in progress: `db` builds statements, `run` runs them inside it. */
export interface WriteTransaction {
  db: Knex;
  run: Run;
  /** MariaDB/MySQL: the connection the transaction holds, for statements sent without Knex. */
  connection?: Mysql2Connection;
}

/** The JSON path of one flat dotted attribute key: `$."http.method"` (keys never hold quotes). */
export function attributePath(key: string): string {
  return `$."${key}"`;
}

/**
 * Texts that a number, a boolean, an array or an object can have as their text form (a JSON
 * number literal, true/false, JSON array or object text), on either database.
 */
const NOT_ONLY_STRING_TEXT = /^(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?|true|false|\[.*|\{.*)$/s;

/** Whether only a string attribute can have this text form: equality with it is string equality. */
export function canOnlyBeStringText(value: string): boolean {
  return !NOT_ONLY_STRING_TEXT.test(value);
}

/** `?, ?, ?`: one placeholder per value of a list. */
export function placeholders(count: number, placeholder = '?'): string {
  return Array.from({ length: count }, () => placeholder).join(', ');
}

export function fragment(sql: string, ...bindings: Knex.Value[]): SqlFragment {
  return { sql, bindings };
}
