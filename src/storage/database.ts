// Owns the Knex connection: picks the dialect from DATABASE_URL (embedded SQLite by default).
import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';

export type Dialect = 'sqlite' | 'mysql';

export function dialectOf(databaseUrl: string | undefined): Dialect {
  return databaseUrl?.startsWith('mysql:') ? 'mysql' : 'sqlite';
}

/** Builds the Knex settings for a DATABASE_URL; the SQLite file lives in dataDir unless the URL names one. */
export function knexSettings(databaseUrl: string | undefined, dataDir: string): Knex.Config {
  if (dialectOf(databaseUrl) === 'mysql') {
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
  }
  const filename = databaseUrl ? databaseUrl.replace(/^sqlite:(\/\/)?/, '') : path.join(dataDir, 'spanledger.sqlite');
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
  };
}

export function isMysql(knex: Knex): boolean {
  return knex.client.config.client === 'mysql2';
}

/**
 * Text form of a BIGINT SQL expression (a column name or aggregate we write, never user text),
 * so that 19-digit nanoseconds survive every driver exactly.
 */
export function bigintAsText(knex: Knex, expression: string): Knex.Raw {
  return knex.raw(`CAST(${expression} AS ${isMysql(knex) ? 'CHAR' : 'TEXT'})`);
}

interface WarningLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
  debug(object: object, message: string): void;
}

/** Knex's own warnings (pool, deprecations) go to the structured log, not to the console. */
export function openDatabase(databaseUrl: string | undefined, dataDir: string, logger?: WarningLogger): Knex {
  const settings = knexSettings(databaseUrl, dataDir);
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
