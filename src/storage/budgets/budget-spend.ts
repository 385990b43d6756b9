// The spend a budget counts, read the one way the spend summaries read it (readSpend over the
// spend roll-ups, ../spend/spend-reads.ts): the budget's applications, its currency, its period
// and the period before, so a budget's spend is the summary's total for the same window.
import type { Knex } from 'knex';
import { activeApplicationIds } from '../accounts/applications.js';
import { readSpend } from '../spend/spend-reads.js';
import type { BudgetPeriod } from './budget-periods.js';
import type { BudgetRecord } from './budgets.js';

const NS_PER_MS = 1_000_000n;

/** The applications a budget counts: the organization's active ones, or its one application while active. */
export async function budgetApplicationIds(
  knex: Knex,
  budget: Pick<BudgetRecord, 'organization_id' | 'application_id'>,
): Promise<string[]> {
  const active = await activeApplicationIds(knex, budget.organization_id);
  if (budget.application_id === null) return active;
  return active.includes(budget.application_id) ? [budget.application_id] : [];
}

export interface PeriodSpend {
  /** The spend of the period, and of the period before it, in the currency. */
  spend: number;
  previousSpend: number;
}

export interface ApplicationSpend extends PeriodSpend {
  applicationId: string;
}

/**
 * The spend of `period` and of `previous` (the one just before it; null: not wanted, 0) in
 * `currency`, per application, in the order read: one readSpend keyed by application, which the
 * evaluator shares among every budget of the same currency and period. Leaving the previous
 * period out halves the rows a month reads; the period's own spend is the same number either way
 * (rows of the previous window add exact zeros to it).
 */
export async function readApplicationsSpend(
  knex: Knex,
  applicationIds: readonly string[],
  currency: string,
  period: BudgetPeriod,
  previous: BudgetPeriod | null,
): Promise<ApplicationSpend[]> {
  const read = await readSpend(knex, {
    applicationIds,
    previousStartNs: BigInt((previous ?? period).startMs) * NS_PER_MS,
    startNs: BigInt(period.startMs) * NS_PER_MS,
    endNs: BigInt(period.endMs) * NS_PER_MS,
    currency,
    key: 'application_id',
  });
  return read.values.map((value) => ({ applicationId: value.value ?? '', spend: value.spend, previousSpend: value.previousSpend }));
}

/** The spend of some of the applications read, added in the order read, as the summary's totals add theirs. */
export function spendOver(read: readonly ApplicationSpend[], applicationIds: readonly string[]): PeriodSpend {
  const counted = new Set(applicationIds);
  let spend = 0;
  let previousSpend = 0;
  for (const figures of read) {
    if (!counted.has(figures.applicationId)) continue;
    spend += figures.spend;
    previousSpend += figures.previousSpend;
  }
  return { spend, previousSpend };
}
