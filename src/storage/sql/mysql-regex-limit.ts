// The time limit on MariaDB statements with a `regex` condition. MariaDB's REGEXP is PCRE2,
// which backtracks: a statement carrying REGEX_STATEMENT_MARK (written by mysql.ts next to each
// REGEXP it compiles from a filter) is sent as `SET STATEMENT max_statement_time=<s> FOR <it>`,
// which bounds that one statement and leaves the pooled connection's own setting alone. A
// statement stopped by the limit fails as RegexTimeLimitExceeded.
import { RegexTimeLimitExceeded } from './regex-time-limit.js';

/** A comment that names a statement with a regex condition (MariaDB ignores it). */
export const REGEX_STATEMENT_MARK = '/* spanledger:regex */';

type QueryCallback = (error: unknown, ...results: unknown[]) => void;

/** MariaDB's ER_STATEMENT_TIMEOUT ("max_statement_time exceeded"); mysql2 knows no name for it. */
const STATEMENT_TIMEOUT_ERRNO = 1969;

/** The part of a mysql2 connection this module uses: query(options, values, callback), as Knex calls it. */
export interface QueryingConnection {
  query(options: unknown, values?: unknown, callback?: unknown): unknown;
}

function sqlOf(options: unknown): string | undefined {
  if (typeof options === 'string') return options;
  if (typeof options === 'object' && options !== null && typeof (options as { sql?: unknown }).sql === 'string')
    return (options as { sql: string }).sql;
  return undefined;
}

/** max_statement_time in seconds, to the microsecond MariaDB keeps. */
function seconds(limitMs: number): string {
  return (limitMs / 1000).toFixed(6);
}

/** Makes every marked statement sent on this connection carry the time limit. */
export function limitRegexStatements(connection: QueryingConnection, limitMs: number): void {
  const query = connection.query.bind(connection);
  connection.query = (options: unknown, values?: unknown, callback?: unknown) => {
    const sql = sqlOf(options);
    if (sql === undefined || !sql.includes(REGEX_STATEMENT_MARK) || typeof callback !== 'function') return query(options, values, callback);
    const limited = `SET STATEMENT max_statement_time=${seconds(limitMs)} FOR ${sql}`;
    const withSql = typeof options === 'string' ? limited : { ...(options as object), sql: limited };
    return query(withSql, values, (error: unknown, ...results: unknown[]) => {
      const errno = (error as { errno?: unknown } | null)?.errno;
      (callback as QueryCallback)(
        errno === STATEMENT_TIMEOUT_ERRNO ? new RegexTimeLimitExceeded(limitMs, { cause: error }) : error,
        ...results,
      );
    });
  };
}
