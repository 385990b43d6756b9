// Recognises errors that mean "the database cannot be reached or is saturated right now":
// those answer 503 with Retry-After, never 500 (and never 401 during authentication).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'ER_QUERY_INTERRUPTED',
  // A Galera node outside the primary component (cut off, joining, a donor that rejects
  // queries, wsrep_reject_queries) answers every statement with 1047 "WSREP has not yet
  // prepared node for application use"; another node, or this one later, will serve.
  'ER_UNKNOWN_COM_ERROR',
  // The commit failed and was rolled back: on Galera when the node lost the cluster while
  // replicating it (provider status "connection failed" or "node failed"), on any MariaDB when
  // a backup lock held it too long. Nothing was committed; a retry later is the answer.
  'ER_ERROR_DURING_COMMIT',
  // What a statement meets when the server is short of memory, sort space, temporary table space
  // or connections, or stops it (an operator's KILL, a server-wide time limit): nothing about the
  // request, which succeeds when the load is gone.
  'ER_ERROR_DURING_ROLLBACK',
  'ER_FILSORT_ABORT',
  'ER_OUTOFMEMORY',
  'ER_OUT_OF_SORTMEMORY',
  'ER_OUT_OF_RESOURCES',
  'ER_RECORD_FILE_FULL',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_USER_LIMIT_REACHED',
  'ER_TOO_MANY_CONCURRENT_TRXS',
  'ER_NET_READ_ERROR',
  'ER_NET_READ_INTERRUPTED',
  'ER_NET_ERROR_ON_WRITE',
  'ER_NET_WRITE_INTERRUPTED',
  'ER_CLIENT_INTERACTION_TIMEOUT',
  'ER_QUERY_TIMEOUT',
  // A snapshot read of a table altered since the snapshot began (a migration running alongside).
  'ER_TABLE_DEF_CHANGED',
  'ER_CHECKREAD',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
]);

/**
 * Server errors by number, for those mysql2 has no name for (its `code` is then undefined):
 * MariaDB's 1927 ER_CONNECTION_KILLED, sent when the connection is killed (a node shutting
 * down, wsrep_reject_queries=ALL_KILL, an operator's KILL), and 1969 ER_STATEMENT_TIMEOUT from
 * a limit the service did not set (a server-wide or per-user max_statement_time; the regex
 * limit's own time-outs become a 422 before they get here, sql/mysql-regex-limit.ts).
 */
const UNAVAILABLE_ERRNOS = new Set([1927, 1969]);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, errno, name, fatal } = error as { code?: unknown; errno?: unknown; name?: unknown; fatal?: unknown };
  if (name === 'KnexTimeoutError') return true; // no pool connection within acquireConnectionTimeout
  if (fatal === true) return true; // mysql2: the connection itself broke
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return code === undefined && typeof errno === 'number' && UNAVAILABLE_ERRNOS.has(errno);
}
