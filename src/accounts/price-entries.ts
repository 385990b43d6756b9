// Price entry rules (openapi/management.yaml, "Price entries"): an entry's model text, currency and
// validity window must hold, and two entries of one organization with the same provider and model
// text may not be in force at the same instant. Every change first writes the organization's guard
// (src/storage/accounts/write-guard.ts), then checks against the entries it reads, so two writers
// of one organization cannot both pass the overlap check, through one database or through two
// nodes of a cluster. Each change records its audit event in the same transaction.
import type { Knex } from 'knex';
import { NotFoundError, RequestValidationError, type ValidationIssue } from '../errors.js';
import { isCurrencyCode, modelTextProblem, sameTarget, windowsOverlap } from '../pricing/price-entries.js';
import { newId } from '../storage/accounts/ids.js';
import { guardActiveOrganization } from '../storage/accounts/organizations.js';
import {
  findPriceEntry,
  insertPriceEntry,
  priceEntriesOf,
  softDeletePriceEntry,
  updatePriceEntryRow,
  type PriceEntryChanges,
  type PriceEntryRecord,
} from '../storage/accounts/price-entries.js';
import { toIso } from '../storage/time.js';
import { writeTransaction } from '../storage/transactions.js';
import { priceEntryFields } from './audit-fields.js';
import { recordChange } from './audit-trail.js';
import { ORGANIZATION_NOT_FOUND } from './organizations.js';

export const PRICE_ENTRY_NOT_FOUND = 'Price entry not found';

/** An entry's writable fields, parsed (times in epoch milliseconds). */
export type PriceEntryInput = Omit<PriceEntryRecord, 'id' | 'organization_id' | 'created_at' | 'updated_at'>;

const PRICE_FIELDS = ['input_price', 'output_price', 'cache_read_price', 'cache_creation_price', 'request_price'] as const;

/**
 * Prices to 15 significant digits: MariaDB returns doubles to 15 digits, so an entry reads back
 * as it was answered on every database (the same rounding as a computed cost's).
 */
function withRoundedPrices<T extends Partial<PriceEntryInput>>(fields: T): T {
  const rounded: Partial<PriceEntryInput> = { ...fields };
  for (const field of PRICE_FIELDS) {
    const value = fields[field];
    if (typeof value === 'number') rounded[field] = Number(value.toPrecision(15));
  }
  return rounded as T;
}

/** What is wrong with an entry's own fields, each at its field (the document's schema checked the rest). */
function problemsOf(entry: PriceEntryInput): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const modelProblem = modelTextProblem(entry.model);
  if (modelProblem !== undefined) issues.push({ loc: ['body', 'model'], msg: modelProblem, type: 'value_error' });
  if (!isCurrencyCode(entry.currency)) {
    issues.push({
      loc: ['body', 'currency'],
      msg: `currency must be an ISO 4217 alphabetic code such as USD or EUR; ${JSON.stringify(entry.currency)} is none`,
      type: 'value_error',
    });
  }
  if (entry.valid_from !== null && entry.valid_to !== null && entry.valid_to <= entry.valid_from) {
    issues.push({
      loc: ['body', 'valid_to'],
      msg: 'valid_to must be after valid_from (an entry is in force from valid_from, inclusive, to valid_to, exclusive)',
      type: 'value_error',
    });
  }
  return issues;
}

function windowText(entry: Pick<PriceEntryRecord, 'valid_from' | 'valid_to'>): string {
  return `${entry.valid_from === null ? 'since always' : `from ${toIso(entry.valid_from)}`}, ${
    entry.valid_to === null ? 'open-ended' : `until ${toIso(entry.valid_to)}`
  }`;
}

/** The 422 for an entry that would be in force beside another of the same provider and model text, or none. */
async function overlapProblem(trx: Knex.Transaction, organizationId: string, entry: PriceEntryInput, self?: string): Promise<void> {
  const other = (await priceEntriesOf(trx, organizationId)).find(
    (existing) => existing.id !== self && sameTarget(existing, entry) && windowsOverlap(existing, entry),
  );
  if (other === undefined) return;
  throw new RequestValidationError([
    {
      loc: ['body', 'valid_from'],
      msg:
        `the entry overlaps the price entry ${other.id} (provider ${other.provider ?? 'any'}, model ${other.model}, ${windowText(other)}): ` +
        'entries of one provider and model may not be in force at the same time; end one (valid_to) before the other starts (valid_from)',
      type: 'overlap',
    },
  ]);
}

/** Checks the entry's own fields, then (after the organization's guard) its overlap with the others. */
async function check(trx: Knex.Transaction, organizationId: string, entry: PriceEntryInput, self?: string): Promise<void> {
  const issues = problemsOf(entry);
  if (issues.length > 0) throw new RequestValidationError(issues);
  await overlapProblem(trx, organizationId, entry, self);
}

async function guardOrganization(trx: Knex.Transaction, organizationId: string): Promise<void> {
  if (!(await guardActiveOrganization(trx, organizationId))) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
}

async function existingEntry(trx: Knex.Transaction, organizationId: string, id: string): Promise<PriceEntryRecord> {
  const entry = await findPriceEntry(trx, organizationId, id);
  if (!entry) throw new NotFoundError(PRICE_ENTRY_NOT_FOUND);
  return entry;
}

export async function createPriceEntry(
  knex: Knex,
  organizationId: string,
  input: PriceEntryInput,
  now = Date.now(),
): Promise<PriceEntryRecord> {
  const entry: PriceEntryRecord = {
    id: newId('pe'),
    organization_id: organizationId,
    ...withRoundedPrices(input),
    created_at: now,
    updated_at: now,
  };
  await writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    await check(trx, organizationId, entry);
    await insertPriceEntry(trx, entry);
    await recordChange(trx, {
      organizationId,
      resourceType: 'price_entry',
      resourceId: entry.id,
      before: null,
      after: priceEntryFields(entry),
      at: now,
    });
  });
  return entry;
}

/** Changes the fields given (an absent field keeps its value); the entry that results is checked as a new one. */
export async function updatePriceEntry(
  knex: Knex,
  organizationId: string,
  id: string,
  changes: PriceEntryChanges,
  now = Date.now(),
): Promise<PriceEntryRecord> {
  const rounded = withRoundedPrices(changes);
  return writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const before = await existingEntry(trx, organizationId, id);
    const merged: PriceEntryRecord = { ...before, ...rounded };
    await check(trx, organizationId, merged, id);
    if ((await updatePriceEntryRow(trx, organizationId, id, rounded, now)) === 0) throw new NotFoundError(PRICE_ENTRY_NOT_FOUND);
    const after = await existingEntry(trx, organizationId, id);
    await recordChange(trx, {
      organizationId,
      resourceType: 'price_entry',
      resourceId: id,
      before: priceEntryFields(before),
      after: priceEntryFields(after),
      at: now,
    });
    return after;
  });
}

export async function deletePriceEntry(knex: Knex, organizationId: string, id: string, now = Date.now()): Promise<void> {
  await writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const before = await existingEntry(trx, organizationId, id);
    if ((await softDeletePriceEntry(trx, organizationId, id, now)) === 0) throw new NotFoundError(PRICE_ENTRY_NOT_FOUND);
    await recordChange(trx, {
      organizationId,
      resourceType: 'price_entry',
      resourceId: id,
      before: priceEntryFields(before),
      after: null,
      at: now,
    });
  });
}
