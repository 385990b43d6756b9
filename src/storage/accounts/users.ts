// Users: identified by issuer + subject. A user invited by e-mail before ever signing in is a
// placeholder row (no issuer/subject) that the first sign-in with that e-mail claims.
import type { Knex } from 'knex';
import { writeTransaction } from '../transactions.js';
import { newId } from './ids.js';

export interface UserRecord {
  id: string;
  issuer: string | null;
  subject: string | null;
  email: string | null;
  name: string | null;
  created_at: number;
  updated_at: number;
}

export interface SignIn {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
}

function normalise(row: UserRecord | undefined): UserRecord | undefined {
  return row && { ...row, created_at: Number(row.created_at), updated_at: Number(row.updated_at) };
}

export async function findUserById(knex: Knex, id: string): Promise<UserRecord | undefined> {
  return normalise(await knex<UserRecord>('users').where({ id }).first());
}

export async function findUserByIdentity(knex: Knex, issuer: string, subject: string): Promise<UserRecord | undefined> {
  return normalise(await knex<UserRecord>('users').where({ issuer, subject }).first());
}

/** The invited placeholder for this e-mail, if one waits (e-mails compare case-insensitively). */
export async function findPlaceholderByEmail(knex: Knex, email: string): Promise<UserRecord | undefined> {
  return normalise(
    await knex<UserRecord>('users').whereNull('issuer').whereRaw('LOWER(email) = LOWER(?)', [email]).orderBy('created_at').first(),
  );
}

/**
 * Two invitations of one new e-mail to different organizations that run at the same moment can
 * each make a placeholder. The first sign-in claims the oldest; the memberships of the others
 * move to it (unless it already has one in that organization) and the others go, so no
 * invitation is lost.
 */
async function foldRacedPlaceholders(trx: Knex.Transaction, userId: string, email: string, now: number): Promise<void> {
  const others: string[] = await trx('users')
    .whereNull('issuer')
    .whereRaw('LOWER(email) = LOWER(?)', [email])
    .whereNot('id', userId)
    .pluck('id');
  for (const other of others) {
    const held: string[] = await trx('memberships').where('user_id', userId).pluck('organization_id');
    await trx('memberships').where('user_id', other).whereNotIn('organization_id', held).update({ user_id: userId, updated_at: now });
    await trx('memberships').where('user_id', other).del();
    await trx('users').where('id', other).del();
  }
}

/**
 * Returns the signed-in user, creating it (or claiming its invitation) on the first call; the
 * creation is retried whole on a lock conflict (two first calls of one e-mail's invitation on two
 * Galera nodes meet at commit).
 */
export async function signInUser(knex: Knex, identity: SignIn, now = Date.now()): Promise<UserRecord> {
  const existing = await findUserByIdentity(knex, identity.issuer, identity.subject);
  if (existing) return existing;
  try {
    return await writeTransaction(knex, async (trx) => {
      const placeholder = identity.email ? await findPlaceholderByEmail(trx, identity.email) : undefined;
      if (placeholder) {
        const claimed = await trx('users')
          .where({ id: placeholder.id })
          .whereNull('issuer')
          .update({ issuer: identity.issuer, subject: identity.subject, name: identity.name ?? placeholder.name, updated_at: now });
        if (claimed === 1) {
          await foldRacedPlaceholders(trx, placeholder.id, placeholder.email as string, now);
          return (await findUserById(trx, placeholder.id)) as UserRecord;
        }
      }
      const user: UserRecord = { id: newId('usr'), ...identity, created_at: now, updated_at: now };
      await trx('users').insert(user);
      return user;
    });
  } catch (error) {
    // A concurrent first call of the same identity won the insert: use its row.
    const winner = await findUserByIdentity(knex, identity.issuer, identity.subject);
    if (winner) return winner;
    throw error;
  }
}

/** The oldest user who has signed in with this e-mail (case-insensitive), if any. */
export async function findSignedInUserByEmail(knex: Knex, email: string): Promise<UserRecord | undefined> {
  return normalise(
    await knex<UserRecord>('users')
      .whereNotNull('issuer')
      .whereRaw('LOWER(email) = LOWER(?)', [email])
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .first(),
  );
}

/** A placeholder for a person invited by e-mail who has not signed in yet; signInUser() claims it. */
export async function createPlaceholderUser(trx: Knex.Transaction, email: string, now: number): Promise<UserRecord> {
  const user: UserRecord = { id: newId('usr'), issuer: null, subject: null, email, name: null, created_at: now, updated_at: now };
  await trx('users').insert(user);
  return user;
}

/** Replaces the user's name and e-mail; answers the number of rows changed (0 or 1). */
export async function updateUserProfile(knex: Knex, id: string, profile: { name: string; email: string }, now: number): Promise<number> {
  return knex('users').where({ id }).update({ name: profile.name, email: profile.email, updated_at: now });
}
