// Shared by the ingest benchmarks: the check after a run that every span sent was stored exactly
// once, that the trace summaries count them (the workload's traces are SPANS_PER_TRACE deep) and
// that the usage rows counted each accepted once (a transaction retried whole counts once).
import type { Knex } from 'knex';
import { SPANS_PER_TRACE } from './bench-workload.js';

/** Throws unless the database holds `expected` spans in expected / SPANS_PER_TRACE trace summaries counting them all, and usage counting them accepted. */
export async function verifyStoredOnce(knex: Knex, expected: number, where = 'the database'): Promise<void> {
  const [{ spans }] = await knex('spans').count({ spans: '*' });
  const [{ traces, counted }] = await knex('traces').count({ traces: '*' }).sum({ counted: 'spans_count' });
  if (Number(spans) !== expected || Number(counted) !== expected || Number(traces) !== expected / SPANS_PER_TRACE) {
    throw new Error(
      `${where} stored ${spans} spans in ${traces} trace summaries counting ${counted}; expected ${expected} spans, ${expected / SPANS_PER_TRACE} traces`,
    );
  }
  const [{ accepted }] = await knex('usage_hourly').sum({ accepted: 'spans_accepted' });
  if (Number(accepted) !== expected) throw new Error(`${where}'s usage rows count ${accepted} spans accepted; expected ${expected}`);
}
