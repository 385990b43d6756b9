// Files trace summaries' figures into trace_figures and trace_histograms (docs/analytics.md,
// "Folded trace figures"), and takes them out again when the purger deletes a trace. A summary
// that changes after it was folded (a late span, a re-sent one, a purge) is set back to pending
// by whoever changes it (trace-summaries.ts), in the same statement; its folded figures stay
// where they were until the next fold replaces them, and the reads treat them as stale
// meanwhile. So the histograms always count exactly the folded figures, and every pending trace
// is found through traces_by_fold_state. A span or error count below 100 gets no row of its own:
// its histogram bin holds that one value (trace-figures.ts, isSoleValueBin), and the trace's
// duration row carries it, so that taking the figures out knows what to take out.
import type { Knex } from 'knex';
import { bigintAsText } from '../../database.js';
import type { Run } from '../../sql/dialect.js';
import { dialectFor } from '../../sql/index.js';
import { inPowerOfTwoRuns, RowStatements } from '../../sql/row-statements.js';
import { bulkWriteTransaction, runCompiled } from '../../transactions.js';
import type { DerivedData } from '../derived/derived-data.js';
import { asText } from '../stored-span.js';
import {
  binOf,
  figureNumber,
  FOLD_STATE,
  HOUR_NS,
  hourOf,
  isSoleValueBin,
  MAX_PENDING,
  originOfBin,
  serviceKeyOf,
  TRACE_FIGURE_TABLE,
  TRACE_FIGURES,
  TRACE_HISTOGRAM_TABLE,
  type SummaryFigures,
  type TraceFigure,
} from './trace-figures.js';

/** A folded figure of one trace: a trace_figures row, or a count its duration row carries. */
export interface FoldedFigure {
  application_id: string;
  trace_id: string;
  figure: number;
  hour: string;
  service_key: string;
  bin: number;
  value: number;
}

/** The columns of a duration row that carry the counts folded without a row of their own (null: the count has its row). */
const CARRIED_COUNTS = [
  [figureNumber('spans_count'), 'small_spans_count'],
  [figureNumber('error_count'), 'small_error_count'],
] as const;

/** A trace_figures row as inserted. */
interface FigureRow extends FoldedFigure {
  small_spans_count: number | null;
  small_error_count: number | null;
}

/** Adds the rows of a trace's folded figures (duration first): a count alone in its bin goes on the duration row instead. */
function addFigureRows(figures: readonly FoldedFigure[], rows: FigureRow[]): void {
  const durationRow: FigureRow = { ...(figures[0] as FoldedFigure), small_spans_count: null, small_error_count: null };
  rows.push(durationRow);
  for (const folded of figures.slice(1)) {
    const carried = CARRIED_COUNTS.find(([figure]) => figure === folded.figure);
    if (carried !== undefined && isSoleValueBin(folded.figure, folded.bin)) durationRow[carried[1]] = folded.value;
    else rows.push({ ...folded, small_spans_count: null, small_error_count: null });
  }
}

/** What one histogram row gains or loses. */
interface HistogramDelta {
  application_id: string;
  hour: string;
  service_key: string;
  figure: number;
  bin: number;
  trace_count: number;
  value_sum: number;
  value_sum_sq: number;
  value_low: number | null;
  value_high: number | null;
}

/** The figures of a trace as folded: none without a root; undefined when its service is too long to key. */
function foldedFigures(applicationId: string, trace: SummaryFigures): FoldedFigure[] | undefined {
  if (trace.root_start === null) return [];
  const serviceKey = serviceKeyOf(trace.service_name);
  if (serviceKey === undefined) return undefined;
  const hour = hourOf(BigInt(trace.root_start)).toString();
  return TRACE_FIGURES.map((figure: TraceFigure, number) => {
    const value = Number(trace[figure]);
    return {
      application_id: applicationId,
      trace_id: trace.trace_id,
      figure: number,
      hour,
      service_key: serviceKey,
      bin: binOf(value),
      value,
    };
  });
}

/** Orders histogram rows by their key: hour (whole numbers as decimal text), service, figure, bin. */
function byHistogramKey(a: HistogramDelta, b: HistogramDelta): number {
  return (
    compareDecimal(a.hour, b.hour) ||
    (a.service_key < b.service_key ? -1 : a.service_key > b.service_key ? 1 : 0) ||
    a.figure - b.figure ||
    a.bin - b.bin
  );
}

function compareDecimal(a: string, b: string): number {
  if (a === b) return 0;
  const aNegative = a.startsWith('-');
  if (aNegative !== b.startsWith('-')) return aNegative ? -1 : 1;
  const magnitude = a.length !== b.length ? a.length - b.length : a < b ? -1 : 1;
  return aNegative ? -magnitude : magnitude;
}

/** The histogram rows the figures add to (sign 1) or take from (-1), in key order (fewer lock waits between folds). */
function histogramDeltas(figures: FoldedFigure[], sign: 1 | -1): HistogramDelta[] {
  const deltas = new Map<string, HistogramDelta>();
  for (const folded of figures) {
    // The service key last: the one part that may hold a '/'.
    const id = `${folded.hour}/${folded.figure}/${folded.bin}/${folded.service_key}`;
    const delta = deltas.get(id) ?? {
      application_id: folded.application_id,
      hour: folded.hour,
      service_key: folded.service_key,
      figure: folded.figure,
      bin: folded.bin,
      trace_count: 0,
      value_sum: 0,
      value_sum_sq: 0,
      // Taking values away never narrows the bounds (they only widen): null leaves them as they are.
      value_low: sign > 0 ? folded.value : null,
      value_high: sign > 0 ? folded.value : null,
    };
    const deviation = folded.value - originOfBin(folded.bin);
    delta.trace_count += sign;
    delta.value_sum += sign * deviation;
    delta.value_sum_sq += sign * deviation * deviation;
    if (sign > 0) {
      delta.value_low = Math.min(delta.value_low as number, folded.value);
      delta.value_high = Math.max(delta.value_high as number, folded.value);
    }
    deltas.set(id, delta);
  }
  return [...deltas.values()].sort(byHistogramKey);
}

const HISTOGRAM_KEY = ['application_id', 'hour', 'service_key', 'figure', 'bin'];
/** Rows per multi-row statement: within SQLite's 500-term compound inserts and the placeholder limits. */
const ROWS_PER_STATEMENT = 400;
/** Trace ids per IN list. */
const IDS_PER_STATEMENT = 500;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let offset = 0; offset < items.length; offset += size) out.push(items.slice(offset, offset + size));
  return out;
}

/** The upsert that adds the deltas to the histogram rows: counts and sums add up, the bounds only widen. */
function histogramUpsert(db: Knex, deltas: readonly HistogramDelta[]): Knex.QueryBuilder {
  const { insertedValue, greatest, least } = dialectFor(db);
  const incoming = (column: string) => db.raw(insertedValue, [column]);
  const old = (column: string) => `${TRACE_HISTOGRAM_TABLE}.${column}`;
  const merge: Record<string, Knex.Raw> = {};
  for (const column of ['trace_count', 'value_sum', 'value_sum_sq']) merge[column] = db.raw('?? + ?', [old(column), incoming(column)]);
  for (const [column, pick] of [
    ['value_low', least],
    ['value_high', greatest],
  ] as const) {
    merge[column] = db.raw(`COALESCE(${pick}(??, ?), ??, ?)`, [old(column), incoming(column), old(column), incoming(column)]);
  }
  return db(TRACE_HISTOGRAM_TABLE).insert(deltas).onConflict(HISTOGRAM_KEY).merge(merge);
}

/**
 * The fold's own multi-row statements, compiled once per row count and run prepared
 * (../sql/row-statements.ts), in runs of powers of two up to COMPILED_ROWS: each connection
 * prepares a handful of texts per table.
 */
const foldedInserts = new RowStatements<FigureRow>((db, rows) => db(TRACE_FIGURE_TABLE).insert(rows));
const histogramUpserts = new RowStatements<HistogramDelta>(histogramUpsert);
const COMPILED_ROWS = 256;

/** Adds the deltas to the histograms, then deletes the rows they left with no trace. */
async function applyHistogramDeltas(db: Knex, run: Run, deltas: HistogramDelta[]): Promise<void> {
  for (const chunk of chunks(deltas, ROWS_PER_STATEMENT)) await run(histogramUpsert(db, chunk));
  const emptied = deltas.filter((delta) => delta.trace_count < 0);
  for (const chunk of chunks(emptied, ROWS_PER_STATEMENT)) {
    const { exactInteger } = dialectFor(db);
    const tuples = chunk.map(() => `(hour = ${exactInteger} AND service_key = ? AND figure = ? AND bin = ?)`).join(' OR ');
    const bindings = chunk.flatMap((delta) => [delta.hour, delta.service_key, delta.figure, delta.bin]);
    await run(
      db(TRACE_HISTOGRAM_TABLE)
        .where('application_id', (chunk[0] as HistogramDelta).application_id)
        .whereRaw(`(${tuples})`, bindings)
        .where('trace_count', '<=', 0)
        .del(),
    );
  }
}

/** The folded figures of the traces: their trace_figures rows, and the counts their duration rows carry. */
export async function readFolded(db: Knex, run: Run, applicationId: string, traceIds: string[]): Promise<FoldedFigure[]> {
  const rows: FoldedFigure[] = [];
  for (const chunk of chunks(traceIds, IDS_PER_STATEMENT)) {
    const found = await run<Array<Omit<FigureRow, 'application_id'>>>(
      db(TRACE_FIGURE_TABLE)
        .select(
          'trace_id',
          'figure',
          { hour: bigintAsText(db, 'hour') },
          'service_key',
          'bin',
          'value',
          ...CARRIED_COUNTS.map(([, column]) => column),
        )
        .where('application_id', applicationId)
        .whereIn('trace_id', chunk),
    );
    for (const row of found) {
      const folded: FoldedFigure = {
        application_id: applicationId,
        trace_id: row.trace_id,
        figure: Number(row.figure),
        hour: row.hour,
        service_key: asText(row.service_key),
        bin: Number(row.bin),
        value: Number(row.value),
      };
      rows.push(folded);
      for (const [figure, column] of CARRIED_COUNTS) {
        const carried = row[column];
        if (carried !== null) rows.push({ ...folded, figure, bin: binOf(Number(carried)), value: Number(carried) });
      }
    }
  }
  return rows;
}

/**
 * Takes the traces' folded figures out of trace_figures and the histograms, in the caller's
 * transaction: before a fold folds them anew, and when the purger deletes their summaries (a
 * deleted summary is no longer pending, so no read would find its figures stale).
 */
export async function takeOutFolded(db: Knex, run: Run, applicationId: string, traceIds: string[]): Promise<void> {
  const folded = await readFolded(db, run, applicationId, traceIds);
  if (folded.length === 0) return;
  const foldedTraces = [...new Set(folded.map((row) => row.trace_id))];
  for (const chunk of chunks(foldedTraces, IDS_PER_STATEMENT))
    await run(db(TRACE_FIGURE_TABLE).where('application_id', applicationId).whereIn('trace_id', chunk).del());
  await applyHistogramDeltas(db, run, histogramDeltas(folded, -1));
}

/**
 * Files the pending traces the narrowing picks, as they are now, in one transaction: the pending
 * summaries are read locked (a writer changing one waits, then sets it pending again), their
 * earlier figures are taken out, the current ones folded, and they are marked folded (or
 * unfoldable: a root service too long to key). Resolves with the traces read.
 */
async function foldPending(knex: Knex, applicationId: string, narrow: (query: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
  return bulkWriteTransaction(knex, async (transaction) => {
    const { db, run } = transaction;
    const pending = await run<SummaryFigures[]>(
      dialectFor(db).lockRows(
        narrow(
          db('traces')
            .select(
              'trace_id',
              { root_start: bigintAsText(db, 'root_start_time_unix_nano') },
              'service_name',
              'duration_ms',
              'total_cost',
              'spans_count',
              'error_count',
            )
            .where({ application_id: applicationId, folded: FOLD_STATE.pending }),
        ),
      ),
    );
    if (pending.length === 0) return 0;
    const traceIds = pending.map((trace) => trace.trace_id);
    await takeOutFolded(db, run, applicationId, traceIds);
    const folded: FoldedFigure[] = [];
    const figureRows: FigureRow[] = [];
    const unfoldable: string[] = [];
    for (const trace of pending) {
      const figures = foldedFigures(applicationId, trace);
      if (figures === undefined) unfoldable.push(trace.trace_id);
      else if (figures.length > 0) {
        folded.push(...figures);
        addFigureRows(figures, figureRows);
      }
    }
    for (const rows of inPowerOfTwoRuns(figureRows, COMPILED_ROWS)) await runCompiled(transaction, foldedInserts.statement(db, rows));
    // Adding leaves no histogram row empty: nothing to delete after.
    for (const rows of inPowerOfTwoRuns(histogramDeltas(folded, 1), COMPILED_ROWS))
      await runCompiled(transaction, histogramUpserts.statement(db, rows));
    const unfoldableSet = new Set(unfoldable);
    const nowFolded = traceIds.filter((id) => !unfoldableSet.has(id));
    for (const [state, ids] of [
      [FOLD_STATE.folded, nowFolded],
      [FOLD_STATE.unfoldable, unfoldable],
    ] as const) {
      for (const chunk of chunks(ids, IDS_PER_STATEMENT))
        await run(db('traces').where('application_id', applicationId).whereIn('trace_id', chunk).update({ folded: state }));
    }
    return pending.length;
  });
}

/** Files up to `limit` pending traces of the application (foldPending). */
export async function foldBatch(knex: Knex, applicationId: string, limit: number): Promise<number> {
  return foldPending(knex, applicationId, (query) => query.limit(limit));
}

/**
 * Pending trace ids read per walk of traces_by_fold_state. InnoDB keeps the index entries of the
 * traces a batch just folded (delete-marked) until its purge runs, and every walk passes them again:
 * one walk per batch made a large backlog cost quadratically many index reads (measured: 560,000
 * entries read to fold 32,000 traces in batches of 1,000; BENCHMARKS.md, "Trace fold figures",
 * commit 5f86987).
 */
const PENDING_IDS_PER_WALK = 10_000;

/**
 * A backlog smaller than this waits while ingestion is busy: half of what a read takes in itself
 * (MAX_PENDING), so that the spans arriving until the fold looks again (TraceFolder) keep the
 * reads on the folded figures.
 */
export const GIVE_WAY_BELOW = MAX_PENDING / 2;

export interface FoldOptions {
  /** Checked between batches: true ends the fold there. */
  shouldStop?: () => boolean;
  /** Whether ingestion is storing spans now: a backlog under GIVE_WAY_BELOW is left for later meanwhile. */
  ingestBusy?: () => boolean;
}

/**
 * Folds the application's pending traces until none is left (or `shouldStop`): up to
 * PENDING_IDS_PER_WALK ids read at a time, then folded `batchSize` at a time by id (a trace folded
 * meanwhile by another instance is no longer pending, and skipped). While `ingestBusy`, a walk
 * that found fewer than GIVE_WAY_BELOW ids stops before its next batch, and one that found more
 * folds them and stops after: a burst is stored at the writer's pace and folded after it, and
 * the backlog stays within what the reads take in. Resolves with the traces folded.
 */
export async function foldApplication(
  knex: Knex,
  applicationId: string,
  batchSize: number,
  { shouldStop = () => false, ingestBusy = () => false }: FoldOptions = {},
): Promise<number> {
  let folded = 0;
  while (!shouldStop()) {
    const rows = (await knex('traces')
      .select('trace_id')
      .where({ application_id: applicationId, folded: FOLD_STATE.pending })
      .limit(PENDING_IDS_PER_WALK)) as Array<{ trace_id: string }>;
    const small = rows.length < GIVE_WAY_BELOW;
    for (const chunk of chunks(
      rows.map((row) => row.trace_id),
      batchSize,
    )) {
      if (shouldStop() || (small && ingestBusy())) return folded;
      folded += await foldPending(knex, applicationId, (query) => query.whereIn('trace_id', chunk));
    }
    if (rows.length < PENDING_IDS_PER_WALK || ingestBusy()) break;
  }
  return folded;
}

/** The applications with a pending trace (one index probe each). */
export async function applicationsWithPendingTraces(knex: Knex): Promise<string[]> {
  const applications = (await knex('applications').select('id').orderBy('id')) as Array<{ id: string }>;
  const pending: string[] = [];
  for (const { id } of applications) {
    const [row] = (await knex('traces').select('trace_id').where({ application_id: id, folded: FOLD_STATE.pending }).limit(1)) as unknown[];
    if (row !== undefined) pending.push(id);
  }
  return pending;
}

/**
 * The fold behind the derived-data seam, for the rebuild only (the fold job folds, the writer and
 * the purger set summaries pending): the hour's folded figures and histogram rows (those of roots
 * starting in it) are deleted and every summary rooted in it is set pending, so the next folds
 * fold them anew. After the summaries' rebuild in the same transaction (which sets the rebuilt
 * ones pending and takes out the figures of the traces gone), figures of traces whose summary vanished otherwise
 * go too. The summaries of the hour are locked first (the UPDATE), as a fold batch locks them.
 */
export const traceFold: DerivedData = {
  name: 'trace fold',
  async rebuild({ applicationId, startNs, endNs }, { db, run }) {
    const { exactInteger } = dialectFor(db);
    await run(
      db('traces')
        .where({ application_id: applicationId, folded: FOLD_STATE.folded })
        .whereRaw(`root_start_time_unix_nano >= ${exactInteger}`, [startNs.toString()])
        .whereRaw(`root_start_time_unix_nano < ${exactInteger}`, [endNs.toString()])
        .update({ folded: FOLD_STATE.pending }),
    );
    const hour = hourOf(startNs).toString();
    await run(
      db(TRACE_FIGURE_TABLE)
        .where('application_id', applicationId)
        // Every figure: the index's second column.
        .whereIn(
          'figure',
          TRACE_FIGURES.map((_, number) => number),
        )
        .whereRaw(`hour = ${exactInteger}`, [hour])
        .del(),
    );
    await run(db(TRACE_HISTOGRAM_TABLE).where('application_id', applicationId).whereRaw(`hour = ${exactInteger}`, [hour]).del());
  },
  async heldHours(db, applicationId) {
    const rows = (await db(TRACE_HISTOGRAM_TABLE)
      .where('application_id', applicationId)
      .select({ first: bigintAsText(db, 'MIN(hour)'), last: bigintAsText(db, 'MAX(hour)') })) as Array<{
      first: string | null;
      last: string | null;
    }>;
    const [row] = rows;
    if (row?.first === null || row?.first === undefined || row.last === null) return undefined;
    return { firstNs: BigInt(row.first) * HOUR_NS, lastNs: BigInt(row.last) * HOUR_NS };
  },
};
