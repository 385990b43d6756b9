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
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, name, fatal } = error as { code?: unknown; name?: unknown; fatal?: unknown };
  if (name === 'KnexTimeoutError') return true; // no pool connection within acquireConnectionTimeout
  if (fatal === true) return true; // mysql2: the connection itself broke
  return typeof code === 'string' && UNAVAILABLE_CODES.has(code);
}
