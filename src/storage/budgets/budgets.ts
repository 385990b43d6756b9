// The budgets table: an organization's budgets (README.md beside this file), their list, the
// evaluator's read of every enabled one, and the writes. Deletion is soft; a budget's crossings
// are deleted with it (budget-crossings.ts).
import type { Knex } from 'knex';
import { readKeysetList, type SortColumn } from '../keyset.js';
import type { ListPage, WindowedListRequest } from '../paging.js';
import type { BudgetPeriodKind } from './budget-periods.js';

export interface BudgetRecord {
  id: string;
  organization_id: string;
  name: string;
  /** Null: every application of the organization. */
  application_id: string | null;
  amount: number;
  currency: string;
  period: BudgetPeriodKind;
  /** Whole percents, ascending. */
  thresholds: number[];
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

/** What an update may change. */
export type BudgetChanges = Partial<
  Pick<BudgetRecord, 'name' | 'application_id' | 'amount' | 'currency' | 'period' | 'thresholds' | 'enabled'>
>;

interface Row {
  id: string;
  organization_id: string;
  name: string;
  application_id: string | null;
  amount: number | string;
  currency: string;
  period: string;
  thresholds: string;
  enabled: number | boolean | string;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = [
  'b.id',
  'b.organization_id',
  'b.name',
  'b.application_id',
  'b.amount',
  'b.currency',
  'b.period',
  'b.thresholds',
  'b.enabled',
  'b.created_at',
  'b.updated_at',
];

function fromRow(row: Row): BudgetRecord {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    application_id: row.application_id,
    amount: Number(row.amount),
    currency: row.currency,
    period: row.period as BudgetPeriodKind,
    thresholds: JSON.parse(row.thresholds) as number[],
    enabled: Number(row.enabled) === 1 || row.enabled === true,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

function toColumns(changes: BudgetChanges): Record<string, unknown> {
  const { thresholds, enabled, ...rest } = changes;
  return {
    ...rest,
    ...(thresholds === undefined ? {} : { thresholds: JSON.stringify(thresholds) }),
    ...(enabled === undefined ? {} : { enabled: enabled ? 1 : 0 }),
  };
}

function activeBudgets(knex: Knex, organizationId: string): Knex.QueryBuilder {
  return knex('budgets as b').where('b.organization_id', organizationId).whereNull('b.deleted_at');
}

/** The list order as a keyset: oldest first, ties by id. */
export const BUDGET_ORDER: SortColumn[] = [
  { column: 'b.created_at', order: 'asc', integer: true },
  { column: 'b.id', order: 'asc', integer: false },
];

export async function listBudgets(knex: Knex, organizationId: string, page: WindowedListRequest): Promise<ListPage<BudgetRecord>> {
  return readKeysetList<Row, BudgetRecord>(
    knex,
    activeBudgets(knex, organizationId),
    { columns: COLUMNS, order: BUDGET_ORDER, toItem: fromRow, keyOf: (item) => [String(item.created_at), item.id] },
    page,
  );
}

export async function findBudget(knex: Knex, organizationId: string, id: string): Promise<BudgetRecord | undefined> {
  const row = (await activeBudgets(knex, organizationId).where('b.id', id).first(COLUMNS)) as Row | undefined;
  return row ? fromRow(row) : undefined;
}

/** Every enabled budget of an organization that is not deleted: what an evaluation pass goes over. */
export async function enabledBudgets(knex: Knex): Promise<BudgetRecord[]> {
  const rows = (await knex('budgets as b')
    .join('organizations as o', 'o.id', 'b.organization_id')
    .whereNull('b.deleted_at')
    .whereNull('o.deleted_at')
    .where('b.enabled', 1)
    .orderBy('b.id')
    .select(COLUMNS)) as Row[];
  return rows.map(fromRow);
}

/** Whether the budget is still as an evaluation read it (not deleted, disabled or changed since): read in the transaction that fires it. */
export async function budgetUnchanged(trx: Knex.Transaction, budget: BudgetRecord): Promise<boolean> {
  const row = await trx('budgets').where({ id: budget.id, updated_at: budget.updated_at, enabled: 1 }).whereNull('deleted_at').first('id');
  return row !== undefined;
}

export async function insertBudget(trx: Knex.Transaction, budget: BudgetRecord): Promise<void> {
  await trx('budgets').insert({ ...budget, ...toColumns(budget) });
}

export async function updateBudgetRow(
  trx: Knex.Transaction,
  organizationId: string,
  id: string,
  changes: BudgetChanges,
  now: number,
): Promise<number> {
  return trx('budgets')
    .where({ organization_id: organizationId, id })
    .whereNull('deleted_at')
    .update({ ...toColumns(changes), updated_at: now });
}

export async function softDeleteBudget(trx: Knex.Transaction, organizationId: string, id: string, now: number): Promise<number> {
  return trx('budgets').where({ organization_id: organizationId, id }).whereNull('deleted_at').update({ deleted_at: now, updated_at: now });
}
