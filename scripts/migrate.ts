// `npm run migrate`: applies every pending migration to DATABASE_URL (or the embedded SQLite file),
// waiting for another instance that is applying them (MIGRATION_LOCK_WAIT_SECONDS).
// `npm run migrate -- --unlock`: clears the migration lock that a crashed migration left set
// (table knex_migrations_lock); only when no instance is migrating.
// A database it cannot use stops it as it stops `npm start`: one line on stderr, exit code 1.
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { openDatabase } from '../src/storage/database.js';
import { asDatabaseUnusable, DatabaseUnusable } from '../src/storage/database-unusable.js';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { MIGRATION_LOCK_TABLE, MigrationLockTimeout, unlockMigrations } from '../src/storage/migrations/migration-lock.js';

/** Prints the one line of a problem the operator fixes and ends with exit code 1; rethrows anything else. */
function stopOn(error: unknown): never {
  if (!(error instanceof ConfigError || error instanceof DatabaseUnusable || error instanceof MigrationLockTimeout)) throw error;
  console.error(error.message);
  process.exit(1);
}

const { values } = parseArgs({ options: { unlock: { type: 'boolean', default: false } } });
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  stopOn(error);
}
let knex: Knex;
try {
  // Knex's warnings (a failed connection, say) go to the structured log on stdout, as in the service.
  knex = openDatabase(config.databaseUrl, config.dataDir, createLogger(config.logLevel));
} catch (error) {
  stopOn(asDatabaseUnusable(error, config.databaseUrl, config.dataDir));
}
try {
  if (values.unlock) {
    await unlockMigrations(knex);
    console.log(`migration lock cleared (${MIGRATION_LOCK_TABLE})`);
  } else {
    await migrateToLatest(knex, { lockWaitMs: config.migrationLockWaitMs, onWait: () => console.log('waiting for the migrations another instance is running') });
    console.log('migrations are current');
  }
} catch (error) {
  await knex.destroy();
  stopOn(asDatabaseUnusable(error, config.databaseUrl, config.dataDir));
}
await knex.destroy();
