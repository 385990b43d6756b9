// The usage table `usage_hourly` (docs/usage-and-quotas.md): per application, API key and UTC
// hour of receipt, what ingestion took in. Written by one upsert per export request, inside the
// span writer's transaction when spans are stored (span-writer.ts), so that `spans_accepted`
// always equals the spans stored; read by the usage endpoint and the daily quota.
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import { retryOnLockConflict } from '../transactions.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The api_key of requests sent with a dashboard user's token (the key is part of the primary key). */
export const NO_API_KEY = '';

/** The counters of one row, as numbers. */
export const USAGE_COUNTERS = [
  'spans_accepted',
  'spans_duplicate',
  'spans_rejected',
  'bytes_received',
  'bytes_decompressed',
  'requests',
  'requests_refused',
] as const;

export type UsageCounter = (typeof USAGE_COUNTERS)[number];
export type UsageCounts = Record<UsageCounter, number>;

/** What one export request adds to its application's, key's and hour's row. */
export interface UsageDelta extends UsageCounts {
  application_id: string;
  /** NO_API_KEY for a user's token. */
  api_key: string;
  /** Epoch milliseconds of the UTC hour (hourStart). */
  hour_start: number;
}

export function zeroCounts(): UsageCounts {
  return {
    spans_accepted: 0,
    spans_duplicate: 0,
    spans_rejected: 0,
    bytes_received: 0,
    bytes_decompressed: 0,
    requests: 0,
    requests_refused: 0,
  };
}

/** The start of the UTC hour holding the epoch-millisecond time. */
export function hourStart(nowMs: number): number {
  return Math.floor(nowMs / HOUR_MS) * HOUR_MS;
}

/** The start of the UTC day holding the epoch-millisecond time. */
export function dayStart(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS;
}

/**
 * The upsert that adds a request's counts to its row: one row per application, key and hour, so
 * concurrent writers of an application meet on at most one row per key, touched last and briefly.
 */
export function addUsageQuery(db: Knex, delta: UsageDelta): Knex.QueryBuilder {
  const { insertedValue } = dialectFor(db);
  const merge = Object.fromEntries(
    USAGE_COUNTERS.map((counter) => [counter, db.raw('?? + ?', [`usage_hourly.${counter}`, db.raw(insertedValue, [counter])])]),
  );
  return db('usage_hourly').insert(delta).onConflict(['application_id', 'hour_start', 'api_key']).merge(merge);
}

/**
 * Adds a request's counts on its own (a request that stored no span: all rejected, or refused by
 * the quota). Retried on a lock conflict: an upsert that failed added nothing, so none counts twice.
 */
export async function recordUsage(knex: Knex, delta: UsageDelta): Promise<void> {
  await retryOnLockConflict(() => addUsageQuery(knex, delta));
}
