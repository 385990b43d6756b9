// Deletes expired spans of one application in bounded batches, each in its own short transaction
// that first raises the application's purge edge (../purge-edge.ts) above them, then brings every
// derived structure up to date (derived-structures.ts, through the seam of derived-data.ts). No
// table lock: row locks on the batch's spans, the application's row and the derived rows they
// touch, held for one batch (docs/retention.md).
import type { Knex } from 'knex';
import { bigintAsText, integerBindings } from '../../database.js';
import { dialectFor } from '../../sql/index.js';
import { affectedRows, bulkWriteTransaction, runCompiled } from '../../transactions.js';
import type { IndexedSlot } from '../indexed-slots.js';
import { applicationSpanState } from '../application-span-state.js';
import { raisePurgeEdgeQuery } from '../purge-edge.js';
import { HOUR_NS, hourOf } from '../read-sources.js';
import type { DeletedColumn, DerivedData, DerivedStatements } from '../derived/derived-data.js';
import { DERIVED_STRUCTURES } from '../derived/derived-structures.js';

export interface PurgeBatch {
  applicationId: string;
  /**
   * Spans that started before this time (nanoseconds) go; null: every span of the application
   * goes. The retention purger's cutoffs are whole hours (src/jobs/purger.ts); any is exact.
   */
  beforeNs: bigint | null;
  limit: number;
}

/** An expired span as expiredSpansQuery reads it: its keys and what the derived structures asked for. */
interface ExpiredSpan {
  start: string;
  seq: number | string;
  trace_id: string;
  [column: string]: unknown;
}

/**
 * The edge a batch's deletion needs: its cutoff, or for an application losing every span, the
 * end of the hour of the latest span read (so every hour the batch touches is below it).
 */
export function edgeOfBatch(beforeNs: bigint | null, starts: readonly bigint[]): bigint {
  if (beforeNs !== null) return beforeNs;
  const latest = starts.reduce((a, b) => (b > a ? b : a));
  return (hourOf(latest) + 1n) * HOUR_NS;
}

/** The columns the derived structures need of each expired span, each once, in the structures' order. */
function deletedColumns(knex: Knex, slots: readonly IndexedSlot[], derived: readonly DerivedData[]): DeletedColumn[] {
  const columns = new Set<DeletedColumn>(['seq', 'trace_id']);
  for (const structure of derived) for (const column of structure.deletedColumns?.(knex, slots) ?? []) columns.add(column);
  return [...columns];
}

/**
 * The batch's oldest expired spans, with what the derived structures need to take them out, read
 * along the index on (application_id, start_time_unix_nano): MariaDB/MySQL's clustered primary
 * key, SQLite's spans_newest_first. Locked: a concurrent purger waits, then finds them gone.
 */
export function expiredSpansQuery(
  knex: Knex,
  { applicationId, beforeNs, limit }: PurgeBatch,
  slots: readonly IndexedSlot[] = [],
  derived: readonly DerivedData[] = DERIVED_STRUCTURES,
): Knex.QueryBuilder {
  const query = knex('spans')
    .select({ start: bigintAsText(knex, 'start_time_unix_nano') }, ...deletedColumns(knex, slots, derived))
    .where('application_id', applicationId);
  if (beforeNs !== null) query.whereRaw(`start_time_unix_nano < ${dialectFor(knex).exactInteger}`, [beforeNs.toString()]);
  return dialectFor(knex).lockRows(query.orderBy('start_time_unix_nano').limit(limit));
}

/**
 * Deletes exactly the spans read: the start-time range keeps the statement on the same index
 * range, the seq list leaves alone any span ingested into that range meanwhile (the next batch
 * takes it, with its trace).
 */
export function deleteSpansQuery(knex: Knex, applicationId: string, spans: Array<Pick<ExpiredSpan, 'start' | 'seq'>>): Knex.QueryBuilder {
  const starts = spans.map((span) => BigInt(span.start));
  const first = starts.reduce((a, b) => (b < a ? b : a));
  const last = starts.reduce((a, b) => (b > a ? b : a));
  return knex('spans')
    .where('application_id', applicationId)
    .whereRaw(`start_time_unix_nano >= ${dialectFor(knex).exactInteger}`, [first.toString()])
    .whereRaw(`start_time_unix_nano <= ${dialectFor(knex).exactInteger}`, [last.toString()])
    .whereIn('seq', integerBindings(spans.map((span) => span.seq)))
    .del();
}

/**
 * Deletes one batch and takes its spans out of every derived structure (`derived`, in order), in
 * one transaction, having raised the application's purge edge to the batch's cutoff first (it
 * only grows: a batch below it leaves it where it is). Resolves with the spans this call deleted
 * (another purger may have taken some of them first) and whether more may be left.
 */
export async function purgeBatch(
  knex: Knex,
  batch: PurgeBatch,
  derived: readonly DerivedData[] = DERIVED_STRUCTURES,
): Promise<{ deleted: number; full: boolean }> {
  return bulkWriteTransaction(knex, async (transaction) => {
    const { db, run } = transaction;
    const { slots, edge } = await applicationSpanState(db, batch.applicationId, run);
    const spans = (await run<ExpiredSpan[]>(expiredSpansQuery(db, batch, slots, derived))).map((span) => ({
      ...span,
      start_time_unix_nano: span.start,
    }));
    if (spans.length === 0) return { deleted: 0, full: false };
    // Raised before the deletion, in its transaction: a read sees both or neither.
    const cutoff = edgeOfBatch(
      batch.beforeNs,
      spans.map((span) => BigInt(span.start)),
    );
    if (edge === null || edge < cutoff) await run(raisePurgeEdgeQuery(db, batch.applicationId, cutoff));
    const purgedBeforeNs = edge !== null && edge > cutoff ? edge : cutoff;
    const deleted = affectedRows(await run(deleteSpansQuery(db, batch.applicationId, spans)));
    // The rows read are locked: the delete took exactly them.
    if (deleted !== spans.length) throw new Error(`purge deleted ${deleted} of the ${spans.length} spans it locked`);
    const traceIds = [...new Set(spans.map((span) => span.trace_id))].sort();
    const statements: DerivedStatements = { db, run, runNative: (statement) => runCompiled(transaction, statement) };
    for (const structure of derived)
      await structure.onDeleted?.(
        { applicationId: batch.applicationId, spans, traceIds, slots, purgedBeforeNs, rowLimit: batch.limit },
        statements,
      );
    return { deleted, full: spans.length === batch.limit };
  });
}
