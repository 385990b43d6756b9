// Timing a bench case within a budget (scripts/bench-query.ts): warm-up calls, then measured calls
// until the case's run count or half the budget's worth of time is spent (at least MIN_RUNS), and
// p50 and p95 of them. A call that outlasts the budget stops the case: the caller's `call` kills its
// work and throws OverBudget, and the case is reported as stopped instead of holding up the run.

/** What `call` throws when it gave up after the budget (its statements killed). */
export class OverBudget extends Error {
  constructor(budgetMs: number) {
    super(`over the budget of ${budgetMs} ms`);
  }
}

export type Timing<Answer> =
  { kind: 'measured'; p50: number; p95: number; runs: number; answer: Answer } | { kind: 'stopped'; budgetMs: number };

const WARMUPS = 3;
/** The fewest measured calls a case gets, however long they take. */
const MIN_RUNS = 3;
/** A first call slower than this is warm-up enough: no more warm-ups for it. */
const SLOW_CALL_MS = 1000;

function percentile(sorted: number[], fraction: number): number {
  const position = fraction * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return (sorted[low] as number) + (position - low) * ((sorted[high] as number) - (sorted[low] as number));
}

async function duration<Answer>(call: () => Promise<Answer>): Promise<{ ms: number; answer: Answer }> {
  const started = performance.now();
  const answer = await call();
  return { ms: performance.now() - started, answer };
}

/**
 * Times `call` (which must throw OverBudget past `budgetMs`): 3 warm-ups (1 when the first takes
 * over a second), then up to `runs` measured calls, stopping after MIN_RUNS once their time
 * passes half the budget (so that slow cases do not hold up a run). The answer is the first
 * call's, for the caller's check.
 */
export async function timedWithinBudget<Answer>(runs: number, budgetMs: number, call: () => Promise<Answer>): Promise<Timing<Answer>> {
  try {
    const first = await duration(call);
    const warmups = first.ms > SLOW_CALL_MS ? 1 : WARMUPS;
    for (let warmup = 1; warmup < warmups; warmup += 1) await call();
    const times: number[] = [];
    let spent = 0;
    while (times.length < runs && (times.length < MIN_RUNS || spent < budgetMs / 2)) {
      const { ms } = await duration(call);
      times.push(ms);
      spent += ms;
    }
    times.sort((a, b) => a - b);
    return { kind: 'measured', p50: percentile(times, 0.5), p95: percentile(times, 0.95), runs: times.length, answer: first.answer };
  } catch (error) {
    if (error instanceof OverBudget) return { kind: 'stopped', budgetMs };
    throw error;
  }
}
