// When a failed webhook delivery is tried again: the configured delays (WEBHOOK_RETRY_SCHEDULE_SECONDS,
// by default 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h: about 24 h in all), each
// moved by up to ±20 % so that the retries of many deliveries failed at once spread out.
/** How much a delay may move either way. */
export const JITTER = 0.2;

/**
 * The epoch milliseconds of the next attempt after attempt number `attempt` (1 for the first)
 * failed at `now`, or null when it was the last one the schedule allows.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempt: number,
  now: number,
  random: () => number = Math.random,
): number | null {
  const delaySeconds = schedule[attempt - 1];
  if (delaySeconds === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return now + Math.round(delaySeconds * 1000 * factor);
}
