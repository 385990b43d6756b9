// The budget evaluator (src/storage/budgets/README.md): every BUDGET_EVALUATION_INTERVAL_SECONDS,
// one pass reads the spend of each enabled budget's current period from the spend roll-ups (and,
// during the first hour of a period, of the period just ended, for spans that arrived late) and
// fires each threshold reached and not yet recorded for that period: the crossing and its event
// in one transaction (fireCrossing), ascending. Budgets with the same applications, currency and
// period share one read. Off the ingestion path: ingestion writes the roll-ups it writes anyway.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { BudgetConfig } from '../config.js';
import { PeriodicPasses } from './periodic-passes.js';
import { crossingsOf, fireCrossing, type Crossing } from '../storage/budgets/budget-crossings.js';
import { LATE_SPANS_GRACE_MS, periodAt, periodBefore, thresholdsReached, type BudgetPeriod } from '../storage/budgets/budget-periods.js';
import { activeApplicationIds } from '../storage/accounts/applications.js';
import { readPeriodSpend, type PeriodSpend } from '../storage/budgets/budget-spend.js';
import { enabledBudgets, type BudgetRecord } from '../storage/budgets/budgets.js';

export interface BudgetEvaluatorDeps {
  knex: Knex;
  logger: Logger;
  config: BudgetConfig;
  /** The time now, epoch milliseconds (Date.now by default): tests move it across period boundaries. */
  clock?: () => number;
}

const crossingKey = (budgetId: string, periodStartMs: number, threshold: number) => `${budgetId} ${periodStartMs} ${threshold}`;

export class BudgetEvaluator extends PeriodicPasses {
  constructor(private readonly deps: BudgetEvaluatorDeps) {
    super(deps.config.intervalSeconds);
  }

  /** One pass; resolves with the crossings it fired. */
  protected async pass(): Promise<number> {
    try {
      return await this.evaluate();
    } catch (error) {
      this.deps.logger.error({ err: error }, 'budget evaluation pass failed');
      throw error;
    }
  }

  private async evaluate(): Promise<number> {
    const { knex } = this.deps;
    const now = (this.deps.clock ?? Date.now)();
    const budgets = await enabledBudgets(knex);
    if (budgets.length === 0) return 0;
    // A month back covers the previous period of every kind.
    const recorded = new Set(
      (
        await crossingsOf(
          knex,
          budgets.map((budget) => budget.id),
          periodBefore('month', periodAt('month', now)).startMs,
        )
      ).map((crossing) => crossingKey(crossing.budget_id, crossing.period_start, crossing.threshold_percent)),
    );
    const reads = new Map<string, Promise<PeriodSpend>>();
    const applications = new Map<string, Promise<string[]>>();
    let fired = 0;
    for (const budget of budgets) {
      if (this.stopped) break;
      const orgApplications = applications.get(budget.organization_id) ?? activeApplicationIds(knex, budget.organization_id);
      applications.set(budget.organization_id, orgApplications);
      const all = await orgApplications;
      const applicationIds = budget.application_id === null ? all : all.filter((id) => id === budget.application_id);
      // A budget of a deleted application counts nothing.
      if (applicationIds.length === 0) continue;
      const period = periodAt(budget.period, now);
      const previous = periodBefore(budget.period, period);
      const readKey = `${applicationIds.join(',')} ${budget.currency} ${budget.period} ${period.startMs}`;
      const read = reads.get(readKey) ?? readPeriodSpend(knex, applicationIds, budget.currency, period, previous);
      reads.set(readKey, read);
      const { spend, previousSpend } = await read;
      const due: Crossing[] = [];
      // The period just ended, while its late spans may still arrive: only for a budget that existed in it.
      if (now < period.startMs + LATE_SPANS_GRACE_MS && budget.created_at < period.startMs)
        due.push(...this.unrecorded(budget, previous, previousSpend, recorded));
      due.push(...this.unrecorded(budget, period, spend, recorded));
      for (const crossing of due) if (await fireCrossing(knex, crossing, now)) fired += 1;
    }
    return fired;
  }

  /** The thresholds `spend` reaches in the period that no crossing records yet, ascending. */
  private unrecorded(budget: BudgetRecord, period: BudgetPeriod, spend: number, recorded: Set<string>): Crossing[] {
    return thresholdsReached(spend, budget.amount, budget.thresholds)
      .filter((threshold) => !recorded.has(crossingKey(budget.id, period.startMs, threshold)))
      .map((threshold) => ({ budget, period, thresholdPercent: threshold, spend }));
  }
}
