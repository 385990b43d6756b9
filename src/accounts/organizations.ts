// Organization rules: the creator becomes the owner; PATCH changes only the fields sent and merges
// addresses field by field; an organization with active applications cannot be deleted.
import type { Knex } from 'knex';
import { MalformedRequestError, NotFoundError } from '../errors.js';
import { countActiveApplications } from '../storage/accounts/applications.js';
import {
  EMPTY_ADDRESS,
  insertOrganization,
  guardActiveOrganization,
  softDeleteOrganization,
  updateOrganizationRow,
  type Address,
  type OrganizationChanges,
  type OrganizationRecord,
} from '../storage/accounts/organizations.js';
import { writeTransaction } from '../storage/transactions.js';
import { newId } from '../storage/accounts/ids.js';
import { organizationFields } from './audit-fields.js';
import { recordChange } from './audit-trail.js';

export const ORGANIZATION_NOT_FOUND = 'Organization not found';

export interface OrganizationPatch {
  name?: string;
  contract_email?: string;
  tax_id?: string;
  address?: Partial<Address>;
  billing_address?: Partial<Address>;
}

export async function createOrganization(knex: Knex, ownerUserId: string, name: string, now = Date.now()): Promise<OrganizationRecord> {
  const organization: OrganizationRecord = {
    id: newId('org'),
    name,
    contract_email: '',
    tax_id: '',
    address: { ...EMPTY_ADDRESS },
    billing_address: { ...EMPTY_ADDRESS },
    created_at: now,
    updated_at: now,
  };
  await writeTransaction(knex, async (trx) => {
    await insertOrganization(trx, organization, ownerUserId);
    await recordChange(trx, {
      organizationId: organization.id,
      resourceType: 'organization',
      resourceId: organization.id,
      before: null,
      after: organizationFields(organization),
      at: now,
    });
  });
  return organization;
}

function mergeAddress(stored: Address, patch: Partial<Address> | undefined): Address | undefined {
  if (patch === undefined) return undefined;
  const sent = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  return { ...stored, ...sent };
}

/** Applies the patch under a row lock, so two PATCHes of different address fields both survive. */
export async function updateOrganization(
  knex: Knex,
  id: string,
  patch: OrganizationPatch,
  now = Date.now(),
): Promise<{ id: string; updatedAt: number }> {
  return writeTransaction(knex, async (trx) => {
    const stored = await guardActiveOrganization(trx, id);
    if (!stored) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
    const changes: OrganizationChanges = {
      name: patch.name,
      contract_email: patch.contract_email,
      tax_id: patch.tax_id,
      address: mergeAddress(stored.address, patch.address),
      billing_address: mergeAddress(stored.billing_address, patch.billing_address),
    };
    const sent = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as OrganizationChanges;
    if ((await updateOrganizationRow(trx, id, sent, now)) === 0) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
    await recordChange(trx, {
      organizationId: id,
      resourceType: 'organization',
      resourceId: id,
      before: organizationFields(stored),
      after: organizationFields({ ...stored, ...sent }),
      at: now,
    });
    return { id, updatedAt: now };
  });
}

/**
 * Soft-deletes the organization. The row lock makes it exclude a concurrent application create
 * (which holds a shared lock on the same row), so no application can outlive its organization.
 */
export async function deleteOrganization(knex: Knex, id: string, now = Date.now()): Promise<{ id: string; deletedAt: number }> {
  return writeTransaction(knex, async (trx) => {
    const stored = await guardActiveOrganization(trx, id);
    if (!stored) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
    if ((await countActiveApplications(trx, id)) > 0) {
      throw new MalformedRequestError('Organization still has active applications; delete them first');
    }
    if ((await softDeleteOrganization(trx, id, now)) === 0) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
    await recordChange(trx, {
      organizationId: id,
      resourceType: 'organization',
      resourceId: id,
      before: organizationFields(stored),
      after: null,
      at: now,
    });
    return { id, deletedAt: now };
  });
}
