// The daily span quota of an application (docs/usage-and-quotas.md): once the spans accepted
// since the start of the UTC day reach it, export requests are refused until the next UTC day.
// A soft limit: the batch that reaches it is stored whole (with any batches in flight beside it),
// the next request is refused.
import type { Knex } from 'knex';
import { QuotaExceededError } from '../errors.js';
import { DAY_MS, dayStart } from '../storage/usage/usage-counts.js';
import { spansAcceptedSince } from '../storage/usage/usage-reads.js';

/** Whole seconds from the epoch-millisecond time to the next UTC midnight (at least 1). */
export function secondsToNextUtcDay(nowMs: number): number {
  return Math.max(1, Math.ceil((dayStart(nowMs) + DAY_MS - nowMs) / 1000));
}

/**
 * Refuses the request (QuotaExceededError) when the application has a daily span quota (as
 * authorization read it, with the application) and today's accepted spans have reached it. An
 * application without a quota costs nothing; one with a quota a read of today's usage rows (at
 * most 24 per key).
 */
export async function checkDailyQuota(knex: Knex, applicationId: string, quota: number | null, nowMs: number): Promise<void> {
  if (quota === null) return;
  const used = (await spansAcceptedSince(knex, [applicationId], dayStart(nowMs))).get(applicationId) ?? 0;
  if (used < quota) return;
  const resumesAt = new Date(dayStart(nowMs) + DAY_MS).toISOString();
  throw new QuotaExceededError(
    `the application's daily span quota of ${quota} spans is used up (${used} accepted today, UTC); ingestion resumes at ${resumesAt}`,
    secondsToNextUtcDay(nowMs),
  );
}
