// Structured JSON logs (pino). Lines stay small and free of secrets whatever is logged:
// secret-bearing fields are censored by pino's `redact`, and errors go through a serializer
// that keeps what an operator needs (type, code, message, stack) bounded and scrubbed, and
// drops what drivers attach (SQL text, bindings, values), which holds the callers' data.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** Longest message and stack kept from an error; Knex puts the whole statement, values inlined, in both. */
const MAX_MESSAGE_CHARS = 2048;
const MAX_STACK_CHARS = 4096;

const SECRET_FIELDS = [
  'authorization',
  'cookie',
  'password',
  'client_secret',
  'api_secret',
  'access_token',
  'refresh_token',
  'token',
  'secret',
  'database_url',
  'databaseUrl',
];

// The objects a log line may carry secrets in, named: pino's wildcard paths (`*.field`) cost
// 15 to 45 µs on every line, ten times the line itself (measured on the access-log line), while
// named paths cost nothing measurable.
const SECRET_HOLDERS = ['', 'headers.', 'req.headers.', 'request.headers.', 'body.', 'query.', 'config.', 'config.auth.'];
const REDACT_PATHS = SECRET_FIELDS.flatMap((field) => SECRET_HOLDERS.map((holder) => `${holder}${field}`));

// Every pattern either always matches once it starts (so it consumes its run) or has bounded
// repetitions: error texts carry callers' values, and a backtracking pattern over a crafted
// megabyte would stall the event loop.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]{0,31}:\/\/[^:/@\s]{0,256}:)[^@\s]{0,256}@/gi;
const BEARER_TOKEN = /\bBearer\s+[A-Za-z0-9\-_.~+/]+=*/g;
// Basic credentials carry an API secret (base64 of api_key:api_secret, taken by POST /v1/traces).
const BASIC_CREDENTIALS = /\bBasic\s+[A-Za-z0-9+/]+=*/g;
// A JWT starts with the base64url of '{"': mask the whole run of base64url and dots.
const JWT = /\beyJ[A-Za-z0-9_.-]*/g;

/** Passwords in URLs, bearer tokens, Basic credentials and JWTs, wherever they appear in a text. */
export function scrubSecrets(text: string): string {
  return text
    .replace(URL_PASSWORD, '$1***@')
    .replace(BEARER_TOKEN, 'Bearer [redacted]')
    .replace(BASIC_CREDENTIALS, 'Basic [redacted]')
    .replace(JWT, '[jwt]');
}

// Scrubbed with this much beyond each cut, so a secret that crosses a cut is still recognised.
const SCRUB_MARGIN = 8192;

/** Keeps the start and the end: Knex appends the database's own reason after the statement. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return scrubSecrets(text);
  const tail = Math.floor(max / 4);
  const head = max - tail;
  const start = scrubSecrets(text.slice(0, head + SCRUB_MARGIN)).slice(0, head);
  const end = scrubSecrets(text.slice(-(tail + SCRUB_MARGIN))).slice(-tail);
  return `${start}… [${text.length - max} characters cut] …${end}`;
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
  const error = value as {
    name?: unknown;
    constructor?: { name?: unknown };
    code?: unknown;
    errno?: unknown;
    sqlState?: unknown;
    message?: unknown;
    stack?: unknown;
    cause?: unknown;
  };
  const type =
    typeof error.name === 'string' ? error.name : typeof error.constructor?.name === 'string' ? error.constructor.name : undefined;
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

// A stack frame line, as Knex appends them to "Acquire connection error: …" (one per failed connection).
const STACK_FRAMES = /\n[ \t]+at [^\n]*/g;

/** Knex's own log messages (strings or query objects with bindings): their text only, bounded, without stack frames. */
function serializeKnexMessage(value: unknown): string {
  if (typeof value === 'string') return bounded(value.replace(STACK_FRAMES, ''), MAX_MESSAGE_CHARS);
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
