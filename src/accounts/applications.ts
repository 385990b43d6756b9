// Application rules: created in an active organization; only the name, the retention, the
// indexed attributes and the daily span quota change afterwards; deleting one deletes its API keys in the same
// transaction (their tokens die at once).
import type { Knex } from 'knex';
import { NotFoundError } from '../errors.js';
import {
  findActiveApplication,
  insertApplication,
  lockIndexedAttributes,
  softDeleteApplicationWithKeys,
  updateApplicationRow,
  type ApplicationChanges,
  type ApplicationRecord,
  type PricingPlan,
  type Region,
} from '../storage/accounts/applications.js';
import { initialIndexedAttributes, withPaths } from '../storage/accounts/indexed-attributes.js';
import { guardActiveOrganization } from '../storage/accounts/organizations.js';
import { writeTransaction } from '../storage/transactions.js';
import { newId } from '../storage/accounts/ids.js';
import { ORGANIZATION_NOT_FOUND } from './organizations.js';
import { lockApplicationRow } from '../storage/accounts/audit-subjects.js';
import { applicationFields } from './audit-fields.js';
import { recordChange } from './audit-trail.js';

export const APPLICATION_NOT_FOUND = 'Application not found';

export interface NewApplication {
  organizationId: string;
  name: string;
  region: Region;
  pricingPlan: PricingPlan;
  /** Absent: the application follows the configured default. */
  retentionDays?: number;
  /** Attribute paths to index (validated by the document: at most 3, distinct). */
  indexedAttributes?: string[];
  /** Absent or null: no quota. */
  dailySpanQuota?: number | null;
}

/** What PATCH may change; an absent field keeps its value. */
export interface ApplicationUpdate {
  name?: string;
  retentionDays?: number;
  indexedAttributes?: string[];
  /** Null removes the quota. */
  dailySpanQuota?: number | null;
}

export async function createApplication(knex: Knex, input: NewApplication, now = Date.now()): Promise<ApplicationRecord> {
  const application: ApplicationRecord = {
    id: newId('app'),
    organization_id: input.organizationId,
    name: input.name,
    region: input.region,
    pricing_plan: input.pricingPlan,
    retention_days: input.retentionDays ?? null,
    indexed_attributes: initialIndexedAttributes(input.indexedAttributes ?? [], now),
    daily_span_quota: input.dailySpanQuota ?? null,
    created_at: now,
    updated_at: now,
  };
  await writeTransaction(knex, async (trx) => {
    // Shared lock: a concurrent DELETE of the organization waits for this insert, then sees it.
    if (!(await guardActiveOrganization(trx, input.organizationId))) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
    await insertApplication(trx, application);
    await recordChange(trx, {
      organizationId: input.organizationId,
      resourceType: 'application',
      resourceId: application.id,
      before: null,
      after: applicationFields(application),
      at: now,
    });
  });
  return application;
}

export async function updateApplication(knex: Knex, id: string, update: ApplicationUpdate, now = Date.now()): Promise<ApplicationRecord> {
  return writeTransaction(knex, async (trx) => {
    // Locked first, so that the event's "before" is what this change overwrites.
    const before = (await lockApplicationRow(trx, id)) ? await findActiveApplication(trx, id) : undefined;
    if (!before) throw new NotFoundError(APPLICATION_NOT_FOUND);
    const changes: ApplicationChanges = {
      name: update.name,
      retention_days: update.retentionDays,
      daily_span_quota: update.dailySpanQuota,
    };
    if (update.indexedAttributes !== undefined) {
      // Locked: a concurrent PATCH or backfill step cannot interleave its own state change.
      const current = await lockIndexedAttributes(trx, id);
      if (!current) throw new NotFoundError(APPLICATION_NOT_FOUND);
      changes.indexed_attributes = withPaths(current, update.indexedAttributes, now);
    }
    if ((await updateApplicationRow(trx, id, changes, now)) === 0) throw new NotFoundError(APPLICATION_NOT_FOUND);
    const updated = await findActiveApplication(trx, id);
    if (!updated) throw new NotFoundError(APPLICATION_NOT_FOUND);
    await recordChange(trx, {
      organizationId: updated.organization_id,
      resourceType: 'application',
      resourceId: id,
      before: applicationFields(before),
      after: applicationFields(updated),
      at: now,
    });
    return updated;
  });
}

export async function deleteApplication(knex: Knex, id: string, now = Date.now()): Promise<{ id: string; deletedAt: number }> {
  return writeTransaction(knex, async (trx) => {
    const before = (await lockApplicationRow(trx, id)) ? await findActiveApplication(trx, id) : undefined;
    if (!before) throw new NotFoundError(APPLICATION_NOT_FOUND);
    if ((await softDeleteApplicationWithKeys(trx, id, now)) === 0) throw new NotFoundError(APPLICATION_NOT_FOUND);
    // One event for the application; its keys, deleted with it, are part of this change.
    await recordChange(trx, {
      organizationId: before.organization_id,
      resourceType: 'application',
      resourceId: id,
      before: applicationFields(before),
      after: null,
      at: now,
    });
    return { id, deletedAt: now };
  });
}
