// Picks the dialect (./dialect.ts) of a Knex instance or of a database URL.
import type { Knex } from 'knex';
import type { SqlDialect } from './dialect.js';
import { mysqlDialect } from './mysql.js';
import { sqliteDialect } from './sqlite.js';

export type DialectName = SqlDialect['name'];

/** `mysql:` URLs name MariaDB or MySQL; anything else (or nothing) the embedded SQLite. */
export function dialectNameOf(databaseUrl: string | undefined): DialectName {
  return databaseUrl?.startsWith('mysql:') ? 'mysql' : 'sqlite';
}

export function dialectNamed(name: DialectName): SqlDialect {
  return name === 'mysql' ? mysqlDialect : sqliteDialect;
}

export function dialectFor(knex: Knex): SqlDialect {
  return dialectNamed(knex.client.config.client === 'mysql2' ? 'mysql' : 'sqlite');
}

/**
 * Whether a Knex instance talks to MariaDB/MySQL. For the migrations only, whose SQL is frozen
 * history written per database; everything else asks its dialect.
 */
export function isMysql(knex: Knex): boolean {
  return dialectFor(knex).name === 'mysql';
}
