// Organizations: rows (addresses as JSON text), the caller's role in each, and the row lock that
// serialises the writes that must see a consistent organization (members, applications, delete).
import type { Knex } from 'knex';
import type { Role } from '../../permissions.js';
import { readKeysetList, type SortColumn } from '../keyset.js';
import { type ListPage, type WindowedListRequest } from '../paging.js';
import { writeGuard } from './write-guard.js';

export interface Address {
  street: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

export const EMPTY_ADDRESS: Address = { street: '', city: '', state: '', postal_code: '', country: '' };

export interface OrganizationRecord {
  id: string;
  name: string;
  contract_email: string;
  tax_id: string;
  address: Address;
  billing_address: Address;
  created_at: number;
  updated_at: number;
}

export interface OrganizationWithRole extends OrganizationRecord {
  role: Role;
}

interface OrganizationRow {
  id: string;
  name: string;
  contract_email: string;
  tax_id: string;
  address: string;
  billing_address: string;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = ['o.id', 'o.name', 'o.contract_email', 'o.tax_id', 'o.address', 'o.billing_address', 'o.created_at', 'o.updated_at'];

function parseAddress(text: string): Address {
  let stored: Partial<Address> = {};
  try {
    stored = JSON.parse(text) as Partial<Address>;
  } catch {
    // An unreadable stored address reads as empty rather than failing every read of the organization.
  }
  return { ...EMPTY_ADDRESS, ...stored };
}

function fromRow(row: OrganizationRow): OrganizationRecord {
  return {
    id: row.id,
    name: row.name,
    contract_email: row.contract_email,
    tax_id: row.tax_id,
    address: parseAddress(row.address),
    billing_address: parseAddress(row.billing_address),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

/** Inserts the organization and makes `ownerUserId` its owner. */
export async function insertOrganization(trx: Knex.Transaction, organization: OrganizationRecord, ownerUserId: string): Promise<void> {
  await trx('organizations').insert({
    ...organization,
    address: JSON.stringify(organization.address),
    billing_address: JSON.stringify(organization.billing_address),
  });
  await trx('memberships').insert({
    organization_id: organization.id,
    user_id: ownerUserId,
    role: 'owner',
    created_at: organization.created_at,
    updated_at: organization.created_at,
  });
}

export async function findActiveOrganization(knex: Knex, id: string): Promise<OrganizationRecord | undefined> {
  const row = await knex('organizations as o').where('o.id', id).whereNull('o.deleted_at').first(COLUMNS);
  return row ? fromRow(row as OrganizationRow) : undefined;
}

/**
 * Reads the active organization after writing its guard (write-guard.ts), so that writers of one
 * organization exclude each other on every node of a cluster: member and role changes, PATCH,
 * delete, and creating an application (which must not land in an organization being deleted).
 */
export async function guardActiveOrganization(trx: Knex.Transaction, id: string): Promise<OrganizationRecord | undefined> {
  if (!(await writeGuard(trx, 'organizations', id))) return undefined;
  const row = await trx('organizations as o').where('o.id', id).whereNull('o.deleted_at').first(COLUMNS);
  return row ? fromRow(row as OrganizationRow) : undefined;
}

/** The list order as a keyset: oldest first, ties by id (created_at is epoch milliseconds). */
export const ORGANIZATION_ORDER: SortColumn[] = [
  { column: 'o.created_at', order: 'asc', integer: true },
  { column: 'o.id', order: 'asc', integer: false },
];

/** The active organizations `userId` belongs to, with the user's role, oldest first. */
export async function listOrganizationsOfUser(
  knex: Knex,
  userId: string,
  page: WindowedListRequest,
): Promise<ListPage<OrganizationWithRole>> {
  const query = knex('organizations as o')
    .join('memberships as m', 'm.organization_id', 'o.id')
    .where('m.user_id', userId)
    .whereNull('m.deleted_at')
    .whereNull('o.deleted_at');
  return readKeysetList(
    knex,
    query,
    {
      columns: [...COLUMNS, 'm.role'],
      order: ORGANIZATION_ORDER,
      toItem: (row: OrganizationRow & { role: Role }) => ({ ...fromRow(row), role: row.role }),
      keyOf: (item) => [String(item.created_at), item.id],
    },
    page,
  );
}

export interface OrganizationChanges {
  name?: string;
  contract_email?: string;
  tax_id?: string;
  address?: Address;
  billing_address?: Address;
}

/** Writes the changed fields of an active organization; answers the number of rows changed (0 or 1). */
export async function updateOrganizationRow(trx: Knex.Transaction, id: string, changes: OrganizationChanges, now: number): Promise<number> {
  const { address, billing_address: billingAddress, ...plain } = changes;
  return trx('organizations')
    .where({ id })
    .whereNull('deleted_at')
    .update({
      ...plain,
      ...(address ? { address: JSON.stringify(address) } : {}),
      ...(billingAddress ? { billing_address: JSON.stringify(billingAddress) } : {}),
      updated_at: now,
    });
}

export async function softDeleteOrganization(trx: Knex.Transaction, id: string, now: number): Promise<number> {
  return trx('organizations').where({ id }).whereNull('deleted_at').update({ deleted_at: now, updated_at: now });
}
