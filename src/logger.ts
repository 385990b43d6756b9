// Structured JSON logs (pino). Lines stay small and free of secrets whatever is logged:
// secret-bearing fields are censored by pino's `redact`, and errors go through a serializer
// that keeps what an operator needs (type, code, message, stack) bounded and scrubbed, and
// drops what drivers attach (SQL text, bindings, values), which holds the callers' data.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** Longest message and stack kept from an error; Knex puts the whole statement, values inlined, in both. */
const MAX_MESSAGE_CHARS = 2048;
const MAX_STACK_CHARS = 4096;

const SECRET_FIELDS = ['authorization', 'cookie', 'password', 'client_secret', 'api_secret', 'access_token', 'refresh_token', 'token', 'secret', 'database_url', 'databaseUrl'];

// Top-level, one and two levels down (e.g. `headers.authorization`, `req.headers.authorization`).
const REDACT_PATHS = SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

/** Passwords in URLs, bearer tokens and JWTs, wherever they appear in a text. */
export function scrubSecrets(text: string): string {
  return text
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@')
    .replace(/\bBearer\s+[A-Za-z0-9\-_.~+/]+=*/g, 'Bearer [redacted]')
    .replace(/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[jwt]');
}

/** Keeps the start and the end: Knex appends the database's own reason after the statement. */
function bounded(text: string, max: number): string {
  // Scrubbed before it is cut, so no secret survives half-cut at an edge.
  const clean = scrubSecrets(text);
  if (clean.length <= max) return clean;
  const tail = Math.floor(max / 4);
  return `${clean.slice(0, max - tail)}… [${clean.length - max} characters cut] …${clean.slice(-tail)}`;
}

interface LoggedError {
  type?: string;
  code?: string | number;
  errno?: number;
  sqlState?: string;
  message: string;
  stack?: string;
  cause?: LoggedError;
}

/** The `err` (and `cause`) serializer: only named, bounded, scrubbed fields. */
export function serializeError(value: unknown, depth = 0): LoggedError | string {
  if (typeof value !== 'object' || value === null) return bounded(String(value), MAX_MESSAGE_CHARS);
  const error = value as { name?: unknown; constructor?: { name?: unknown }; code?: unknown; errno?: unknown; sqlState?: unknown; message?: unknown; stack?: unknown; cause?: unknown };
  const type = typeof error.name === 'string' ? error.name : typeof error.constructor?.name === 'string' ? error.constructor.name : undefined;
  const logged: LoggedError = { type, message: bounded(String(error.message ?? ''), MAX_MESSAGE_CHARS) };
  if (typeof error.code === 'string' || typeof error.code === 'number') logged.code = error.code;
  if (typeof error.errno === 'number') logged.errno = error.errno;
  if (typeof error.sqlState === 'string') logged.sqlState = error.sqlState;
  if (typeof error.stack === 'string') logged.stack = bounded(error.stack, MAX_STACK_CHARS);
  if (error.cause !== undefined && depth < 2) {
    const cause = serializeError(error.cause, depth + 1);
    logged.cause = typeof cause === 'string' ? { message: cause } : cause;
  }
  return logged;
}

/** Knex's own log messages (strings or query objects with bindings): their text only, bounded. */
function serializeKnexMessage(value: unknown): string {
  if (typeof value === 'string') return bounded(value, MAX_MESSAGE_CHARS);
  const message = (value as { message?: unknown; sql?: unknown } | null)?.message ?? (value as { sql?: unknown } | null)?.sql;
  return bounded(String(message ?? ''), MAX_MESSAGE_CHARS);
}

/** `destination` defaults to stdout; tests pass one they read back. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'spanledger' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError, cause: serializeError, knex: serializeKnexMessage },
  };
  return destination ? pino(options, destination) : pino(options);
}
