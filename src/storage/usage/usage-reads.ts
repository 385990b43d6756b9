// Reads of the usage table (usage-counts.ts): the counters of a window by hour or by UTC day,
// optionally per API key, and the spans an application had accepted since a time (the quota).
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import { DAY_MS, HOUR_MS, USAGE_COUNTERS, type UsageCounts } from './usage-counts.js';

export type UsageGranularity = 'hour' | 'day';

export interface UsageBucket extends UsageCounts {
  /** Epoch milliseconds of the bucket's start (a UTC hour or a UTC day). */
  bucketStart: number;
  /** Set when read per key: the key, or NO_API_KEY for users' tokens. */
  apiKey?: string;
}

export interface UsageWindow {
  applicationId: string;
  /** Epoch milliseconds, both on the granularity's boundaries; end exclusive. */
  start: number;
  end: number;
  granularity: UsageGranularity;
  perKey: boolean;
}

/** The window's non-empty buckets, in time order (then by key). */
export async function readUsage(knex: Knex, window: UsageWindow): Promise<UsageBucket[]> {
  const { integerDivide, asText } = dialectFor(knex);
  const width = window.granularity === 'day' ? DAY_MS : HOUR_MS;
  const bucket = `${integerDivide('hour_start', String(width))} * ${width}`;
  const query = knex('usage_hourly')
    .where('application_id', window.applicationId)
    .where('hour_start', '>=', window.start)
    .where('hour_start', '<', window.end)
    .select(knex.raw(`${asText(bucket)} AS bucket_start`))
    .groupByRaw(bucket)
    .orderByRaw(bucket);
  for (const counter of USAGE_COUNTERS) query.select(knex.raw(`${asText(`SUM(${counter})`)} AS ${counter}`));
  if (window.perKey) query.select('api_key').groupBy('api_key').orderBy('api_key');
  const rows = (await query) as Array<Record<string, string | number | null>>;
  return rows.map((row) => {
    const bucketRow: UsageBucket = {
      bucketStart: Number(row.bucket_start),
      ...(Object.fromEntries(USAGE_COUNTERS.map((counter) => [counter, Number(row[counter] ?? 0)])) as UsageCounts),
    };
    if (window.perKey) bucketRow.apiKey = String(row.api_key);
    return bucketRow;
  });
}

/** The spans the applications have accepted since the epoch-millisecond time (every key), by application. */
export async function spansAcceptedSince(knex: Knex, applicationIds: string[], since: number): Promise<Map<string, number>> {
  const accepted = new Map(applicationIds.map((id) => [id, 0]));
  if (applicationIds.length === 0) return accepted;
  const { asText } = dialectFor(knex);
  const rows = (await knex('usage_hourly')
    .whereIn('application_id', applicationIds)
    .where('hour_start', '>=', since)
    .groupBy('application_id')
    .select('application_id', knex.raw(`${asText('SUM(spans_accepted)')} AS accepted`))) as Array<{
    application_id: string;
    accepted: string | number;
  }>;
  for (const row of rows) accepted.set(row.application_id, Number(row.accepted));
  return accepted;
}
