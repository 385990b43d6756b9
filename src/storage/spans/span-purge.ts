// Deletes expired spans of one application in bounded batches, each in its own short transaction
// that also brings the touched traces' summaries, slot values and roll-ups up to date. No table lock: row locks
// on the batch's spans, its traces' summaries and its roll-up rows, held for one batch
// (docs/retention.md).
import type { Knex } from 'knex';
import { bigintAsText, integerBindings } from '../database.js';
import { dialectFor } from '../sql/index.js';
import { bulkWriteTransaction } from '../transactions.js';
import { emptyRollupsQueries, addRollupsQuery, rollupDeltas, ROLLUP_DIMENSIONS, type RollupSpan } from './span-rollups.js';
import { recomputeSummaries } from './trace-summaries.js';
import { afterSpansDeleted } from './trace-slot-values.js';
import { parseIndexedAttributes, writtenSlots } from '../accounts/indexed-attributes.js';
import { slotColumn, type IndexedSlot } from './indexed-slots.js';
import { addSlotRollupsQueries, emptySlotRollupsQueries, slotKindSql, slotRollupDeltas, type SlotEntry, type ValueKind } from './slot-rollups.js';

export interface PurgeBatch {
  applicationId: string;
  /** Spans that started before this time (nanoseconds) go; null: every span of the application goes. */
  beforeNs: bigint | null;
  limit: number;
}

interface ExpiredSpan extends RollupSpan {
  start: string;
  seq: number | string;
  trace_id: string;
  [slotColumn: `value_${number}` | `kind_${number}`]: string | number | null;
}

/** An expired span's value for a slot, as expiredSpansQuery read it. */
function slotEntryOfExpired(span: ExpiredSpan, slot: IndexedSlot): SlotEntry {
  return { kind: Number(span[`kind_${slot.slot}`]) as ValueKind, value: (span[`value_${slot.slot}`] as string | null) ?? '' };
}

/** The application's slots in use: the purged spans are taken out of their generations' slot_rollups. */
async function slotsInUse(db: Knex, applicationId: string, run: (query: Knex.QueryBuilder) => Promise<unknown>): Promise<IndexedSlot[]> {
  const rows = (await run(db('applications').where({ id: applicationId }).select('indexed_attributes_state'))) as Array<{ indexed_attributes_state: string | null }>;
  return writtenSlots(parseIndexedAttributes(rows[0]?.indexed_attributes_state));
}

/**
 * The batch's oldest expired spans, with what their roll-ups hold, read along the index on
 * (application_id, start_time_unix_nano): MariaDB/MySQL's clustered primary key, SQLite's
 * spans_newest_first. Locked: a concurrent purger waits, then finds them gone.
 */
export function expiredSpansQuery(knex: Knex, { applicationId, beforeNs, limit }: PurgeBatch, slots: readonly IndexedSlot[] = []): Knex.QueryBuilder {
  const query = knex('spans')
    .select({ start: bigintAsText(knex, 'start_time_unix_nano') }, 'seq', 'trace_id', 'application_id', 'duration_ms', 'cost', 'usage_amount', ...ROLLUP_DIMENSIONS)
    .where('application_id', applicationId);
  // Each slot's value and kind, for slot_rollups (slot-rollups.ts).
  for (const slot of slots) {
    const kind = slotKindSql(knex, slot, 'spans');
    query.select(`${slotColumn(slot.slot)} as value_${slot.slot}`, knex.raw(`${kind.sql} AS kind_${slot.slot}`, kind.bindings));
  }
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

function affectedRows(result: unknown): number {
  if (typeof result === 'number') return result;
  return Number((result as { affectedRows?: number } | null)?.affectedRows ?? 0);
}

/**
 * Deletes one batch, recomputes its traces' summaries and takes its spans out of the roll-ups, in
 * one transaction. Resolves with the spans this call deleted (another purger may have taken some
 * of them first) and whether more may be left.
 */
export async function purgeBatch(knex: Knex, batch: PurgeBatch): Promise<{ deleted: number; full: boolean }> {
  return bulkWriteTransaction(knex, async ({ db, run }) => {
    const slots = await slotsInUse(db, batch.applicationId, run);
    const spans = (await run<ExpiredSpan[]>(expiredSpansQuery(db, batch, slots))).map((span) => ({ ...span, start_time_unix_nano: span.start }));
    if (spans.length === 0) return { deleted: 0, full: false };
    const deleted = affectedRows(await run(deleteSpansQuery(db, batch.applicationId, spans)));
    // The rows read are locked: the delete took exactly them.
    if (deleted !== spans.length) throw new Error(`purge deleted ${deleted} of the ${spans.length} spans it locked`);
    const traceIds = [...new Set(spans.map((span) => span.trace_id))].sort();
    await recomputeSummaries(db, batch.applicationId, traceIds, run);
    await afterSpansDeleted(db, batch.applicationId, traceIds, run);
    const deltas = rollupDeltas(spans, -1);
    for (const statement of [...addRollupsQuery(db, deltas), ...emptyRollupsQueries(db, deltas)]) await run(statement);
    if (slots.length > 0) {
      const slotDeltas = slotRollupDeltas(spans, slots, slotEntryOfExpired, -1);
      for (const statement of [...addSlotRollupsQueries(db, slotDeltas), ...emptySlotRollupsQueries(db, slotDeltas)]) await run(statement);
    }
    return { deleted, full: spans.length === batch.limit };
  });
}
