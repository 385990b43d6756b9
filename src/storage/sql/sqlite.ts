// The SQLite dialect. In filters: strings compare with the BINARY collation (exact and
// case-sensitive); literal matching uses GLOB, which is case-sensitive, with its three special
// characters bracketed, and instr()/substr() where the pattern would pass GLOB's length limit.
// JSON through the built-in JSON functions; `->` returns a value's JSON text exactly as stored
// (numbers keep their digits, booleans read `true`/`false`).
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { attributePath, fragment, placeholders, type RegexPattern, type SqlDialect, type SqlFragment, type TextMatch } from './dialect.js';
import type { StatementLimits } from './regex-time-limit.js';
import { registerRegexp, type FunctionRegistry } from './sqlite-regexp.js';

/** `*`, `?` and `[` are GLOB's wildcards; inside brackets each stands for itself. */
export function escapeGlob(value: string): string {
  return value.replace(/[*?[]/g, (character) => `[${character}]`);
}

const GLOB_PATTERN: Record<TextMatch, (escaped: string) => string> = {
  contains: (escaped) => `*${escaped}*`,
  starts_with: (escaped) => `${escaped}*`,
  ends_with: (escaped) => `*${escaped}`,
};

/** SQLITE_MAX_LIKE_PATTERN_LENGTH: a longer GLOB pattern fails ("LIKE or GLOB pattern too complex"). */
export const GLOB_PATTERN_LIMIT = 50_000;

// The same literal, binary tests without a pattern, for values past the limit (a 1 MiB body
// holds ~1 MB). instr() and substr() count characters, so multi-byte and astral characters
// keep their meaning. GLOB stays for the rest: `trace_id GLOB 'ab*'` can read an index range.
const WITHOUT_PATTERN: Record<TextMatch, (expression: string) => string> = {
  contains: (expression) => `instr(${expression}, ?) > 0`,
  // The first occurrence is at the start exactly when the text starts with the value.
  starts_with: (expression) => `instr(${expression}, ?) = 1`,
  // A start before the first character is clamped: a shorter text is compared whole, and differs.
  ends_with: (expression) => `substr(${expression}, -length(?)) = ?`,
};

/** The SQLite file a DATABASE_URL (`sqlite:…`, or unset for DATA_DIR's file) names. */
export function sqliteFilename(databaseUrl: string | undefined, dataDir: string): string {
  return databaseUrl ? databaseUrl.replace(/^sqlite:(\/\/)?/, '') : path.join(dataDir, 'spanledger.sqlite');
}

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',

  attributeText(column: string, key: string): SqlFragment {
    const path = attributePath(key);
    return fragment(
      `(CASE json_type(${column}, ?) WHEN 'text' THEN json_extract(${column}, ?) WHEN 'null' THEN NULL ELSE ${column} -> ? END)`,
      path,
      path,
      path,
    );
  },

  attributeNumber(column: string, key: string): SqlFragment {
    const path = attributePath(key);
    const value = `json_extract(${column}, ?)`;
    // A string reads as a number when it is a JSON number literal: only number characters
    // (GLOB), then the JSON grammar (json_valid never fails, unlike json_type on bad input).
    return fragment(
      `(CASE json_type(${column}, ?) WHEN 'integer' THEN CAST(${value} AS REAL) WHEN 'real' THEN ${value} ` +
        `WHEN 'text' THEN (CASE WHEN ${value} NOT GLOB '*[^-+.0-9eE]*' AND json_valid(${value}) THEN CAST(${value} AS REAL) END) END)`,
      path,
      path,
      path,
      path,
      path,
      path,
    );
  },

  attributeStringUpTo(column: string, key: string, maxLength: number): SqlFragment {
    const path = attributePath(key);
    return fragment(
      `(CASE WHEN json_type(${column}, ?) = 'text' AND length(json_extract(${column}, ?)) <= ? THEN json_extract(${column}, ?) END)`,
      path,
      path,
      maxLength,
      path,
    );
  },

  textEquals(expression: SqlFragment, value: string, negate: boolean): SqlFragment {
    return fragment(`${expression.sql} ${negate ? '<>' : '='} ?`, ...expression.bindings, value);
  },

  textIn(expression: SqlFragment, values: string[], negate: boolean): SqlFragment {
    return fragment(`${expression.sql} ${negate ? 'NOT IN' : 'IN'} (${placeholders(values.length)})`, ...expression.bindings, ...values);
  },

  notMatching(condition: SqlFragment): SqlFragment {
    return fragment(`(${condition.sql}) IS NOT TRUE`, ...condition.bindings);
  },

  textMatches(expression: SqlFragment, match: TextMatch, value: string): SqlFragment {
    const pattern = GLOB_PATTERN[match](escapeGlob(value));
    if (Buffer.byteLength(pattern) <= GLOB_PATTERN_LIMIT) return fragment(`${expression.sql} GLOB ?`, ...expression.bindings, pattern);
    const values = match === 'ends_with' ? [value, value] : [value];
    return fragment(WITHOUT_PATTERN[match](expression.sql), ...expression.bindings, ...values);
  },

  // regexp(), registered on each connection (sqlite-regexp.ts), runs RE2 on the pattern as sent.
  regexMatches(expression: SqlFragment, pattern: RegexPattern): SqlFragment {
    return fragment(`${expression.sql} REGEXP ?`, ...expression.bindings, pattern.source);
  },

  prepareConnection(connection: unknown, limits: StatementLimits): void {
    registerRegexp(connection as FunctionRegistry, limits.regexStatementTimeoutMs);
  },

  exactInteger: 'CAST(? AS INTEGER)',

  exactUnsigned: 'CAST(? AS INTEGER)',

  // `/` on two INTEGER operands divides in whole numbers.
  integerDivide(dividend: string, divisor: string): string {
    return `(${dividend}) / (${divisor})`;
  },

  // The BINARY collation already compares bytes (memcmp), without padding.
  exactKey(expression: string): string {
    return expression;
  },

  asDouble(expression: string): string {
    return `CAST(${expression} AS REAL)`;
  },

  lockRows(query: Knex.QueryBuilder): Knex.QueryBuilder {
    return query;
  },

  deleteFirstRows(db: Knex, table: string, where: SqlFragment, orderBy: readonly string[], limit: number): Knex.Raw {
    return db.raw(
      `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${where.sql} ORDER BY ${orderBy.join(', ')} LIMIT ${Math.trunc(limit)})`,
      where.bindings,
    );
  },

  tableThroughIndex(table: string, alias: string, index: string): string {
    return `${table} AS ${alias} INDEXED BY ${index}`;
  },

  leftFirstJoin: 'CROSS JOIN',

  asText(expression: string): string {
    return `CAST(${expression} AS TEXT)`;
  },

  jsonText(column: string): string {
    return column;
  },

  insertedValue: 'excluded.??',
  greatest: 'MAX',
  least: 'MIN',
  hasVarPop: false,
  // One connection, and a reader's transaction sees one snapshot in WAL mode.
  snapshot: undefined,

  writeTransaction(knex, work) {
    return knex.transaction((trx) => work({ db: trx, run: async <T>(query: Knex.QueryBuilder) => (await query) as T }));
  },

  lockingWriteTransaction(knex, work) {
    return sqliteDialect.writeTransaction(knex, work);
  },

  knexSettings(databaseUrl: string | undefined, dataDir: string): Knex.Config {
    const filename = sqliteFilename(databaseUrl, dataDir);
    if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
    return {
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(connection: { pragma(sql: string): unknown }, done: (error: Error | null, connection: unknown) => void) {
          // WAL lets readers run beside the writer; foreign keys are off by default in SQLite.
          connection.pragma('journal_mode = WAL');
          connection.pragma('foreign_keys = ON');
          connection.pragma('busy_timeout = 5000');
          done(null, connection);
        },
      },
      // The one connection busy past this: 503 with Retry-After before an OTLP exporter's 10 s
      // timeout, as on MariaDB/MySQL (Knex waits 60 s by default).
      acquireConnectionTimeout: 8000,
    };
  },
};
