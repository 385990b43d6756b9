// The MariaDB (and MySQL) dialect. In filters: tables use utf8mb4_bin, which is
// case-sensitive but PAD SPACE (`'a' = 'a '` holds), so exact equality also asks LIKE, which
// never pads; LIKE patterns escape `%`, `_` and the escape character `!`. Attribute text is
// forced to utf8mb4_bin whatever the connection's collation. JSON_VALUE reads `true` as `1`,
// and JSON_EXTRACT re-spaces arrays and objects, hence the CASE on the value's JSON type.
// Long values match without LIKE (see LIKE_VALUE_LIMIT).
import type { Knex } from 'knex';
import {
  attributePath,
  canOnlyBeStringText,
  fragment,
  placeholders,
  type RegexPattern,
  type SqlDialect,
  type SqlFragment,
  type TextMatch,
} from './dialect.js';
import { limitRegexStatements, REGEX_STATEMENT_MARK, type QueryingConnection } from './mysql-regex-limit.js';
import { pcrePattern } from './pcre-pattern.js';
import type { StatementLimits } from './regex-time-limit.js';
import { send, withMysqlTransaction } from './mysql-transaction.js';

export function escapeLike(value: string): string {
  return value.replace(/[!%_]/g, (character) => `!${character}`);
}

const LIKE_PATTERN: Record<TextMatch, (escaped: string) => string> = {
  contains: (escaped) => `%${escaped}%`,
  starts_with: (escaped) => `${escaped}%`,
  ends_with: (escaped) => `%${escaped}`,
};

/**
 * LIKE backtracks: `%value` and `%value%` cost about value × text (a 900 KB ends_with ran for
 * minutes). Longer values compare the UTF-8 bytes with LOCATE, LEFT and RIGHT instead, which
 * are linear here and, on binary strings, as exact as LIKE (no collation, no space padding; a
 * match of whole UTF-8 sequences is a match of characters).
 */
export const LIKE_VALUE_LIMIT = 1_000;

const BINARY_MATCH: Record<TextMatch, (expression: string) => string> = {
  contains: (expression) => `LOCATE(CAST(? AS BINARY), CAST(${expression} AS BINARY)) > 0`,
  starts_with: (expression) => `LEFT(CAST(${expression} AS BINARY), LENGTH(?)) = CAST(? AS BINARY)`,
  ends_with: (expression) => `RIGHT(CAST(${expression} AS BINARY), LENGTH(?)) = CAST(? AS BINARY)`,
};

// PCRE's `$` also matches before a final newline; `\z` does not.
const NUMBER_TEXT_REGEXP = '^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][-+]?[0-9]+)?\\z';

export const mysqlDialect: SqlDialect = {
  name: 'mysql',

  attributeText(column: string, key: string): SqlFragment {
    const path = attributePath(key);
    const raw = `JSON_EXTRACT(${column}, ?)`;
    return fragment(
      `CONVERT(CASE JSON_TYPE(${raw}) WHEN 'STRING' THEN JSON_VALUE(${column}, ?) WHEN 'ARRAY' THEN JSON_COMPACT(${raw}) ` +
        `WHEN 'OBJECT' THEN JSON_COMPACT(${raw}) WHEN 'NULL' THEN NULL ELSE ${raw} END USING utf8mb4) COLLATE utf8mb4_bin`,
      path,
      path,
      path,
      path,
      path,
    );
  },

  attributeNumber(column: string, key: string): SqlFragment {
    const path = attributePath(key);
    const number = `CAST(JSON_VALUE(${column}, ?) AS DOUBLE)`;
    return fragment(
      `(CASE JSON_TYPE(JSON_EXTRACT(${column}, ?)) WHEN 'INTEGER' THEN ${number} WHEN 'DOUBLE' THEN ${number} ` +
        `WHEN 'UNSIGNED INTEGER' THEN ${number} WHEN 'DECIMAL' THEN ${number} ` +
        `WHEN 'STRING' THEN (CASE WHEN JSON_VALUE(${column}, ?) REGEXP ? THEN ${number} END) END)`,
      path,
      path,
      path,
      path,
      path,
      path,
      NUMBER_TEXT_REGEXP,
      path,
    );
  },

  attributeStringUpTo(column: string, key: string, maxLength: number): SqlFragment {
    const path = attributePath(key);
    // JSON_VALUE reads NULL for what it cannot decode (a lone surrogate's escape), as attributeText does.
    return fragment(
      `CASE WHEN JSON_TYPE(JSON_EXTRACT(${column}, ?)) = 'STRING' AND CHAR_LENGTH(JSON_VALUE(${column}, ?)) <= ? THEN JSON_VALUE(${column}, ?) END`,
      path,
      path,
      maxLength,
      path,
    );
  },

  attributeEquals(column: string, key: string, value: string): SqlFragment | undefined {
    // JSON_VALUE reads a string as itself, a number as its digits, a boolean as 1 or 0, and an
    // array, object or null as NULL. For a value that cannot be the text of a number, boolean,
    // array or object, only a string attribute can match: one JSON parse instead of two.
    if (!canOnlyBeStringText(value)) return undefined;
    return fragment(
      `CONVERT(JSON_VALUE(${column}, ?) USING utf8mb4) COLLATE utf8mb4_bin LIKE ? ESCAPE '!'`,
      attributePath(key),
      escapeLike(value),
    );
  },

  textEquals(expression: SqlFragment, value: string, negate: boolean, plainColumn: boolean): SqlFragment {
    const pattern = escapeLike(value);
    if (negate) return fragment(`${expression.sql} NOT LIKE ? ESCAPE '!'`, ...expression.bindings, pattern);
    // `=` lets an index serve a bare column; LIKE rules out the trailing-space padding.
    if (plainColumn)
      return fragment(
        `(${expression.sql} = ? AND ${expression.sql} LIKE ? ESCAPE '!')`,
        ...expression.bindings,
        value,
        ...expression.bindings,
        pattern,
      );
    return fragment(`${expression.sql} LIKE ? ESCAPE '!'`, ...expression.bindings, pattern);
  },

  textIn(expression: SqlFragment, values: string[], negate: boolean, plainColumn: boolean): SqlFragment {
    // Binary strings compare byte by byte and never pad, so `'a '` is not in `('a')`.
    const binary = `CAST(${expression.sql} AS BINARY) ${negate ? 'NOT IN' : 'IN'} (${placeholders(values.length, 'CAST(? AS BINARY)')})`;
    if (negate || !plainColumn) return fragment(binary, ...expression.bindings, ...values);
    // `IN` on the bare column lets an index serve it; the binary test rules out the padding.
    return fragment(
      `(${expression.sql} IN (${placeholders(values.length)}) AND ${binary})`,
      ...expression.bindings,
      ...values,
      ...expression.bindings,
      ...values,
    );
  },

  notMatching(condition: SqlFragment): SqlFragment {
    return fragment(`(${condition.sql}) IS NOT TRUE`, ...condition.bindings);
  },

  textMatches(expression: SqlFragment, match: TextMatch, value: string): SqlFragment {
    if (Buffer.byteLength(value) <= LIKE_VALUE_LIMIT) {
      return fragment(`${expression.sql} LIKE ? ESCAPE '!'`, ...expression.bindings, LIKE_PATTERN[match](escapeLike(value)));
    }
    if (match === 'contains') return fragment(BINARY_MATCH.contains(expression.sql), value, ...expression.bindings);
    return fragment(BINARY_MATCH[match](expression.sql), ...expression.bindings, value, value);
  },

  // PCRE2 on the utf8mb4_bin text (case-sensitive), with the pattern translated so that it
  // matches what RE2 matches (pcre-pattern.ts); the mark puts the statement under the time limit.
  regexMatches(expression: SqlFragment, pattern: RegexPattern): SqlFragment {
    return fragment(`${expression.sql} REGEXP ? ${REGEX_STATEMENT_MARK}`, ...expression.bindings, pcrePattern(pattern.tree));
  },

  prepareConnection(connection: unknown, limits: StatementLimits): void {
    limitRegexStatements(connection as QueryingConnection, limits.regexStatementTimeoutMs);
  },

  exactInteger: 'CAST(? AS SIGNED)',

  exactUnsigned: 'CAST(? AS UNSIGNED)',

  // `/` would return a DECIMAL; DIV stays a BIGINT.
  integerDivide(dividend: string, divisor: string): string {
    return `(${dividend}) DIV (${divisor})`;
  },

  exactKey(expression: string): string {
    return `CAST(${expression} AS BINARY)`;
  },

  asDouble(expression: string): string {
    return `CAST(${expression} AS DOUBLE)`;
  },

  lockRows(query: Knex.QueryBuilder): Knex.QueryBuilder {
    return query.forUpdate();
  },

  deleteFirstRows(db: Knex, table: string, where: SqlFragment, orderBy: readonly string[], limit: number): Knex.Raw {
    return db.raw(`DELETE FROM ${table} WHERE ${where.sql} ORDER BY ${orderBy.join(', ')} LIMIT ${Math.trunc(limit)}`, where.bindings);
  },

  tableThroughIndex(table: string, alias: string, index: string): string {
    return `${table} AS ${alias} FORCE INDEX (${index})`;
  },

  leftFirstJoin: 'STRAIGHT_JOIN',

  asText(expression: string): string {
    return `CAST(${expression} AS CHAR)`;
  },

  jsonText(column: string): string {
    return `CAST(${column} AS CHAR)`;
  },

  insertedValue: 'VALUES(??)',
  greatest: 'GREATEST',
  least: 'LEAST',
  hasVarPop: true,
  // InnoDB's consistent read: every read of the transaction sees the first one's snapshot.
  snapshot: { isolationLevel: 'repeatable read' },

  writeTransaction(knex, work) {
    // READ COMMITTED: each statement sees what other writers committed before it, after the
    // summary rows it locks (see ../spans/trace-summaries.ts, lockQuery).
    return withMysqlTransaction(knex, 'READ COMMITTED', (connection) =>
      work({ db: knex, run: (query) => send(connection, query), connection }),
    );
  },

  lockingWriteTransaction(knex, work) {
    // SERIALIZABLE: InnoDB reads every row with a shared next-key lock, at its latest committed version.
    return withMysqlTransaction(knex, 'SERIALIZABLE', (connection) =>
      work({ db: knex, run: (query) => send(connection, query), connection }),
    );
  },

  knexSettings(databaseUrl: string | undefined): Knex.Config {
    return {
      client: 'mysql2',
      connection: {
        uri: databaseUrl,
        // Exact 64-bit integers (nanosecond timestamps) come back as strings, never as lossy doubles.
        supportBigNumbers: true,
        bigNumberStrings: true,
        dateStrings: true,
        timezone: 'Z',
        charset: 'utf8mb4',
      } as Knex.MySql2ConnectionConfig,
      pool: { min: 0, max: 10 },
      // Under saturation answer 503 quickly: OTLP exporters give up on a request after 10 s.
      acquireConnectionTimeout: 8000,
    };
  },
};
