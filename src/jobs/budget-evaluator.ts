// The budget evaluator (src/storage/budgets/README.md): every BUDGET_EVALUATION_INTERVAL_SECONDS,
// one pass reads the spend of each enabled budget's current period from the spend roll-ups (and,
// during the first hour of a period, of the period just ended, for spans that arrived late) and
// fires each threshold reached and not yet recorded for that period: the crossing and its event
// in one transaction (fireCrossing), ascending. The budgets of one currency and period share one
// read keyed by application, so a pass reads each roll-up row once per currency and period kind.
// Off the ingestion path: ingestion writes the roll-ups it writes anyway.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { BudgetConfig } from '../config.js';
import { PeriodicPasses } from './periodic-passes.js';
import { activeApplicationIds } from '../storage/accounts/applications.js';
import { crossingsOf, fireCrossing, type Crossing } from '../storage/budgets/budget-crossings.js';
import { LATE_SPANS_GRACE_MS, periodAt, periodBefore, thresholdsReached, type BudgetPeriod } from '../storage/budgets/budget-periods.js';
import { readApplicationsSpend, spendOver, type ApplicationSpend } from '../storage/budgets/budget-spend.js';
import { enabledBudgets, type BudgetRecord } from '../storage/budgets/budgets.js';

export interface BudgetEvaluatorDeps {
  knex: Knex;
  logger: Logger;
  config: BudgetConfig;
  /** The time now, epoch milliseconds (Date.now by default): tests move it across period boundaries. */
  clock?: () => number;
}

/** Applications one shared read names at most. */
const READ_CHUNK = 500;

const crossingKey = (budgetId: string, periodStartMs: number, threshold: number) => `${budgetId} ${periodStartMs} ${threshold}`;

/** A budget as this pass evaluates it: its applications and periods now. */
interface Evaluated {
  budget: BudgetRecord;
  applicationIds: string[];
  period: BudgetPeriod;
  /** The period just ended, while its late spans may still fire it; null otherwise. */
  previous: BudgetPeriod | null;
  /** The budgets that share its read: one currency, one period, the previous one or not. */
  readKey: string;
}

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
    const evaluated = await this.budgetsNow(now);
    if (evaluated.length === 0) return 0;
    // A month back covers the previous period of every kind.
    const since = periodBefore('month', periodAt('month', now)).startMs;
    const recorded = new Set(
      (
        await crossingsOf(
          knex,
          evaluated.map((entry) => entry.budget.id),
          since,
        )
      ).map((crossing) => crossingKey(crossing.budget_id, crossing.period_start, crossing.threshold_percent)),
    );
    const reads = await this.sharedReads(evaluated);
    let fired = 0;
    for (const { budget, applicationIds, period, previous, readKey } of evaluated) {
      if (this.stopped) break;
      const { spend, previousSpend } = spendOver(reads.get(readKey) ?? [], applicationIds);
      const due: Crossing[] = [];
      if (previous !== null) due.push(...this.unrecorded(budget, previous, previousSpend, recorded));
      due.push(...this.unrecorded(budget, period, spend, recorded));
      for (const crossing of due) if (await fireCrossing(knex, crossing, now)) fired += 1;
    }
    return fired;
  }

  /** The enabled budgets with their applications (a budget of a deleted application counts none and is left out) and periods. */
  private async budgetsNow(now: number): Promise<Evaluated[]> {
    const { knex } = this.deps;
    const applications = new Map<string, string[]>();
    const evaluated: Evaluated[] = [];
    for (const budget of await enabledBudgets(knex)) {
      let active = applications.get(budget.organization_id);
      if (active === undefined) {
        active = await activeApplicationIds(knex, budget.organization_id);
        applications.set(budget.organization_id, active);
      }
      const applicationIds = budget.application_id === null ? active : active.filter((id) => id === budget.application_id);
      if (applicationIds.length === 0) continue;
      const period = periodAt(budget.period, now);
      // Only a budget that existed in the period just ended is evaluated for it.
      const previous =
        now < period.startMs + LATE_SPANS_GRACE_MS && budget.created_at < period.startMs ? periodBefore(budget.period, period) : null;
      const readKey = `${budget.currency} ${period.startMs} ${period.endMs} ${previous?.startMs ?? ''}`;
      evaluated.push({ budget, applicationIds, period, previous, readKey });
    }
    return evaluated;
  }

  /** One read per read key, over every application its budgets count (in chunks). */
  private async sharedReads(evaluated: readonly Evaluated[]): Promise<Map<string, ApplicationSpend[]>> {
    const groups = new Map<string, { entry: Evaluated; applicationIds: Set<string> }>();
    for (const entry of evaluated) {
      const group = groups.get(entry.readKey) ?? { entry, applicationIds: new Set<string>() };
      for (const id of entry.applicationIds) group.applicationIds.add(id);
      groups.set(entry.readKey, group);
    }
    const reads = new Map<string, ApplicationSpend[]>();
    for (const [readKey, { entry, applicationIds }] of groups) {
      const ids = [...applicationIds].sort();
      const read: ApplicationSpend[] = [];
      for (let index = 0; index < ids.length; index += READ_CHUNK)
        read.push(
          ...(await readApplicationsSpend(
            this.deps.knex,
            ids.slice(index, index + READ_CHUNK),
            entry.budget.currency,
            entry.period,
            entry.previous,
          )),
        );
      reads.set(readKey, read);
    }
    return reads;
  }

  /** The thresholds `spend` reaches in the period that no crossing records yet, ascending. */
  private unrecorded(budget: BudgetRecord, period: BudgetPeriod, spend: number, recorded: Set<string>): Crossing[] {
    return thresholdsReached(spend, budget.amount, budget.thresholds)
      .filter((threshold) => !recorded.has(crossingKey(budget.id, period.startMs, threshold)))
      .map((threshold) => ({ budget, period, thresholdPercent: threshold, spend }));
  }
}
