// The dashboard's sign-in sessions (src/dashboard/sessions.ts owns their rules): rows named by
// the hash of the session id, read and moved on by each token request, deleted at sign-out, when
// they end, and when their user loses their last membership.
import type { Knex } from 'knex';
import { retryOnLockConflict } from '../transactions.js';

export interface DashboardSessionRecord {
  idHash: string;
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  idleExpiresAt: number;
  expiresAt: number;
}

interface Row {
  id_hash: string;
  user_id: string;
  created_at: number | string;
  last_seen_at: number | string;
  idle_expires_at: number | string;
  expires_at: number | string;
}

const TABLE = 'dashboard_sessions';

/** Adds the session; sessions that ended idle (every ended one: idle expiry never passes the absolute) go first. */
export async function insertDashboardSession(knex: Knex, session: DashboardSessionRecord): Promise<void> {
  await retryOnLockConflict(() => knex(TABLE).where('idle_expires_at', '<=', session.createdAt).delete());
  await knex(TABLE).insert({
    id_hash: session.idHash,
    user_id: session.userId,
    created_at: session.createdAt,
    last_seen_at: session.lastSeenAt,
    idle_expires_at: session.idleExpiresAt,
    expires_at: session.expiresAt,
  });
}

export async function findDashboardSession(knex: Knex, idHash: string): Promise<DashboardSessionRecord | undefined> {
  const row = (await knex(TABLE).where({ id_hash: idHash }).first()) as Row | undefined;
  return (
    row && {
      idHash: row.id_hash,
      userId: row.user_id,
      createdAt: Number(row.created_at),
      lastSeenAt: Number(row.last_seen_at),
      idleExpiresAt: Number(row.idle_expires_at),
      expiresAt: Number(row.expires_at),
    }
  );
}

/** Records a use; answers false when the row is gone (signed out or revoked meanwhile). */
export async function touchDashboardSession(knex: Knex, idHash: string, now: number, idleExpiresAt: number): Promise<boolean> {
  const updated = await retryOnLockConflict(() =>
    knex(TABLE).where({ id_hash: idHash }).update({ last_seen_at: now, idle_expires_at: idleExpiresAt }),
  );
  return updated === 1;
}

export async function deleteDashboardSession(knex: Knex, idHash: string): Promise<void> {
  await retryOnLockConflict(() => knex(TABLE).where({ id_hash: idHash }).delete());
}

/** Ends every session of the user (inside the caller's transaction, so it commits with the revocation). */
export async function deleteUserDashboardSessions(knex: Knex, userId: string): Promise<number> {
  return knex(TABLE).where({ user_id: userId }).delete();
}
