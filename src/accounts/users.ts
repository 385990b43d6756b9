// A user's own profile: PATCH /users changes the name and e-mail, in one transaction with its
// audit event. A profile belongs to no organization, so its event has none (docs/audit-log.md).
import type { Knex } from 'knex';
import { lockUserProfile } from '../storage/accounts/audit-subjects.js';
import { updateUserProfile } from '../storage/accounts/users.js';
import { writeTransaction } from '../storage/transactions.js';
import { recordChange } from './audit-trail.js';

/** False when the user has no row (authentication made it for the request: a bug, not a 404). */
export async function updateProfile(
  knex: Knex,
  userId: string,
  profile: { name: string; email: string },
  now = Date.now(),
): Promise<boolean> {
  return writeTransaction(knex, async (trx) => {
    const before = await lockUserProfile(trx, userId);
    if (!before || (await updateUserProfile(trx, userId, profile, now)) === 0) return false;
    await recordChange(trx, {
      organizationId: null,
      resourceType: 'user',
      resourceId: userId,
      before,
      after: { name: profile.name, email: profile.email },
      at: now,
    });
    return true;
  });
}
