// `npm run migrate`: applies every pending migration to DATABASE_URL (or the embedded SQLite file),
// waiting for another instance that is applying them (MIGRATION_LOCK_WAIT_SECONDS).
// `npm run migrate -- --unlock`: clears the migration lock that a crashed migration left set
// (table knex_migrations_lock); only when no instance is migrating.
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { MIGRATION_LOCK_TABLE, MigrationLockTimeout, unlockMigrations } from '../src/storage/migrations/migration-lock.js';

const { values } = parseArgs({ options: { unlock: { type: 'boolean', default: false } } });
const config = loadConfig();
const knex = openDatabase(config.databaseUrl, config.dataDir);
try {
  if (values.unlock) {
    await unlockMigrations(knex);
    console.log(`migration lock cleared (${MIGRATION_LOCK_TABLE})`);
  } else {
    await migrateToLatest(knex, { lockWaitMs: config.migrationLockWaitMs, onWait: () => console.log('waiting for the migrations another instance is running') });
    console.log('migrations are current');
  }
} catch (error) {
  if (!(error instanceof MigrationLockTimeout)) throw error;
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await knex.destroy();
}
