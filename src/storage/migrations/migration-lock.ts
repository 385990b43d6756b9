// Migrations when several instances start at once on one database (also a Galera cluster): one
// runs them under Knex's migration lock (the one row of `knex_migrations_lock`), the others wait
// for it, polling, then go on once every migration is applied; past the wait they stop with one
// line that names the lock and how to clear one that a crashed migration left.
//
// Knex alone is not enough here. Two instances creating its tables at once fail ("table
// exists") or leave two lock rows, after which no instance can ever take the lock; so the tables
// and their one row (key 1) are made first, idempotently. On MariaDB/MySQL the lock is taken in a
// transaction of its own, committed before any migration runs: inside the batch's transaction
// (Knex's default) the first DDL statement commits it implicitly, and on Galera the loser of two
// nodes that both took the row fails only then, as a "migration failed", after which Knex frees
// the lock the winner still holds. A transaction around the batch protects nothing there anyway
// (every DDL statement commits). SQLite keeps it: its DDL is transactional, and a crash rolls the
// lock back with the batch.
import type { Knex } from 'knex';
import { isMysql } from '../sql/index.js';
import { isLockConflict } from '../transactions.js';

export const MIGRATIONS_TABLE = 'knex_migrations';
export const MIGRATION_LOCK_TABLE = `${MIGRATIONS_TABLE}_lock`;

/** The command that clears a lock left set by a migration that crashed. */
export const UNLOCK_COMMAND = 'npm run migrate -- --unlock';

/** Another instance held the migration lock for longer than the start may wait. */
export class MigrationLockTimeout extends Error {
  constructor(waitedMs: number) {
    super(
      `migrations did not run within ${Math.round(waitedMs / 1000)} s: another instance holds the migration lock ` +
        `(table ${MIGRATION_LOCK_TABLE}, is_locked = 1); if no migration is running (a crashed one leaves the lock set), ` +
        `clear it with \`${UNLOCK_COMMAND}\` and start again`,
    );
    this.name = 'MigrationLockTimeout';
  }
}

/** A migration list read before another instance applied some of it: read again. */
class StaleMigrationList extends Error {}

/** Knex's two migration tables, as Knex makes them, and the lock's one row; safe to run from many instances at once. */
export async function ensureMigrationTables(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasTable(MIGRATIONS_TABLE))) {
    await createIfAbsent(knex, MIGRATIONS_TABLE, (table) => {
      table.increments();
      table.string('name');
      table.integer('batch');
      table.timestamp('migration_time');
    });
  }
  if (!(await knex.schema.hasTable(MIGRATION_LOCK_TABLE))) {
    await createIfAbsent(knex, MIGRATION_LOCK_TABLE, (table) => {
      table.increments('index').primary();
      table.integer('is_locked');
    });
  }
  // Key 1: two instances inserting at once make one row, never two.
  const rows = await knex(MIGRATION_LOCK_TABLE).select('index');
  if (rows.length === 0) await knex(MIGRATION_LOCK_TABLE).insert({ index: 1, is_locked: 0 }).onConflict('index').ignore();
}

async function createIfAbsent(knex: Knex, name: string, columns: (table: Knex.CreateTableBuilder) => void): Promise<void> {
  try {
    await knex.schema.createTable(name, columns);
  } catch (error) {
    // Another instance made it between the check and the statement.
    if (!(await knex.schema.hasTable(name))) throw error;
  }
}

/** Clears the migration lock (`npm run migrate -- --unlock`): only when no migration is running. */
export async function unlockMigrations(knex: Knex): Promise<void> {
  await ensureMigrationTables(knex);
  await knex(MIGRATION_LOCK_TABLE).update({ is_locked: 0 });
}

function isLockBusy(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'MigrationLocked' || isLockConflict(error) || error instanceof StaleMigrationList;
}

export interface MigrationWait {
  /** How long to wait for another instance's lock before giving up (MigrationLockTimeout). */
  lockWaitMs: number;
  /** How often to look again. */
  pollMs?: number;
  /** Told once when the lock is found held. */
  onWait?: () => void;
}

/** Whether an instance holds the lock now (its row reads is_locked = 1). */
async function lockHeld(knex: Knex): Promise<boolean> {
  const rows = (await knex(MIGRATION_LOCK_TABLE).select('is_locked')) as Array<{ is_locked: number | string | null }>;
  return rows.some((row) => Number(row.is_locked) === 1);
}

/**
 * Applies the pending migrations of `config` under Knex's lock, waiting while another instance
 * holds it; resolves once every migration is applied, by this instance or another. With nothing
 * pending it takes no lock at all (the usual start).
 */
export async function migrateUnderLock(
  knex: Knex,
  config: Knex.MigratorConfig,
  isCurrent: () => Promise<boolean>,
  wait: MigrationWait,
): Promise<void> {
  const started = Date.now();
  const { lockWaitMs, pollMs = 500, onWait } = wait;
  const mysql = isMysql(knex);
  let told = false;
  for (;;) {
    try {
      await ensureMigrationTables(knex);
      if (await isCurrent()) return;
      // Knex warns on every refused attempt: try only when the lock looks free.
      if (!(await lockHeld(knex))) {
        await knex.migrate.latest({
          ...config,
          disableTransactions: mysql,
          // Without the batch's transaction, Knex does not read the applied list again once it has
          // the lock: an instance that read it before another finished would run them twice.
          beforeAll: async (db, migrations) => {
            const applied = new Set<string>(await db(config.tableName ?? MIGRATIONS_TABLE).pluck('name'));
            if (migrations.some((name) => applied.has(String(name)))) throw new StaleMigrationList('applied meanwhile');
          },
        });
        return;
      }
    } catch (error) {
      if (!isLockBusy(error)) throw error;
    }
    if (Date.now() - started >= lockWaitMs) throw new MigrationLockTimeout(Date.now() - started);
    if (!told) onWait?.();
    told = true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
