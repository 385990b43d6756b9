// Lookups the authorization step needs: which organization a resource belongs to, and the
// caller's role there. Deleted things do not exist for these reads.
import type { Knex } from 'knex';
import type { Role } from '../../permissions.js';
import { parseIndexedAttributes, type IndexedAttributesState } from './indexed-attributes.js';

export interface OwnedResource {
  organizationId: string;
  applicationId?: string;
  /** An application's indexed attribute slots, read with it (no second read to use them). */
  indexedAttributes?: IndexedAttributesState;
  /** When indexedAttributes was read (epoch milliseconds). */
  readAt?: number;
  /** An application's daily span quota (null: none), read with it (docs/usage-and-quotas.md). */
  dailySpanQuota?: number | null;
}

/** A `daily_span_quota` column as read: a number, or null for none. */
export function quotaOf(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

export async function activeOrganization(knex: Knex, organizationId: string): Promise<OwnedResource | undefined> {
  const row = await knex('organizations').where({ id: organizationId }).whereNull('deleted_at').first('id');
  return row ? { organizationId: row.id } : undefined;
}

export async function activeApplication(knex: Knex, applicationId: string): Promise<OwnedResource | undefined> {
  const row = await knex('applications as a')
    .join('organizations as o', 'o.id', 'a.organization_id')
    .where('a.id', applicationId)
    .whereNull('a.deleted_at')
    .whereNull('o.deleted_at')
    .first('a.id', 'a.organization_id', 'a.indexed_attributes_state', 'a.daily_span_quota');
  if (!row) return undefined;
  return {
    organizationId: row.organization_id,
    applicationId: row.id,
    indexedAttributes: parseIndexedAttributes(row.indexed_attributes_state),
    readAt: Date.now(),
    dailySpanQuota: quotaOf(row.daily_span_quota),
  };
}

/** The active application's indexed attribute slots (undefined when it is gone). */
export async function activeIndexedAttributes(knex: Knex, applicationId: string): Promise<IndexedAttributesState | undefined> {
  return (await activeApplication(knex, applicationId))?.indexedAttributes;
}

/** The key as `k`, its application as `a`, its organization as `o`: only when none is deleted. */
export function activeApiKey(knex: Knex, apiKey: string): Knex.QueryBuilder {
  return knex('api_keys as k')
    .join('applications as a', 'a.id', 'k.application_id')
    .join('organizations as o', 'o.id', 'a.organization_id')
    .where('k.id', apiKey)
    .whereNull('k.deleted_at')
    .whereNull('a.deleted_at')
    .whereNull('o.deleted_at');
}

export async function activeApiKeyOwner(knex: Knex, apiKey: string): Promise<OwnedResource | undefined> {
  const row = await activeApiKey(knex, apiKey).first('a.id', 'a.organization_id');
  return row ? { organizationId: row.organization_id, applicationId: row.id } : undefined;
}

export async function membershipRole(knex: Knex, organizationId: string, userId: string): Promise<Role | undefined> {
  const row = await knex('memberships').where({ organization_id: organizationId, user_id: userId }).whereNull('deleted_at').first('role');
  return row?.role as Role | undefined;
}
