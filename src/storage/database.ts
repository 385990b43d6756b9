// Owns the Knex connection: the database URL names the dialect (embedded SQLite by default),
// whose module (./sql/) gives the connection settings.
import knexFactory, { type Knex } from 'knex';
import { dialectFor, dialectNameOf, dialectNamed } from './sql/index.js';
import { DEFAULT_STATEMENT_LIMITS, type StatementLimits } from './sql/regex-time-limit.js';

/** The Knex settings for a DATABASE_URL; the SQLite file lives in dataDir unless the URL names one. */
export function knexSettings(databaseUrl: string | undefined, dataDir: string): Knex.Config {
  return dialectNamed(dialectNameOf(databaseUrl)).knexSettings(databaseUrl, dataDir);
}

/**
 * Text form of a BIGINT SQL expression (a column name or aggregate we write, never user text),
 * so that 19-digit nanoseconds survive every driver exactly.
 */
export function bigintAsText(knex: Knex, expression: string): Knex.Raw {
  return knex.raw(dialectFor(knex).asText(expression));
}

/**
 * The bindings of 64-bit integers read back from a column (numbers from better-sqlite3, strings
 * from mysql2's big numbers): numbers while exact, bigints past 2^53. Both drivers bind either as
 * an integer (Knex's types omit bigint). A string would only be exact where the server converts
 * it as an integer (MariaDB does; MySQL compares a string with an integer as doubles).
 */
export function integerBindings(values: ReadonlyArray<number | string>): Knex.Value[] {
  return values.map((value): number | bigint => {
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : BigInt(value);
  }) as Knex.Value[];
}

interface WarningLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
  debug(object: object, message: string): void;
}

type AfterCreate = (connection: unknown, done: (error: Error | null, connection: unknown) => void) => void;

/**
 * Knex's own warnings (pool, deprecations) go to the structured log, not to the console. Each
 * new connection is readied for filters by its dialect (the regex function and time limit).
 */
export function openDatabase(
  databaseUrl: string | undefined,
  dataDir: string,
  logger?: WarningLogger,
  limits: StatementLimits = DEFAULT_STATEMENT_LIMITS,
): Knex {
  const settings = knexSettings(databaseUrl, dataDir);
  const dialect = dialectNamed(dialectNameOf(databaseUrl));
  const pool = settings.pool ?? {};
  const created = pool.afterCreate as AfterCreate | undefined;
  settings.pool = {
    ...pool,
    afterCreate(connection: unknown, done: (error: Error | null, connection: unknown) => void) {
      const prepare = (error: Error | null) => {
        if (!error) dialect.prepareConnection(connection, limits);
        done(error, connection);
      };
      if (created) created(connection, (error) => prepare(error));
      else prepare(null);
    },
  };
  if (logger) {
    settings.log = {
      warn: (message: unknown) => logger.warn({ knex: message }, 'knex warning'),
      error: (message: unknown) => logger.error({ knex: message }, 'knex error'),
      deprecate: (method: string, alternative: string) => logger.warn({ method, alternative }, 'knex deprecation'),
      debug: (message: unknown) => logger.debug({ knex: message }, 'knex debug'),
    };
  }
  return knexFactory(settings);
}
