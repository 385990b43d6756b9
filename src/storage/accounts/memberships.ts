// Memberships of users in organizations. A membership whose user is an invitation placeholder
// (no issuer yet) is `invited`; removal is soft, and adding the person again revives the row.
import type { Knex } from 'knex';
import type { Role } from '../../permissions.js';
import { readKeysetList, type SortColumn } from '../keyset.js';
import { totalOf, type ListPage, type WindowedListRequest } from '../paging.js';

export type MemberStatus = 'active' | 'invited';

export interface MemberRecord {
  userId: string;
  email: string | null;
  name: string | null;
  role: Role;
  status: MemberStatus;
  createdAt: number;
}

interface MemberRow {
  user_id: string;
  email: string | null;
  name: string | null;
  role: Role;
  issuer: string | null;
  created_at: number | string;
}

const COLUMNS = ['m.user_id', 'u.email', 'u.name', 'm.role', 'u.issuer', 'm.created_at'];

function fromRow(row: MemberRow): MemberRecord {
  return {
    userId: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.issuer === null ? 'invited' : 'active',
    createdAt: Number(row.created_at),
  };
}

function activeMemberships(knex: Knex, organizationId: string): Knex.QueryBuilder {
  return knex('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.organization_id', organizationId)
    .whereNull('m.deleted_at');
}

/** The list order as a keyset: oldest first, ties by id (created_at is epoch milliseconds). */
export const MEMBER_ORDER: SortColumn[] = [
  { column: 'm.created_at', order: 'asc', integer: true },
  { column: 'm.user_id', order: 'asc', integer: false },
];

export async function listMembers(knex: Knex, organizationId: string, page: WindowedListRequest): Promise<ListPage<MemberRecord>> {
  const query = activeMemberships(knex, organizationId);
  return readKeysetList<MemberRow, MemberRecord>(
    knex,
    query,
    { columns: COLUMNS, order: MEMBER_ORDER, toItem: fromRow, keyOf: (item) => [String(item.createdAt), item.userId] },
    page,
  );
}

export async function findMember(knex: Knex, organizationId: string, userId: string): Promise<MemberRecord | undefined> {
  const row = (await activeMemberships(knex, organizationId).where('m.user_id', userId).first(COLUMNS)) as MemberRow | undefined;
  return row ? fromRow(row) : undefined;
}

/** Whether some active membership of the organization belongs to a user with this e-mail (case-insensitive). */
export async function hasMemberWithEmail(knex: Knex, organizationId: string, email: string): Promise<boolean> {
  const row = await activeMemberships(knex, organizationId).whereRaw('LOWER(u.email) = LOWER(?)', [email]).first('m.user_id');
  return row !== undefined;
}

/** Makes `userId` a member with `role`, reviving a removed membership of the same user. */
export async function addMembership(trx: Knex.Transaction, organizationId: string, userId: string, role: Role, now: number): Promise<void> {
  const revived = await trx('memberships')
    .where({ organization_id: organizationId, user_id: userId })
    .whereNotNull('deleted_at')
    .update({ role, created_at: now, updated_at: now, deleted_at: null });
  if (revived === 0) {
    await trx('memberships').insert({ organization_id: organizationId, user_id: userId, role, created_at: now, updated_at: now });
  }
}

export async function updateMembershipRole(
  trx: Knex.Transaction,
  organizationId: string,
  userId: string,
  role: Role,
  now: number,
): Promise<number> {
  return trx('memberships')
    .where({ organization_id: organizationId, user_id: userId })
    .whereNull('deleted_at')
    .update({ role, updated_at: now });
}

export async function softDeleteMembership(trx: Knex.Transaction, organizationId: string, userId: string, now: number): Promise<number> {
  return trx('memberships')
    .where({ organization_id: organizationId, user_id: userId })
    .whereNull('deleted_at')
    .update({ deleted_at: now, updated_at: now });
}

/** Whether the user still belongs to some organization that exists (a deleted organization's memberships stay). */
export async function hasActiveMembership(knex: Knex, userId: string): Promise<boolean> {
  const row = await knex('memberships as m')
    .join('organizations as o', 'o.id', 'm.organization_id')
    .where('m.user_id', userId)
    .whereNull('m.deleted_at')
    .whereNull('o.deleted_at')
    .first('m.organization_id');
  return row !== undefined;
}

/** Owners who have signed in (invited owners cannot act for the organization yet, so they do not count). */
export async function countActiveOwners(knex: Knex, organizationId: string): Promise<number> {
  return totalOf(activeMemberships(knex, organizationId).where('m.role', 'owner').whereNotNull('u.issuer'));
}
