// getApplicationUsage (GET /applications/{app_id}/usage) and the `quota_state` every application
// representation carries: both read the usage table that ingestion writes
// (src/storage/usage/, docs/usage-and-quotas.md), by the service's clock.
import type { Knex } from 'knex';
import type { components, operations } from '../generated/management.js';
import { RequestValidationError } from '../errors.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { rfc3339ToCeilingMillis } from '../request/time-window.js';
import type { ApplicationRecord } from '../storage/accounts/applications.js';
import { toIsoRequired } from '../storage/time.js';
import { DAY_MS, dayStart, HOUR_MS, NO_API_KEY, USAGE_COUNTERS, zeroCounts, type UsageCounts } from '../storage/usage/usage-counts.js';
import { readUsage, spansAcceptedSince, type UsageGranularity } from '../storage/usage/usage-reads.js';

type Schemas = components['schemas'];

/** The most buckets one read answers: 31 days by the hour, 366 days by the day. */
const MAX_BUCKETS: Record<UsageGranularity, number> = { hour: 744, day: 366 };
const WIDTH_MS: Record<UsageGranularity, number> = { hour: HOUR_MS, day: DAY_MS };

/** Today's (UTC) accepted spans against each application's quota, by application id. */
export async function quotaStates(
  knex: Knex,
  applications: ApplicationRecord[],
  nowMs: number,
): Promise<Map<string, Schemas['ApplicationQuotaState']>> {
  const today = dayStart(nowMs);
  const accepted = await spansAcceptedSince(
    knex,
    applications.map((application) => application.id),
    today,
  );
  const resetsAt = toIsoRequired(today + DAY_MS);
  return new Map(
    applications.map((application) => {
      const spans = accepted.get(application.id) ?? 0;
      const exceeded = application.daily_span_quota !== null && spans >= application.daily_span_quota;
      return [application.id, { spans_accepted_today: spans, exceeded, resets_at: resetsAt }];
    }),
  );
}

/** The window widened to whole buckets, with the rules the document cannot express (order, length). */
function usageWindow(query: { start_time: string; end_time: string }, granularity: UsageGranularity): { start: number; end: number } {
  const width = WIDTH_MS[granularity];
  // Read exactly, as every other window is (src/request/time-window.ts): [start, end) in whole milliseconds.
  const startMs = rfc3339ToCeilingMillis(query.start_time);
  const endMs = rfc3339ToCeilingMillis(query.end_time);
  if (endMs <= startMs)
    throw new RequestValidationError([
      { loc: ['query', 'end_time'], msg: 'end_time must be after start_time (the window is [start_time, end_time))', type: 'value_error' },
    ]);
  const start = Math.floor(startMs / width) * width;
  const end = Math.ceil(endMs / width) * width;
  const limit = MAX_BUCKETS[granularity];
  if ((end - start) / width > limit) {
    const span = granularity === 'hour' ? `${limit} hours (31 days)` : `${limit} days`;
    throw new RequestValidationError([
      {
        loc: ['query', 'end_time'],
        msg: `the window may cover at most ${span} by the ${granularity}; read a longer one in parts or by the day`,
        type: 'value_error',
      },
    ]);
  }
  return { start, end };
}

function countsOf(counts: UsageCounts): Schemas['UsageCounts'] {
  return Object.fromEntries(USAGE_COUNTERS.map((counter) => [counter, counts[counter]])) as Schemas['UsageCounts'];
}

export function getApplicationUsage({ knex }: ServiceDeps): OperationHandler<operations['getApplicationUsage']> {
  return async (request) => {
    const { query } = request;
    const granularity = query.granularity ?? 'hour';
    const byApiKey = query.by_api_key ?? false;
    const { start, end } = usageWindow(query, granularity);
    // Authorization has found the application active and the caller allowed on it.
    const applicationId = request.params.app_id;
    const buckets = await readUsage(knex, { applicationId, start, end, granularity, perKey: byApiKey });
    const totals = zeroCounts();
    for (const bucket of buckets) for (const counter of USAGE_COUNTERS) totals[counter] += bucket[counter];
    const body: Schemas['UsageReport'] = {
      application_id: applicationId,
      start_time: toIsoRequired(start),
      end_time: toIsoRequired(end),
      granularity,
      by_api_key: byApiKey,
      buckets: buckets.map((bucket) => ({
        start_time: toIsoRequired(bucket.bucketStart),
        ...(byApiKey ? { api_key: bucket.apiKey === NO_API_KEY || bucket.apiKey === undefined ? null : bucket.apiKey } : {}),
        ...countsOf(bucket),
      })),
      totals: countsOf(totals),
    };
    return { status: 200, body };
  };
}
