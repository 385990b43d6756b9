// Where a budget stands now (BudgetStatus in openapi/management.yaml): its current period, the
// spend so far and its percent of the amount, and the thresholds fired in the period.
import type { Knex } from 'knex';
import { crossingsOf, type CrossingRecord } from './budget-crossings.js';
import { percentOf, periodAt, type BudgetPeriod } from './budget-periods.js';
import { budgetApplicationIds, readApplicationsSpend, spendOver } from './budget-spend.js';
import type { BudgetRecord } from './budgets.js';

export interface BudgetStatus {
  period: BudgetPeriod;
  spend: number;
  percent: number;
  /** The thresholds fired in the current period, ascending. */
  crossings: CrossingRecord[];
}

export async function budgetStatus(knex: Knex, budget: BudgetRecord, nowMs: number): Promise<BudgetStatus> {
  const period = periodAt(budget.period, nowMs);
  const applicationIds = await budgetApplicationIds(knex, budget);
  // Read for the budget's applications alone: the spend summary's read, to the last digit.
  const { spend } = spendOver(await readApplicationsSpend(knex, applicationIds, budget.currency, period, null), applicationIds);
  const crossings = (await crossingsOf(knex, [budget.id], period.startMs)).filter((crossing) => crossing.period_start === period.startMs);
  return { period, spend, percent: percentOf(spend, budget.amount), crossings };
}
