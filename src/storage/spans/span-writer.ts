// Stores spans durably and keeps the per-trace summaries (table `traces`) current, as spans
// arrive in any order and in any number of batches. A span already stored (same application,
// trace_id, span_id) is kept, never stored twice.
import type { Knex } from 'knex';
import { bigintAsText, isMysql } from '../database.js';
import { retryOnLockConflict } from '../retry.js';
import type { SpanRow } from './span-row.js';
import { insertSpans, insertSpansMysql, mysqlConnection, send } from './span-insert.js';

/** Traces whose spans and summaries one round of statements writes. */
const TRACES_PER_ROUND = 500;

interface RootCandidate {
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

interface Summary {
  application_id: string;
  trace_id: string;
  root_span_id: string | null;
  root_start_time_unix_nano: string | null;
  span_name: string | null;
  service_name: string | null;
  unit: string | null;
  parent_unit: string | null;
  min_start_time_unix_nano: string;
  max_end_time_unix_nano: string;
  duration_ms: number;
  spans_count: number;
  total_cost: number;
}

function summary(applicationId: string, traceId: string, root: RootCandidate | undefined, minStart: string, maxEnd: string, spansCount: number, totalCost: number): Summary {
  return {
    application_id: applicationId,
    trace_id: traceId,
    root_span_id: root?.span_id ?? null,
    root_start_time_unix_nano: root?.start ?? null,
    span_name: root?.span_name ?? null,
    service_name: root?.service_name ?? null,
    unit: root?.unit ?? null,
    parent_unit: root?.parent_unit ?? null,
    min_start_time_unix_nano: minStart,
    max_end_time_unix_nano: maxEnd,
    duration_ms: Number(BigInt(maxEnd) - BigInt(minStart)) / 1e6,
    spans_count: spansCount,
    total_cost: totalCost,
  };
}

/**
 * Creates the summary rows that do not exist yet and locks them all, in a fixed order: concurrent
 * writers of one trace take turns, and each then sees what the others committed (READ COMMITTED
 * on MySQL). ON DUPLICATE KEY UPDATE takes an exclusive lock on an existing row (the no-op update
 * leaves it as it is); SQLite has a single writer anyway.
 */
function lockQuery(trx: Knex.Transaction, applicationId: string, traceIds: string[]): Knex.QueryBuilder {
  const placeholders = traceIds.map((trace_id) => ({
    application_id: applicationId,
    trace_id,
    min_start_time_unix_nano: 0,
    max_end_time_unix_nano: 0,
    duration_ms: 0,
    spans_count: 0,
    total_cost: 0,
  }));
  return trx('traces').insert(placeholders).onConflict(['application_id', 'trace_id']).merge({ spans_count: trx.raw('??', ['spans_count']) });
}

interface StoredSummary {
  trace_id: string;
  root_span_id: string | null;
  /** The stored root's own parent (joined from spans). */
  root_parent_span_id: string | null;
  root_start: string | null;
  span_name: string | null;
  service_name: string | null;
  unit: string | null;
  parent_unit: string | null;
  min_start: string;
  max_end: string;
  spans_count: number | string;
  total_cost: number | string;
}

function storedSummariesQuery(trx: Knex.Transaction, applicationId: string, traceIds: string[]): Knex.QueryBuilder {
  return trx('traces as t')
    .leftJoin('spans as s', (join) => join.on('s.application_id', 't.application_id').andOn('s.trace_id', 't.trace_id').andOn('s.span_id', 't.root_span_id'))
    .select('t.trace_id', 't.root_span_id', 's.parent_span_id as root_parent_span_id', 't.span_name', 't.service_name', 't.unit', 't.parent_unit', 't.spans_count', 't.total_cost')
    .select({
      root_start: bigintAsText(trx, 't.root_start_time_unix_nano'),
      min_start: bigintAsText(trx, 't.min_start_time_unix_nano'),
      max_end: bigintAsText(trx, 't.max_end_time_unix_nano'),
    })
    .where('t.application_id', applicationId)
    .whereIn('t.trace_id', traceIds);
}

/**
 * The summaries after adding rows that were all new (none was stored before): each stored
 * summary merged with the rows, with no need to read the trace's other spans back. The stored root stays
 * a candidate: it is parentless (then it was the earliest parentless span) or, when it has a
 * parent, a SPAN_KIND_SERVER span chosen because the trace had no parentless span.
 */
function mergedSummaries(applicationId: string, stored: StoredSummary[], rows: SpanRow[]): Summary[] {
  const rowsByTrace = groupBy(rows, (row) => row.trace_id);
  return stored.map((before) => {
    const added = rowsByTrace.get(before.trace_id) ?? [];
    const candidates: RootCandidate[] = added.filter(isRootCandidate).map(rootCandidate);
    if (before.root_span_id !== null && before.root_start !== null) {
      candidates.push({
        span_id: before.root_span_id,
        parent_span_id: before.root_parent_span_id,
        span_kind: before.root_parent_span_id === null ? '' : 'SPAN_KIND_SERVER',
        start: before.root_start,
        span_name: before.span_name as string,
        service_name: before.service_name,
        unit: before.unit,
        parent_unit: before.parent_unit,
      });
    }
    const empty = Number(before.spans_count) === 0; // a placeholder just made
    let minStart = empty ? added[0].start_time_unix_nano : before.min_start;
    let maxEnd = empty ? added[0].end_time_unix_nano : before.max_end;
    let totalCost = empty ? 0 : Number(before.total_cost);
    for (const row of added) {
      if (compareNanos(row.start_time_unix_nano, minStart) < 0) minStart = row.start_time_unix_nano;
      if (compareNanos(row.end_time_unix_nano, maxEnd) > 0) maxEnd = row.end_time_unix_nano;
      totalCost += row.cost ?? 0;
    }
    return summary(applicationId, before.trace_id, pickRoot(candidates), minStart, maxEnd, Number(before.spans_count) + added.length, totalCost);
  });
}

/** The summaries recomputed from every stored span of the traces (after re-sent spans were skipped). */
async function recomputedSummaries(trx: Knex.Transaction, applicationId: string, traceIds: string[]): Promise<Summary[]> {
  const aggregates: Array<{ trace_id: string; min_start: string; max_end: string; spans_count: number | string; total_cost: number | string | null }> = await trx('spans')
    .select('trace_id')
    .select({ min_start: bigintAsText(trx, 'MIN(start_time_unix_nano)'), max_end: bigintAsText(trx, 'MAX(end_time_unix_nano)') })
    .count({ spans_count: '*' })
    .select(trx.raw('SUM(COALESCE(cost, 0)) AS total_cost'))
    .where('application_id', applicationId)
    .whereIn('trace_id', traceIds)
    .groupBy('trace_id');
  const candidates: Array<RootCandidate & { trace_id: string }> = await trx('spans')
    .select('trace_id', 'span_id', 'parent_span_id', 'span_kind', 'span_name', 'service_name', 'unit', 'parent_unit')
    .select({ start: bigintAsText(trx, 'start_time_unix_nano') })
    .where('application_id', applicationId)
    .whereIn('trace_id', traceIds)
    .where((where) => where.whereNull('parent_span_id').orWhere('span_kind', 'SPAN_KIND_SERVER'));
  const candidatesByTrace = groupBy(candidates, (candidate) => candidate.trace_id);
  return aggregates.map((aggregate) =>
    summary(
      applicationId,
      aggregate.trace_id,
      pickRoot(candidatesByTrace.get(aggregate.trace_id) ?? []),
      aggregate.min_start,
      aggregate.max_end,
      Number(aggregate.spans_count),
      Number(aggregate.total_cost ?? 0),
    ),
  );
}

function isRootCandidate(row: SpanRow): boolean {
  return row.parent_span_id === null || row.span_kind === 'SPAN_KIND_SERVER';
}

function rootCandidate(row: SpanRow): RootCandidate {
  const { span_id, parent_span_id, span_kind, span_name, service_name, unit, parent_unit } = row;
  return { span_id, parent_span_id, span_kind, start: row.start_time_unix_nano, span_name, service_name, unit, parent_unit };
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/**
 * Stores the rows of some traces of one application and brings their summaries up to date:
 * summary rows locked and read, spans inserted, then one multi-row upsert of the new summaries.
 * When every row was new (the usual case) the stored summaries are merged with the rows; when
 * some were stored already (an exporter's retry), the summaries are recomputed from the spans.
 */
async function storeTraces(trx: Knex.Transaction, applicationId: string, traceIds: string[], rows: SpanRow[]): Promise<void> {
  const unique = [...new Map(rows.map((row) => [`${row.trace_id}/${row.span_id}`, row])).values()];
  const lock = lockQuery(trx, applicationId, traceIds);
  const read = storedSummariesQuery(trx, applicationId, traceIds);
  let stored: StoredSummary[];
  let inserted: number;
  if (isMysql(trx)) {
    // Lock, read and insert go out at once and the connection runs them in that order: one
    // wait for the client instead of three. Should the lock end in a deadlock, InnoDB rolls the
    // transaction back and the insert behind it commits on its own; the retry then finds those
    // spans stored and recomputes the summaries from the spans, so the end state is the same.
    const connection = await mysqlConnection(trx);
    [, stored, inserted] = await Promise.all([send(connection, lock), send<StoredSummary[]>(connection, read), insertSpansMysql(connection, unique)]);
  } else {
    await lock;
    stored = await read;
    inserted = await insertSpans(trx, unique);
  }
  const summaries = inserted === unique.length ? mergedSummaries(applicationId, stored, unique) : await recomputedSummaries(trx, applicationId, traceIds);
  if (summaries.length > 0) await trx('traces').insert(summaries).onConflict(['application_id', 'trace_id']).merge();
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
 * Stores the spans and brings the summaries of every trace they touch up to date, in one
 * transaction: when this resolves, everything is committed. Lock conflicts retry the whole
 * transaction.
 */
export async function storeSpans(knex: Knex, rows: SpanRow[]): Promise<void> {
  if (rows.length === 0) return;
  const traceIdsByApplication = groupTraceIds(rows);
  const options = isMysql(knex) ? { isolationLevel: 'read committed' as const } : undefined;
  await retryOnLockConflict(() =>
    knex.transaction(async (trx) => {
      for (const [applicationId, traceIds] of traceIdsByApplication) {
        const rowsByTrace = groupBy(
          rows.filter((row) => row.application_id === applicationId),
          (row) => row.trace_id,
        );
        // In sorted chunks: the lock order stays fixed, and no statement outgrows SQLite's
        // 500-term compound inserts or either database's placeholder limit.
        for (let offset = 0; offset < traceIds.length; offset += TRACES_PER_ROUND) {
          const chunk = traceIds.slice(offset, offset + TRACES_PER_ROUND);
          await storeTraces(trx, applicationId, chunk, chunk.flatMap((traceId) => rowsByTrace.get(traceId) ?? []));
        }
      }
    }, options),
  );
}
