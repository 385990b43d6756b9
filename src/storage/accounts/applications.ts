// Applications of organizations. Region and pricing plan are written once, at insert; deleting an
// application soft-deletes its API keys in the same transaction. A null retention_days follows
// the configured default (RETENTION_DEFAULT_DAYS); a null daily_span_quota is no quota.
import type { Knex } from 'knex';
import { readKeysetList, type SortColumn } from '../keyset.js';
import { totalOf, type ListPage, type WindowedListRequest } from '../paging.js';
import type { IndexedSlot } from '../spans/indexed-slots.js';
import { parseIndexedAttributes, readySlots, serializeIndexedAttributes, type IndexedAttributesState } from './indexed-attributes.js';
import { writeGuard } from './write-guard.js';

export type Region = 'US' | 'EU';
export type PricingPlan = 'free' | 'pro' | 'enterprise';

export interface ApplicationRecord {
  id: string;
  organization_id: string;
  name: string;
  region: Region;
  pricing_plan: PricingPlan;
  /** Null: the configured default applies. */
  retention_days: number | null;
  /** The indexed attribute slots (./indexed-attributes.ts). */
  indexed_attributes: IndexedAttributesState;
  /** Spans accepted per UTC day before ingestion is refused (docs/usage-and-quotas.md); null: no quota. */
  daily_span_quota: number | null;
  created_at: number;
  updated_at: number;
}

type ApplicationRow = Omit<ApplicationRecord, 'indexed_attributes'> & { indexed_attributes_state: string | null };

const COLUMNS = [
  'a.id',
  'a.organization_id',
  'a.name',
  'a.region',
  'a.pricing_plan',
  'a.retention_days',
  'a.indexed_attributes_state',
  'a.daily_span_quota',
  'a.created_at',
  'a.updated_at',
];

function fromRow(row: ApplicationRow): ApplicationRecord {
  const { indexed_attributes_state: state, ...rest } = row;
  return {
    ...rest,
    retention_days: row.retention_days === null ? null : Number(row.retention_days),
    indexed_attributes: parseIndexedAttributes(state),
    daily_span_quota: row.daily_span_quota === null || row.daily_span_quota === undefined ? null : Number(row.daily_span_quota),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

export async function insertApplication(trx: Knex.Transaction, application: ApplicationRecord): Promise<void> {
  const { indexed_attributes: state, ...rest } = application;
  await trx('applications').insert({ ...rest, indexed_attributes_state: serializeIndexedAttributes(state) });
}

function activeApplications(knex: Knex): Knex.QueryBuilder {
  return knex('applications as a')
    .join('organizations as o', 'o.id', 'a.organization_id')
    .whereNull('a.deleted_at')
    .whereNull('o.deleted_at');
}

export async function findActiveApplication(knex: Knex, id: string): Promise<ApplicationRecord | undefined> {
  const row = (await activeApplications(knex).where('a.id', id).first(COLUMNS)) as ApplicationRow | undefined;
  return row && fromRow(row);
}

/**
 * Reads the active application after writing its guard (write-guard.ts), so an API key cannot be
 * added to an application that a concurrent DELETE is removing, on any node of a cluster: one of
 * the two transactions waits for the other (one database) or fails certification and is retried
 * (Galera), and then sees the other's outcome.
 */
export async function guardActiveApplication(trx: Knex.Transaction, id: string): Promise<ApplicationRecord | undefined> {
  if (!(await writeGuard(trx, 'applications', id))) return undefined;
  const row = (await trx('applications as a').where('a.id', id).whereNull('a.deleted_at').first(COLUMNS)) as ApplicationRow | undefined;
  return row && fromRow(row);
}

/** The active application's indexed attribute state, its row locked for update until the transaction ends. */
export async function lockIndexedAttributes(trx: Knex.Transaction, id: string): Promise<IndexedAttributesState | undefined> {
  const row = (await trx('applications').where({ id }).whereNull('deleted_at').first('indexed_attributes_state').forUpdate()) as
    { indexed_attributes_state: string | null } | undefined;
  return row && parseIndexedAttributes(row.indexed_attributes_state);
}

export interface ApplicationFilter {
  /** Only applications of organizations this user is an active member of. */
  memberUserId?: string;
  organizationId?: string;
  applicationId?: string;
  region?: Region;
  pricingPlan?: PricingPlan;
}

/** The list order as a keyset: oldest first, ties by id (created_at is epoch milliseconds). */
export const APPLICATION_ORDER: SortColumn[] = [
  { column: 'a.created_at', order: 'asc', integer: true },
  { column: 'a.id', order: 'asc', integer: false },
];

export async function listApplications(
  knex: Knex,
  filter: ApplicationFilter,
  page: WindowedListRequest,
): Promise<ListPage<ApplicationRecord>> {
  const query = activeApplications(knex);
  if (filter.memberUserId !== undefined) {
    query.whereIn(
      'a.organization_id',
      knex('memberships').select('organization_id').where({ user_id: filter.memberUserId }).whereNull('deleted_at'),
    );
  }
  if (filter.organizationId !== undefined) query.where('a.organization_id', filter.organizationId);
  if (filter.applicationId !== undefined) query.where('a.id', filter.applicationId);
  if (filter.region !== undefined) query.where('a.region', filter.region);
  if (filter.pricingPlan !== undefined) query.where('a.pricing_plan', filter.pricingPlan);
  return readKeysetList(
    knex,
    query,
    {
      columns: COLUMNS,
      order: APPLICATION_ORDER,
      toItem: (row: ApplicationRow) => fromRow(row),
      keyOf: (item) => [String(item.created_at), item.id],
    },
    page,
  );
}

/** The ids and names of the organization's applications not deleted, in id order. */
export async function activeApplicationsOf(knex: Knex, organizationId: string): Promise<Array<{ id: string; name: string }>> {
  return (await knex('applications')
    .where({ organization_id: organizationId })
    .whereNull('deleted_at')
    .orderBy('id')
    .select('id', 'name')) as Array<{ id: string; name: string }>;
}

/** The organization's applications not deleted, in id order, with their indexed attribute slots. */
export async function activeIndexedAttributesOf(
  knex: Knex,
  organizationId: string,
): Promise<Array<{ id: string; indexedAttributes: IndexedAttributesState }>> {
  const rows = (await knex('applications')
    .where({ organization_id: organizationId })
    .whereNull('deleted_at')
    .orderBy('id')
    .select('id', 'indexed_attributes_state')) as Array<{ id: string; indexed_attributes_state: string | null }>;
  return rows.map((row) => ({ id: row.id, indexedAttributes: parseIndexedAttributes(row.indexed_attributes_state) }));
}

/** Every application that has ready indexed attribute slots (deleted ones too: their spans stay until purged), with them; for the migrations that fill a structure per slot. */
export async function readySlotsOfApplications(knex: Knex): Promise<Array<{ id: string; slots: IndexedSlot[] }>> {
  const rows = (await knex('applications').whereNotNull('indexed_attributes_state').select('id', 'indexed_attributes_state')) as Array<{
    id: string;
    indexed_attributes_state: string;
  }>;
  return rows.map((row) => ({ id: row.id, slots: readySlots(parseIndexedAttributes(row.indexed_attributes_state)) }));
}

/** The ids of the organization's applications not deleted, in id order. */
export async function activeApplicationIds(knex: Knex, organizationId: string): Promise<string[]> {
  return (await activeApplicationsOf(knex, organizationId)).map((row) => row.id);
}

export async function countActiveApplications(knex: Knex, organizationId: string): Promise<number> {
  return totalOf(knex('applications').where({ organization_id: organizationId }).whereNull('deleted_at'));
}

/** The mutable fields; an absent one keeps its stored value. */
export interface ApplicationChanges {
  name?: string;
  retention_days?: number;
  indexed_attributes?: IndexedAttributesState;
  /** Null removes the quota. */
  daily_span_quota?: number | null;
}

export async function updateApplicationRow(trx: Knex.Transaction, id: string, changes: ApplicationChanges, now: number): Promise<number> {
  const { indexed_attributes: state, ...rest } = changes;
  // An absent field keeps its value: undefined entries are left out of the UPDATE.
  const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  const columns = state === undefined ? defined : { ...defined, indexed_attributes_state: serializeIndexedAttributes(state) };
  return trx('applications')
    .where({ id })
    .whereNull('deleted_at')
    .update({ ...columns, updated_at: now });
}

/** One application's retention, for the purger: deleted ones (or of a deleted organization) keep nothing. */
export interface RetentionTarget {
  id: string;
  retention_days: number | null;
  deleted: boolean;
}

export async function listRetentionTargets(knex: Knex): Promise<RetentionTarget[]> {
  const rows = (await knex('applications as a')
    .join('organizations as o', 'o.id', 'a.organization_id')
    .select('a.id', 'a.retention_days')
    .select(knex.raw('CASE WHEN a.deleted_at IS NULL AND o.deleted_at IS NULL THEN 0 ELSE 1 END AS deleted'))
    .orderBy('a.id')) as Array<{ id: string; retention_days: number | string | null; deleted: number | string }>;
  return rows.map((row) => ({
    id: row.id,
    retention_days: row.retention_days === null ? null : Number(row.retention_days),
    deleted: Number(row.deleted) === 1,
  }));
}

/** Soft-deletes the application and every active key of it; answers 0 when it was already gone. */
export async function softDeleteApplicationWithKeys(trx: Knex.Transaction, id: string, now: number): Promise<number> {
  const deleted = await trx('applications').where({ id }).whereNull('deleted_at').update({ deleted_at: now, updated_at: now });
  if (deleted === 0) return 0;
  await trx('api_keys').where({ application_id: id }).whereNull('deleted_at').update({ deleted_at: now, updated_at: now });
  return deleted;
}
