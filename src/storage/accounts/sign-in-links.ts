// Records exchanged dashboard sign-in links (docs/dashboard.md, "Signing in"), so that each link
// signs in once: the primary key on the link id makes a second exchange fail, on any instance.
import type { Knex } from 'knex';
import { retryOnLockConflict } from '../transactions.js';

function isDuplicateKey(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Marks the link used; false when it was used before. Rows of links that have expired anyway
 * are dropped first: they can no longer be exchanged, so they need no record. Both statements
 * are retried on a lock conflict: two instances dropping the same expired rows, or two
 * exchanges of one link on two Galera nodes (the loser fails certification, then finds the
 * winner's row: a duplicate).
 */
export async function consumeSignInLink(knex: Knex, linkId: string, expiresAtMs: number, nowMs = Date.now()): Promise<boolean> {
  await retryOnLockConflict(() => knex('used_sign_in_links').where('expires_at', '<', nowMs).delete());
  try {
    await retryOnLockConflict(() => knex('used_sign_in_links').insert({ link_id: linkId, expires_at: expiresAtMs }));
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}
