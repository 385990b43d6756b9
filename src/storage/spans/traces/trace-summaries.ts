// The per-trace summaries (table `traces`): what a batch of spans contributes to each of its
// traces, and the statements that merge it into the stored summaries or recompute them from the
// stored spans. The span writer and the retention purge run them inside their transaction,
// through the derived-data seam (traceSummaries below, derived-data.ts).
import type { Knex } from 'knex';
import type { SpanKind, StatusCode } from '../../../span-enums.js';
import { bigintAsText } from '../../database.js';
import type { Run } from '../../sql/dialect.js';
import { dialectFor } from '../../sql/index.js';
import { inPowerOfTwoRuns, RowStatements, type NativeStatement } from '../../sql/row-statements.js';
import type { DerivedData, DerivedStatements, RebuiltHour } from '../derived/derived-data.js';
import { heldHoursOf } from '../derived/held-hours.js';
import { groupBy, type SpanRow } from '../span-row.js';
import { FOLD_STATE } from '../fold/trace-figures.js';
import { takeOutFolded } from '../fold/trace-folding.js';

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

/**
 * Orders two times in nanoseconds, as the canonical decimal strings the mapping and the database
 * write (no sign, no leading zeros): the shorter is smaller, else the text order is the number order.
 */
function compareNanos(left: string, right: string): number {
  if (left.length !== right.length) return left.length - right.length;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Earliest parentless span, else earliest SPAN_KIND_SERVER span; ties broken by span_id. */
function pickRoot(candidates: RootCandidate[]): RootCandidate | undefined {
  const earliest = (spans: RootCandidate[]) =>
    [...spans].sort((a, b) => compareNanos(a.start, b.start) || (a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0))[0];
  const parentless = candidates.filter((span) => span.parent_span_id === null);
  return parentless.length > 0 ? earliest(parentless) : earliest(candidates.filter((span) => span.span_kind === SERVER));
}

export interface Summary {
  application_id: string;
  trace_id: string;
  root_span_id: string | null;
  root_start_time_unix_nano: string | null;
  span_name: string | null;
  service_name: string | null;
  unit: string | null;
  parent_unit: string | null;
  /** The root's place in the root order (see the migration that adds it); null without a root. */
  root_key: string | null;
  min_start_time_unix_nano: string;
  max_end_time_unix_nano: string;
  duration_ms: number;
  spans_count: number;
  total_cost: number;
  /** Spans with status STATUS_CODE_ERROR. */
  error_count: number;
}

const ERROR: StatusCode = 'STATUS_CODE_ERROR';
/** The kind of span that is a trace's root when no span is parentless. */
const SERVER: SpanKind = 'SPAN_KIND_SERVER';

/** Rank, zero-padded start and span_id: ordered as strings exactly as pickRoot orders candidates. */
function rootKey(root: RootCandidate): string {
  return `${root.parent_span_id === null ? '0' : '1'}${root.start.padStart(19, '0')}${root.span_id}`;
}

interface Totals {
  spansCount: number;
  totalCost: number;
  errorCount: number;
}

function summary(
  applicationId: string,
  traceId: string,
  root: RootCandidate | undefined,
  minStart: string,
  maxEnd: string,
  totals: Totals,
): Summary {
  return {
    application_id: applicationId,
    trace_id: traceId,
    root_span_id: root?.span_id ?? null,
    root_start_time_unix_nano: root?.start ?? null,
    span_name: root?.span_name ?? null,
    service_name: root?.service_name ?? null,
    unit: root?.unit ?? null,
    parent_unit: root?.parent_unit ?? null,
    root_key: root ? rootKey(root) : null,
    min_start_time_unix_nano: minStart,
    max_end_time_unix_nano: maxEnd,
    duration_ms: Number(BigInt(maxEnd) - BigInt(minStart)) / 1e6,
    spans_count: totals.spansCount,
    total_cost: totals.totalCost,
    error_count: totals.errorCount,
  };
}

/** The summary of each trace's rows in this batch alone. */
export function batchSummaries(applicationId: string, rowsByTrace: Map<string, SpanRow[]>): Summary[] {
  return [...rowsByTrace].map(([traceId, rows]) => {
    let minStart = rows[0].start_time_unix_nano;
    let maxEnd = rows[0].end_time_unix_nano;
    let totalCost = 0;
    let errorCount = 0;
    for (const row of rows) {
      if (compareNanos(row.start_time_unix_nano, minStart) < 0) minStart = row.start_time_unix_nano;
      if (compareNanos(row.end_time_unix_nano, maxEnd) > 0) maxEnd = row.end_time_unix_nano;
      totalCost += row.cost ?? 0;
      if (row.status_code === ERROR) errorCount += 1;
    }
    const totals = { spansCount: rows.length, totalCost, errorCount };
    return summary(applicationId, traceId, pickRoot(rows.filter(isRootCandidate).map(rootCandidate)), minStart, maxEnd, totals);
  });
}

const ROOT_COLUMNS = ['root_span_id', 'root_start_time_unix_nano', 'span_name', 'service_name', 'unit', 'parent_unit'] as const;

/**
 * Upserts batch summaries of spans that were all new, merging each into the stored summary in
 * the statement itself: counts and costs add up, the time range widens, and the smaller root_key
 * keeps its root. The row lock the upsert takes orders concurrent writers of one trace, and every
 * step is commutative, so no summary needs to be read first. MariaDB/MySQL evaluate the SET list
 * left to right, each assignment seeing the ones before it, where SQLite sees the old row
 * throughout: the order below reads the same under both (root_key, the time range, count and
 * cost are assigned only after everything that reads their old values).
 */
export function mergeQuery(db: Knex, summaries: readonly Summary[]): Knex.QueryBuilder {
  const { insertedValue, greatest, least } = dialectFor(db);
  const incoming = (column: string) => db.raw(insertedValue, [column]);
  const newRootWins = db.raw('? IS NOT NULL AND (?? IS NULL OR ? < ??)', [
    incoming('root_key'),
    'traces.root_key',
    incoming('root_key'),
    'traces.root_key',
  ]);
  const merge: Record<string, Knex.Raw> = {};
  for (const column of [...ROOT_COLUMNS, 'root_key'])
    merge[column] = db.raw('CASE WHEN ? THEN ? ELSE ?? END', [newRootWins, incoming(column), `traces.${column}`]);
  const maxEnd = db.raw(`${greatest}(??, ?)`, ['traces.max_end_time_unix_nano', incoming('max_end_time_unix_nano')]);
  const minStart = db.raw(`${least}(??, ?)`, ['traces.min_start_time_unix_nano', incoming('min_start_time_unix_nano')]);
  merge.duration_ms = db.raw('(? - ?) / 1e6', [maxEnd, minStart]);
  merge.min_start_time_unix_nano = minStart;
  merge.max_end_time_unix_nano = maxEnd;
  merge.spans_count = db.raw('?? + ?', ['traces.spans_count', incoming('spans_count')]);
  merge.total_cost = db.raw('?? + ?', ['traces.total_cost', incoming('total_cost')]);
  merge.error_count = db.raw('?? + ?', ['traces.error_count', incoming('error_count')]);
  // The figures changed: folded again by the next fold (trace-folding.ts).
  merge.folded = db.raw(String(FOLD_STATE.pending));
  return db('traces').insert(summaries).onConflict(['application_id', 'trace_id']).merge(merge);
}

const writerMerges = new RowStatements<Summary>(mergeQuery);

/** mergeQuery for the span writer: its text compiled once per row count (../sql/row-statements.ts). */
export function writerMergeStatement(db: Knex, summaries: Summary[]): NativeStatement {
  return writerMerges.statement(db, summaries);
}

/**
 * Creates the summary rows that do not exist yet and locks them all, in a fixed order, before
 * they are recomputed from the stored spans: concurrent writers of one trace take turns, and
 * each then sees what the others committed (READ COMMITTED on MySQL). ON DUPLICATE KEY UPDATE
 * takes an exclusive lock on an existing row (the no-op update leaves it as it is); SQLite has a
 * single writer anyway.
 */
export function lockQuery(db: Knex, applicationId: string, traceIds: string[]): Knex.QueryBuilder {
  const placeholders = traceIds.map((trace_id) => ({
    application_id: applicationId,
    trace_id,
    min_start_time_unix_nano: 0,
    max_end_time_unix_nano: 0,
    duration_ms: 0,
    spans_count: 0,
    total_cost: 0,
    error_count: 0,
  }));
  return db('traces')
    .insert(placeholders)
    .onConflict(['application_id', 'trace_id'])
    .merge({ spans_count: db.raw('??', ['spans_count']) });
}

/** Per trace, from its stored spans: time range (as text), span count, total cost and error count. */
export function spanAggregatesQuery(db: Knex, applicationId: string, traceIds: string[]): Knex.QueryBuilder {
  return db('spans')
    .select('trace_id')
    .select({ min_start: bigintAsText(db, 'MIN(start_time_unix_nano)'), max_end: bigintAsText(db, 'MAX(end_time_unix_nano)') })
    .count({ spans_count: '*' })
    .select(db.raw('SUM(COALESCE(cost, 0)) AS total_cost'))
    .select(db.raw('SUM(CASE WHEN status_code = ? THEN 1 ELSE 0 END) AS error_count', [ERROR]))
    .where('application_id', applicationId)
    .whereIn('trace_id', traceIds)
    .groupBy('trace_id');
}

/** The stored spans of the traces that can be a root (parentless or SPAN_KIND_SERVER), with what a summary copies of its root. */
export function rootCandidatesQuery(db: Knex, applicationId: string, traceIds: string[]): Knex.QueryBuilder {
  return db('spans')
    .select('trace_id', 'span_id', 'parent_span_id', 'span_kind', 'span_name', 'service_name', 'unit', 'parent_unit')
    .select({ start: bigintAsText(db, 'start_time_unix_nano') })
    .where('application_id', applicationId)
    .whereIn('trace_id', traceIds)
    .where((where) => where.whereNull('parent_span_id').orWhere('span_kind', SERVER));
}

/**
 * The summaries recomputed from every stored span of the traces (after re-sent spans were
 * skipped). The one recomputation of a summary: whatever changed the spans calls this, after
 * lockQuery, and writes the result back.
 */
export async function recomputedSummaries(db: Knex, applicationId: string, traceIds: string[], run: Run): Promise<Summary[]> {
  const aggregates = await run<
    Array<{
      trace_id: string;
      min_start: string;
      max_end: string;
      spans_count: number | string;
      total_cost: number | string | null;
      error_count: number | string | null;
    }>
  >(spanAggregatesQuery(db, applicationId, traceIds));
  const candidates = await run<Array<RootCandidate & { trace_id: string }>>(rootCandidatesQuery(db, applicationId, traceIds));
  const candidatesByTrace = groupBy(candidates, (candidate) => candidate.trace_id);
  return aggregates.map((aggregate) =>
    summary(
      applicationId,
      aggregate.trace_id,
      pickRoot(candidatesByTrace.get(aggregate.trace_id) ?? []),
      aggregate.min_start,
      aggregate.max_end,
      {
        spansCount: Number(aggregate.spans_count),
        totalCost: Number(aggregate.total_cost ?? 0),
        errorCount: Number(aggregate.error_count ?? 0),
      },
    ),
  );
}

/** Traces one lock-and-recompute statement covers: within SQLite's 500-term compound inserts. */
const TRACES_PER_RECOMPUTE = 500;

/**
 * Brings the summaries of the traces up to date from the spans stored now: locks them in trace_id
 * order (see lockQuery), recomputes them from the spans, and deletes those whose trace has no span
 * left. The one recompute path: ingestion of re-sent spans and the retention purger both use it,
 * so every summary column is recomputed the same way.
 */
export async function recomputeSummaries(db: Knex, applicationId: string, traceIds: string[], run: Run): Promise<void> {
  const ordered = [...new Set(traceIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (let offset = 0; offset < ordered.length; offset += TRACES_PER_RECOMPUTE) {
    const chunk = ordered.slice(offset, offset + TRACES_PER_RECOMPUTE);
    await run(lockQuery(db, applicationId, chunk));
    const summaries = await recomputedSummaries(db, applicationId, chunk, run);
    // Pending again: the next fold folds the recomputed figures (trace-folding.ts).
    const rows = summaries.map((summary) => ({ ...summary, folded: FOLD_STATE.pending }));
    if (rows.length > 0) await run(db('traces').insert(rows).onConflict(['application_id', 'trace_id']).merge());
    const kept = new Set(summaries.map((summary) => summary.trace_id));
    const empty = chunk.filter((traceId) => !kept.has(traceId));
    if (empty.length > 0) {
      await takeOutFolded(db, run, applicationId, empty);
      await run(db('traces').where('application_id', applicationId).whereIn('trace_id', empty).del());
    }
  }
}

function isRootCandidate(row: SpanRow): boolean {
  return row.parent_span_id === null || row.span_kind === SERVER;
}

function rootCandidate(row: SpanRow): RootCandidate {
  const { span_id, parent_span_id, span_kind, span_name, service_name, unit, parent_unit } = row;
  return { span_id, parent_span_id, span_kind, start: row.start_time_unix_nano, span_name, service_name, unit, parent_unit };
}

/**
 * Rows per summary merge: within SQLite's 500-term compound inserts, and few enough distinct sizes
 * (powers of two) that each connection prepares a handful of texts.
 */
const SUMMARIES_PER_MERGE = 256;

/**
 * The traces whose summary belongs to the hour: their earliest span starts in it (every summary
 * belongs to one hour). Through traces_by_min_start.
 */
export async function summariesOfHour(
  { applicationId, startNs, endNs }: Omit<RebuiltHour, 'traceIds'>,
  { db, run }: DerivedStatements,
): Promise<string[]> {
  const { exactInteger } = dialectFor(db);
  const rows = await run<Array<{ trace_id: string }>>(
    db('traces')
      .select('trace_id')
      .where('application_id', applicationId)
      .whereRaw(`min_start_time_unix_nano >= ${exactInteger}`, [startNs.toString()])
      .whereRaw(`min_start_time_unix_nano < ${exactInteger}`, [endNs.toString()]),
  );
  return rows.map((row) => row.trace_id);
}

/**
 * The table `traces` behind the derived-data seam: merged per round of a stored batch, recomputed
 * after a purge, and by the rebuild for every trace of the hour (one with a span in it, or whose
 * summary belongs to it) from all its spans, whatever hours they start in.
 */
export const traceSummaries: DerivedData = {
  name: 'trace summaries',
  async onTracesStored({ applicationId, byTrace }, { db, runNative }) {
    for (const summaries of inPowerOfTwoRuns(batchSummaries(applicationId, byTrace), SUMMARIES_PER_MERGE))
      await runNative(writerMergeStatement(db, summaries));
  },
  async onDeleted({ applicationId, traceIds }, { db, run }) {
    await recomputeSummaries(db, applicationId, traceIds, run);
  },
  tracesOfHour: summariesOfHour,
  // Set pending again, or unfiled when gone (recomputeSummaries): the fold stays consistent.
  async rebuild({ applicationId, traceIds }, { db, run }) {
    await recomputeSummaries(db, applicationId, traceIds, run);
  },
  heldHours: (db, applicationId) => heldHoursOf(db, db('traces').where('application_id', applicationId), 'min_start_time_unix_nano'),
};
