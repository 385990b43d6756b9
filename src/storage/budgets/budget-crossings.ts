// The budget_crossings table (README.md beside this file): the thresholds fired per budget and
// period. fireCrossing records a crossing and stores its `budget.threshold_crossed` event in one
// transaction; the primary key (budget, period start, threshold) makes a second recording of the
// same crossing (another instance's pass at the same moment) fail as a duplicate, and that
// transaction rolls back with its event: each crossing fires once.
import type { Knex } from 'knex';
import { toIsoRequired } from '../time.js';
import { retryOnLockConflict } from '../transactions.js';
import { emitEvent } from '../webhooks/webhook-deliveries.js';
import type { BudgetPeriod } from './budget-periods.js';
import { budgetUnchanged, type BudgetRecord } from './budgets.js';

export interface CrossingRecord {
  budget_id: string;
  /** Epoch milliseconds. */
  period_start: number;
  threshold_percent: number;
  crossed_at: number;
  spend: number;
}

/** A budget id list is read in chunks well below every database's placeholder limit. */
const CHUNK = 500;

/** The crossings of the budgets in periods that start at or after `sinceMs`, by budget, then period, then threshold. */
export async function crossingsOf(knex: Knex, budgetIds: readonly string[], sinceMs: number): Promise<CrossingRecord[]> {
  const found: CrossingRecord[] = [];
  for (let index = 0; index < budgetIds.length; index += CHUNK) {
    const rows = (await knex('budget_crossings')
      .whereIn('budget_id', budgetIds.slice(index, index + CHUNK))
      .where('period_start', '>=', sinceMs)
      .orderBy([{ column: 'budget_id' }, { column: 'period_start' }, { column: 'threshold_percent' }])
      .select('budget_id', 'period_start', 'threshold_percent', 'crossed_at', 'spend')) as Array<
      Record<keyof CrossingRecord, string | number>
    >;
    for (const row of rows)
      found.push({
        budget_id: String(row.budget_id),
        period_start: Number(row.period_start),
        threshold_percent: Number(row.threshold_percent),
        crossed_at: Number(row.crossed_at),
        spend: Number(row.spend),
      });
  }
  return found;
}

export async function deleteCrossings(trx: Knex.Transaction, budgetId: string): Promise<void> {
  await trx('budget_crossings').where({ budget_id: budgetId }).delete();
}

function isDuplicateKey(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export interface Crossing {
  budget: BudgetRecord;
  period: BudgetPeriod;
  thresholdPercent: number;
  /** The period's spend that reached the threshold. */
  spend: number;
}

/** The event's `data` (BudgetThresholdCrossed in openapi/management.yaml). */
function eventData(crossing: Crossing, now: number): Record<string, unknown> {
  const { budget, period } = crossing;
  return {
    budget_id: budget.id,
    application_id: budget.application_id,
    period: { start: toIsoRequired(period.startMs), end: toIsoRequired(period.endMs) },
    amount: budget.amount,
    currency: budget.currency,
    threshold_percent: crossing.thresholdPercent,
    spend: crossing.spend,
    crossed_at: toIsoRequired(now),
  };
}

/**
 * Records the crossing and stores its event (one delivery per subscribed endpoint) in one
 * transaction. False when it fired nothing: the crossing was recorded already (by another
 * instance), or the budget was deleted, disabled or changed after the pass read it.
 */
export async function fireCrossing(knex: Knex, crossing: Crossing, now: number): Promise<boolean> {
  try {
    return await retryOnLockConflict(() =>
      knex.transaction(async (trx) => {
        if (!(await budgetUnchanged(trx, crossing.budget))) return false;
        // First, so that the second of two instances fails here, before it writes anything else.
        await trx('budget_crossings').insert({
          budget_id: crossing.budget.id,
          period_start: crossing.period.startMs,
          threshold_percent: crossing.thresholdPercent,
          crossed_at: now,
          spend: crossing.spend,
        });
        await emitEvent(
          trx,
          { organizationId: crossing.budget.organization_id, type: 'budget.threshold_crossed', data: eventData(crossing, now) },
          now,
        );
        return true;
      }),
    );
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}
