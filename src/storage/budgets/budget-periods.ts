// A budget's periods and what its spend reaches: pure functions of a time and of numbers, shared
// by the evaluator (src/jobs/budget-evaluator.ts) and the budgets' answers.

export const BUDGET_PERIOD_KINDS = ['day', 'month'] as const;
export type BudgetPeriodKind = (typeof BUDGET_PERIOD_KINDS)[number];

/** [startMs, endMs), epoch milliseconds on UTC midnights. */
export interface BudgetPeriod {
  startMs: number;
  endMs: number;
}

/**
 * How long after a period ends its thresholds are still evaluated, with its own spend: spans of
 * the period that arrive late (exporters' retries, a batch in flight at the boundary) still fire it.
 */
export const LATE_SPANS_GRACE_MS = 3_600_000;

const DAY_MS = 86_400_000;

/** The period holding `atMs`: its UTC day, or its calendar month from the 1st at 00:00 UTC. */
export function periodAt(kind: BudgetPeriodKind, atMs: number): BudgetPeriod {
  const at = new Date(atMs);
  if (kind === 'day') {
    const startMs = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
    return { startMs, endMs: startMs + DAY_MS };
  }
  return { startMs: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1), endMs: Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) };
}

/** The period just before `period`: the previous UTC day, or the previous calendar month. */
export function periodBefore(kind: BudgetPeriodKind, period: BudgetPeriod): BudgetPeriod {
  return periodAt(kind, period.startMs - 1);
}

/**
 * The thresholds (whole percents, ascending) that `spend` reaches: spend ≥ amount × threshold / 100.
 * A relative 1e-12 absorbs the rounding of a sum of costs (spend that is the amount to 12
 * significant digits has reached 100 %).
 */
export function thresholdsReached(spend: number, amount: number, thresholds: readonly number[]): number[] {
  return thresholds.filter((threshold) => spend * 100 >= amount * threshold * (1 - 1e-12));
}

/** `spend` in percent of `amount`. */
export function percentOf(spend: number, amount: number): number {
  return (spend / amount) * 100;
}
