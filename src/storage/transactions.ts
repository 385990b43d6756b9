// Retries a whole transaction when the database aborts it for a lock conflict: MySQL/MariaDB
// deadlocks and lock-wait timeouts (also how Galera/TiDB report certification conflicts at
// commit), and SQLite's busy writer lock.
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
