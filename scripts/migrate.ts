// `npm run migrate`: applies every pending migration to DATABASE_URL (or the embedded SQLite file),
// waiting for another instance that is applying them (MIGRATION_LOCK_WAIT_SECONDS).
// `npm run migrate -- --unlock`: clears the migration lock that a crashed migration left set
// (table knex_migrations_lock); only when no instance is migrating.
// A database it cannot use stops it as it stops `npm start`: one line on stderr, exit code 1.
import { parseArgs } from 'node:util';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { MIGRATION_LOCK_TABLE, MigrationLockTimeout, unlockMigrations } from '../src/storage/migrations/migration-lock.js';
import { runDatabaseCommand } from './lib/database-command.js';

const { values } = parseArgs({ options: { unlock: { type: 'boolean', default: false } } });
await runDatabaseCommand(
  async (knex, config) => {
    if (values.unlock) {
      await unlockMigrations(knex);
      console.log(`migration lock cleared (${MIGRATION_LOCK_TABLE})`);
    } else {
      await migrateToLatest(knex, {
        lockWaitMs: config.migrationLockWaitMs,
        onWait: () => console.log('waiting for the migrations another instance is running'),
      });
      console.log('migrations are current');
    }
  },
  [MigrationLockTimeout],
);
