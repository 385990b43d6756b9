// Membership rules: owners add people by e-mail (an unknown e-mail gets an invitation placeholder
// that binds at first sign-in), change roles and remove members; an organization always keeps at
// least one owner who has signed in. Every change first writes the organization's guard
// (src/storage/accounts/write-guard.ts), so two owners demoting each other at once cannot both
// succeed, through one database or through two nodes of a cluster. Removing someone's last
// membership ends their dashboard sessions in the same transaction (docs/dashboard.md, "Signing in").
import type { Knex } from 'knex';
import { ConflictError, NotFoundError } from '../errors.js';
import {
  addMembership,
  countActiveOwners,
  findMember,
  hasActiveMembership,
  hasMemberWithEmail,
  softDeleteMembership,
  updateMembershipRole,
  type MemberRecord,
} from '../storage/accounts/memberships.js';
import { guardActiveOrganization } from '../storage/accounts/organizations.js';
import { writeTransaction } from '../storage/transactions.js';
import { deleteUserDashboardSessions } from '../storage/accounts/dashboard-sessions.js';
import { createPlaceholderUser, findPlaceholderByEmail, findSignedInUserByEmail } from '../storage/accounts/users.js';
import { ORGANIZATION_NOT_FOUND } from './organizations.js';
import type { Role } from '../permissions.js';
import { memberFields } from './audit-fields.js';
import { recordChange } from './audit-trail.js';

export const MEMBER_NOT_FOUND = 'Member not found';

async function guardOrganization(trx: Knex.Transaction, organizationId: string): Promise<void> {
  if (!(await guardActiveOrganization(trx, organizationId))) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
}

async function existingMember(trx: Knex.Transaction, organizationId: string, userId: string): Promise<MemberRecord> {
  const member = await findMember(trx, organizationId, userId);
  if (!member) throw new NotFoundError(MEMBER_NOT_FOUND);
  return member;
}

async function isLastOwner(trx: Knex.Transaction, organizationId: string, member: MemberRecord): Promise<boolean> {
  return member.role === 'owner' && member.status === 'active' && (await countActiveOwners(trx, organizationId)) <= 1;
}

export async function addMember(knex: Knex, organizationId: string, email: string, role: Role, now = Date.now()): Promise<MemberRecord> {
  return writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    if (await hasMemberWithEmail(trx, organizationId, email)) throw new ConflictError('User is already a member of this organization');
    // A signed-in user with the e-mail wins; otherwise one placeholder per e-mail serves every invitation.
    const user =
      (await findSignedInUserByEmail(trx, email)) ??
      (await findPlaceholderByEmail(trx, email)) ??
      (await createPlaceholderUser(trx, email, now));
    await addMembership(trx, organizationId, user.id, role, now);
    const added = await existingMember(trx, organizationId, user.id);
    await recordChange(trx, {
      organizationId,
      resourceType: 'member',
      resourceId: user.id,
      before: null,
      after: memberFields(added),
      at: now,
    });
    return added;
  });
}

export async function changeMemberRole(
  knex: Knex,
  organizationId: string,
  userId: string,
  role: Role,
  now = Date.now(),
): Promise<MemberRecord> {
  return writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const member = await existingMember(trx, organizationId, userId);
    if (member.role === role) {
      // Nothing changes, yet the write is recorded: one event per successful write.
      await recordChange(trx, {
        organizationId,
        resourceType: 'member',
        resourceId: userId,
        before: memberFields(member),
        after: memberFields(member),
        at: now,
      });
      return member;
    }
    if (role !== 'owner' && (await isLastOwner(trx, organizationId, member))) {
      throw new ConflictError('The last owner of an organization cannot be demoted; make another member an owner first');
    }
    await updateMembershipRole(trx, organizationId, userId, role, now);
    const changed = await existingMember(trx, organizationId, userId);
    await recordChange(trx, {
      organizationId,
      resourceType: 'member',
      resourceId: userId,
      before: memberFields(member),
      after: memberFields(changed),
      at: now,
    });
    return changed;
  });
}

export async function removeMember(
  knex: Knex,
  organizationId: string,
  userId: string,
  now = Date.now(),
): Promise<{ userId: string; deletedAt: number }> {
  return writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const member = await existingMember(trx, organizationId, userId);
    if (await isLastOwner(trx, organizationId, member)) {
      throw new ConflictError('The last owner of an organization cannot be removed; make another member an owner first');
    }
    if ((await softDeleteMembership(trx, organizationId, userId, now)) === 0) throw new NotFoundError(MEMBER_NOT_FOUND);
    if (!(await hasActiveMembership(trx, userId))) await deleteUserDashboardSessions(trx, userId);
    await recordChange(trx, {
      organizationId,
      resourceType: 'member',
      resourceId: userId,
      before: memberFields(member),
      after: null,
      at: now,
    });
    return { userId, deletedAt: now };
  });
}
