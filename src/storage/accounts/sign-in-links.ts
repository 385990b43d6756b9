// Records exchanged dashboard sign-in links (docs/dashboard.md, "Signing in"), so that each link
// signs in once: the primary key on the link id makes a second exchange fail, on any instance.
import type { Knex } from 'knex';

function isDuplicateKey(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Marks the link used; false when it was used before. Rows of links that have expired anyway
 * are dropped first: they can no longer be exchanged, so they need no record.
 */
export async function consumeSignInLink(knex: Knex, linkId: string, expiresAtMs: number, nowMs = Date.now()): Promise<boolean> {
  await knex('used_sign_in_links').where('expires_at', '<', nowMs).delete();
  try {
    await knex('used_sign_in_links').insert({ link_id: linkId, expires_at: expiresAtMs });
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}
