// Budget rules (openapi/management.yaml, "Budgets"): a name that is not blank, a currency the
// runtime knows, thresholds kept ascending, an application of the organization (another
// organization's is answered as one that does not exist), and an amount kept to 15 significant
// digits. A change of what the budget measures (period, currency, application) forgets its
// crossings; deleting it deletes them. Every change writes the organization's guard first and
// records its audit event in the same transaction.
import type { Knex } from 'knex';
import { NotFoundError, RequestValidationError, type ValidationIssue } from '../errors.js';
import { isCurrencyCode } from '../pricing/price-entries.js';
import { activeApplicationIds } from '../storage/accounts/applications.js';
import { newId } from '../storage/accounts/ids.js';
import { guardActiveOrganization } from '../storage/accounts/organizations.js';
import { deleteCrossings } from '../storage/budgets/budget-crossings.js';
import {
  findBudget,
  insertBudget,
  softDeleteBudget,
  updateBudgetRow,
  type BudgetChanges,
  type BudgetRecord,
} from '../storage/budgets/budgets.js';
import { writeTransaction } from '../storage/transactions.js';
import { budgetFields } from './audit-fields.js';
import { recordChange } from './audit-trail.js';
import { ORGANIZATION_NOT_FOUND } from './organizations.js';

export const BUDGET_NOT_FOUND = 'Budget not found';

export const DEFAULT_THRESHOLDS: readonly number[] = [50, 80, 100];

/** A budget's writable fields. */
export type BudgetInput = Omit<BudgetRecord, 'id' | 'organization_id' | 'created_at' | 'updated_at'>;

/** The fields that say which spend a budget measures: a change of one forgets its crossings. */
const MEASURE_FIELDS = ['period', 'currency', 'application_id'] as const;

/** Amounts to 15 significant digits (MariaDB answers doubles to 15), thresholds ascending. */
function normalized<T extends BudgetChanges>(fields: T): T {
  const out: BudgetChanges = { ...fields };
  if (fields.amount !== undefined) out.amount = Number(fields.amount.toPrecision(15));
  if (fields.thresholds !== undefined) out.thresholds = [...fields.thresholds].sort((a, b) => a - b);
  return out as T;
}

/** What is wrong with the budget's own fields, each at its field (the document's schema checked the rest). */
async function problemsOf(trx: Knex.Transaction, organizationId: string, budget: BudgetInput): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  if (budget.name.trim() === '') issues.push({ loc: ['body', 'name'], msg: 'name must not be blank', type: 'value_error' });
  if (!isCurrencyCode(budget.currency))
    issues.push({
      loc: ['body', 'currency'],
      msg: `currency must be an ISO 4217 alphabetic code such as USD or EUR; ${JSON.stringify(budget.currency)} is none`,
      type: 'value_error',
    });
  if (budget.application_id !== null && !(await activeApplicationIds(trx, organizationId)).includes(budget.application_id))
    issues.push({
      loc: ['body', 'application_id'],
      msg: `the organization has no application ${budget.application_id}: name one of its applications, or null for the whole organization`,
      type: 'value_error',
    });
  return issues;
}

async function check(trx: Knex.Transaction, organizationId: string, budget: BudgetInput): Promise<void> {
  const issues = await problemsOf(trx, organizationId, budget);
  if (issues.length > 0) throw new RequestValidationError(issues);
}

async function guardOrganization(trx: Knex.Transaction, organizationId: string): Promise<void> {
  if (!(await guardActiveOrganization(trx, organizationId))) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
}

async function existingBudget(trx: Knex.Transaction, organizationId: string, id: string): Promise<BudgetRecord> {
  const budget = await findBudget(trx, organizationId, id);
  if (!budget) throw new NotFoundError(BUDGET_NOT_FOUND);
  return budget;
}

export async function createBudget(knex: Knex, organizationId: string, input: BudgetInput, now = Date.now()): Promise<BudgetRecord> {
  const budget: BudgetRecord = {
    id: newId('bud'),
    organization_id: organizationId,
    ...normalized(input),
    created_at: now,
    updated_at: now,
  };
  await writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    await check(trx, organizationId, budget);
    await insertBudget(trx, budget);
    await recordChange(trx, {
      organizationId,
      resourceType: 'budget',
      resourceId: budget.id,
      before: null,
      after: budgetFields(budget),
      at: now,
    });
  });
  return budget;
}

/** Changes the fields given (an absent field keeps its value); the budget that results is checked as a new one. */
export async function updateBudget(
  knex: Knex,
  organizationId: string,
  id: string,
  changes: BudgetChanges,
  now = Date.now(),
): Promise<BudgetRecord> {
  const written = normalized(changes);
  return writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const before = await existingBudget(trx, organizationId, id);
    await check(trx, organizationId, { ...before, ...written });
    if ((await updateBudgetRow(trx, organizationId, id, written, now)) === 0) throw new NotFoundError(BUDGET_NOT_FOUND);
    const after = await existingBudget(trx, organizationId, id);
    if (MEASURE_FIELDS.some((field) => before[field] !== after[field])) await deleteCrossings(trx, id);
    await recordChange(trx, {
      organizationId,
      resourceType: 'budget',
      resourceId: id,
      before: budgetFields(before),
      after: budgetFields(after),
      at: now,
    });
    return after;
  });
}

export async function deleteBudget(knex: Knex, organizationId: string, id: string, now = Date.now()): Promise<void> {
  await writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const before = await existingBudget(trx, organizationId, id);
    if ((await softDeleteBudget(trx, organizationId, id, now)) === 0) throw new NotFoundError(BUDGET_NOT_FOUND);
    await deleteCrossings(trx, id);
    await recordChange(trx, {
      organizationId,
      resourceType: 'budget',
      resourceId: id,
      before: budgetFields(before),
      after: null,
      at: now,
    });
  });
}
