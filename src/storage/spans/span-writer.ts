// Stores spans durably and keeps the per-trace summaries (table `traces`) current.
// A span already stored (same application, trace_id, span_id) is kept, never stored twice.
import type { Knex } from 'knex';
import { bigintAsText, isMysql } from '../database.js';
import { retryOnLockConflict } from '../retry.js';
import type { SpanRow } from './span-row.js';

// 27 columns a row: 500 rows stay far below SQLite's and MySQL's placeholder limits.
const ROWS_PER_INSERT = 500;

interface RootCandidate {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  span_kind: string;
  start: string;
  span_name: string;
  service_name: string | null;
  unit: string | null;
  parent_unit: string | null;
}

function compareNanos(left: string, right: string): number {
  const a = BigInt(left);
  const b = BigInt(right);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Earliest parentless span, else earliest SPAN_KIND_SERVER span; ties broken by span_id. */
function pickRoot(candidates: RootCandidate[]): RootCandidate | undefined {
  const earliest = (spans: RootCandidate[]) =>
    [...spans].sort((a, b) => compareNanos(a.start, b.start) || (a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0))[0];
  const parentless = candidates.filter((span) => span.parent_span_id === null);
  return parentless.length > 0 ? earliest(parentless) : earliest(candidates.filter((span) => span.span_kind === 'SPAN_KIND_SERVER'));
}

async function refreshSummaries(trx: Knex.Transaction, applicationId: string, traceIds: string[]): Promise<void> {
  // Lock (or create) the summary rows first, in a fixed order: concurrent writers of one trace
  // take turns, and each then reads every span the others committed (READ COMMITTED on MySQL).
  const placeholders = traceIds.map((trace_id) => ({
    application_id: applicationId,
    trace_id,
    min_start_time_unix_nano: 0,
    max_end_time_unix_nano: 0,
    duration_ms: 0,
    spans_count: 0,
    total_cost: 0,
  }));
  await trx('traces').insert(placeholders).onConflict(['application_id', 'trace_id']).merge(['spans_count']);

  const aggregates: Array<{ trace_id: string; min_start: string; max_end: string; spans_count: number | string; total_cost: number | string | null; duration_ms: number | string }> =
    await trx('spans')
      .select('trace_id')
      .select({ min_start: bigintAsText(trx, 'MIN(start_time_unix_nano)'), max_end: bigintAsText(trx, 'MAX(end_time_unix_nano)') })
      .select(trx.raw('(MAX(end_time_unix_nano) - MIN(start_time_unix_nano)) / 1000000.0 AS duration_ms'))
      .count({ spans_count: '*' })
      .select(trx.raw('SUM(COALESCE(cost, 0)) AS total_cost'))
      .where('application_id', applicationId)
      .whereIn('trace_id', traceIds)
      .groupBy('trace_id');

  const candidates: RootCandidate[] = await trx('spans')
    .select('trace_id', 'span_id', 'parent_span_id', 'span_kind', 'span_name', 'service_name', 'unit', 'parent_unit')
    .select({ start: bigintAsText(trx, 'start_time_unix_nano') })
    .where('application_id', applicationId)
    .whereIn('trace_id', traceIds)
    .where((where) => where.whereNull('parent_span_id').orWhere('span_kind', 'SPAN_KIND_SERVER'));
  const candidatesByTrace = new Map<string, RootCandidate[]>();
  for (const candidate of candidates) {
    const list = candidatesByTrace.get(candidate.trace_id) ?? [];
    list.push(candidate);
    candidatesByTrace.set(candidate.trace_id, list);
  }

  for (const aggregate of aggregates) {
    const root = pickRoot(candidatesByTrace.get(aggregate.trace_id) ?? []);
    await trx('traces')
      .where({ application_id: applicationId, trace_id: aggregate.trace_id })
      .update({
        root_span_id: root?.span_id ?? null,
        root_start_time_unix_nano: root?.start ?? null,
        span_name: root?.span_name ?? null,
        service_name: root?.service_name ?? null,
        unit: root?.unit ?? null,
        parent_unit: root?.parent_unit ?? null,
        min_start_time_unix_nano: aggregate.min_start,
        max_end_time_unix_nano: aggregate.max_end,
        duration_ms: Number(aggregate.duration_ms),
        spans_count: Number(aggregate.spans_count),
        total_cost: Number(aggregate.total_cost ?? 0),
      });
  }
}

function groupTraceIds(rows: SpanRow[]): Map<string, string[]> {
  const byApplication = new Map<string, Set<string>>();
  for (const row of rows) {
    const traces = byApplication.get(row.application_id) ?? new Set<string>();
    traces.add(row.trace_id);
    byApplication.set(row.application_id, traces);
  }
  return new Map([...byApplication].map(([application, traces]) => [application, [...traces].sort()]));
}

/**
 * Stores the spans and refreshes the summaries of every trace they touch, in one transaction:
 * when this resolves, everything is committed. Lock conflicts retry the whole transaction.
 */
export async function storeSpans(knex: Knex, rows: SpanRow[]): Promise<void> {
  if (rows.length === 0) return;
  const traceIdsByApplication = groupTraceIds(rows);
  const options = isMysql(knex) ? { isolationLevel: 'read committed' as const } : undefined;
  await retryOnLockConflict(() =>
    knex.transaction(async (trx) => {
      for (let offset = 0; offset < rows.length; offset += ROWS_PER_INSERT) {
        await trx('spans')
          .insert(rows.slice(offset, offset + ROWS_PER_INSERT))
          .onConflict(['application_id', 'trace_id', 'span_id'])
          .ignore();
      }
      for (const [applicationId, traceIds] of traceIdsByApplication) {
        await refreshSummaries(trx, applicationId, traceIds);
      }
    }, options),
  );
}
