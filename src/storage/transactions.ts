// The write transactions of storage, each retried whole when the database aborts it for a lock
// conflict: MySQL/MariaDB deadlocks and lock-wait timeouts (also how Galera/TiDB report
// certification conflicts at commit), and SQLite's busy writer lock.
import type { Knex } from 'knex';
import type { WriteTransaction } from './sql/dialect.js';
import { dialectFor } from './sql/index.js';
import { sendPreparedNative } from './sql/mysql-transaction.js';
import type { NativeStatement } from './sql/row-statements.js';

const RETRYABLE_MYSQL_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);
const RETRYABLE_SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);

export function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (RETRYABLE_MYSQL_CODES.has(code) || RETRYABLE_SQLITE_CODES.has(code));
}

export async function retryOnLockConflict<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isLockConflict(error)) throw error;
      // Jittered backoff so the transactions that collided do not collide again in step.
      await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt + Math.random() * 20));
    }
  }
}

/**
 * A Knex transaction, retried whole on a lock conflict: every change of an organization, member,
 * application or key runs in one (two writers of one organization can deadlock on MariaDB).
 */
export function writeTransaction<T>(knex: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return retryOnLockConflict(() => knex.transaction(work));
}

/**
 * The dialect's own write transaction (sql/dialect.ts), retried whole on a lock conflict: for the
 * span writer and the purger, whose statements go out back to back.
 */
export function bulkWriteTransaction<T>(knex: Knex, work: (transaction: WriteTransaction) => Promise<T>): Promise<T> {
  return retryOnLockConflict(() => dialectFor(knex).writeTransaction(knex, work));
}

/** bulkWriteTransaction under the dialect's lockingWriteTransaction (sql/dialect.ts): for the rebuild of derived data. */
export function lockingWriteTransaction<T>(knex: Knex, work: (transaction: WriteTransaction) => Promise<T>): Promise<T> {
  return retryOnLockConflict(() => dialectFor(knex).lockingWriteTransaction(knex, work));
}

/**
 * Runs a statement compiled ahead (sql/row-statements.ts) in the transaction: on MariaDB/MySQL as
 * a prepared statement on the transaction's connection (its text repeats, so the server parses it
 * once per connection and the values travel unescaped), on SQLite through Knex.
 */
export function runCompiled({ db, connection }: WriteTransaction, statement: NativeStatement): Promise<unknown> {
  return connection ? sendPreparedNative(connection, statement) : db.raw(statement.sql, statement.bindings as Knex.RawBinding[]);
}

/** The rows an UPDATE or DELETE run by a WriteTransaction's `run` matched: a count from SQLite (Knex), a result packet from MariaDB/MySQL. */
export function affectedRows(result: unknown): number {
  if (typeof result === 'number') return result;
  return Number((result as { affectedRows?: number } | null)?.affectedRows ?? 0);
}
