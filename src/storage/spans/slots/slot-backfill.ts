// The backfill of indexed attribute slots: after an application gives a slot a new key, every
// span it had already stored gets the slot's value (indexed-slots.ts) computed from its
// attribute JSON, in batches along the receive order (spans_by_receipt: application_id, seq).
// Each batch is one short transaction that first locks the application's row and checks that
// its indexed attribute state is still the one the batch was planned from (a PATCH or another
// instance's backfill changes it), then updates the batch's spans and records the progress,
// and, after the last batch, that the slot is ready. So batches are idempotent, instances never
// interleave their progress, and a restart resumes after the last committed batch. The batch's
// rows of span_slot_values (span-slot-values.ts) are replaced with what the column now holds.
import type { Knex } from 'knex';
import { bigintAsText } from '../../database.js';
import { dialectFor } from '../../sql/index.js';
import { bulkWriteTransaction } from '../../transactions.js';
import {
  parseIndexedAttributes,
  serializeIndexedAttributes,
  writtenSlots,
  type IndexedAttributesState,
} from '../../accounts/indexed-attributes.js';
import { SLOT_VALUE_MAX_LENGTH, slotColumn, type IndexedSlot } from '../indexed-slots.js';
import { refileSlotOf, type SpanKey } from './span-slot-values.js';
import { fileStoredValues, spanValuesQuery, type SlotValue } from './trace-slot-values.js';

/** An application with a slot whose backfill is not complete. */
export interface BackfillTarget {
  applicationId: string;
  state: IndexedAttributesState;
}

/** The active applications that have a slot not ready yet (few: a slot is backfilled once per key change). */
export async function listBackfillTargets(knex: Knex): Promise<BackfillTarget[]> {
  const rows = (await knex('applications as a')
    .join('organizations as o', 'o.id', 'a.organization_id')
    .whereNull('a.deleted_at')
    .whereNull('o.deleted_at')
    .whereNotNull('a.indexed_attributes_state')
    .orderBy('a.id')
    .select('a.id', 'a.indexed_attributes_state')) as Array<{ id: string; indexed_attributes_state: string }>;
  return rows
    .map((row) => ({ applicationId: row.id, state: parseIndexedAttributes(row.indexed_attributes_state) }))
    .filter((target) => target.state.slots.some((slot) => slot !== null && !slot.ready));
}

/** The first slot of the state that waits for its backfill and whose change is older than settleMs. */
export function pendingSlot(state: IndexedAttributesState, nowMs: number, settleMs: number): IndexedSlot | undefined {
  return writtenSlots(state).find(({ slot }) => {
    const entry = state.slots[slot - 1];
    return entry !== null && entry !== undefined && !entry.ready && nowMs - entry.since >= settleMs;
  });
}

export type BatchOutcome = 'progressed' | 'ready' | 'superseded';

/**
 * Fills `slot` for the next `limit` spans of the application after the recorded progress;
 * answers 'ready' after the last batch, 'superseded' when the state changed since it was read
 * (nothing written: the caller reads it again).
 */
export async function backfillBatch(knex: Knex, target: BackfillTarget, slot: IndexedSlot, limit: number): Promise<BatchOutcome> {
  const expected = serializeIndexedAttributes(target.state);
  const entry = target.state.slots[slot.slot - 1];
  if (!entry) throw new Error(`slot ${slot.slot} is free`);
  const dialect = dialectFor(knex);
  return bulkWriteTransaction(knex, async ({ db, run }) => {
    const locked = await run<Array<{ indexed_attributes_state: string | null }>>(
      db('applications').where({ id: target.applicationId }).whereNull('deleted_at').select('indexed_attributes_state').forUpdate(),
    );
    if (locked.length !== 1 || locked[0]?.indexed_attributes_state !== expected) return 'superseded';
    const after = entry.after_seq ?? '0';
    // Both statements walk spans_by_receipt (application_id, seq), named so that neither the
    // global seq index (every application's spans) nor the primary key is walked instead.
    const byReceipt = db.raw(dialect.tableThroughIndex('spans', 's', 'spans_by_receipt'));
    // The batch's last seq; none when fewer than `limit` spans are left (the last batch).
    const bound = await run<Array<{ seq: string | number }>>(
      db
        .from(byReceipt)
        .select({ seq: bigintAsText(db, 's.seq') })
        .where('s.application_id', target.applicationId)
        .whereRaw(`s.seq > ${dialect.exactUnsigned}`, [after])
        .orderBy('s.seq')
        .offset(limit - 1)
        .limit(1),
    );
    const last = bound[0] === undefined ? null : String(bound[0].seq);
    const value = dialect.attributeStringUpTo(`s.${slot.source}`, slot.key, SLOT_VALUE_MAX_LENGTH);
    const update = db(byReceipt)
      .where('s.application_id', target.applicationId)
      .whereRaw(`s.seq > ${dialect.exactUnsigned}`, [after])
      .update({ [slotColumn(slot.slot)]: db.raw(value.sql, value.bindings) });
    if (last !== null) update.whereRaw(`s.seq <= ${dialect.exactUnsigned}`, [last]);
    await run(update);
    // The batch's spans' rows of the slot in span_slot_values follow their column.
    const filled = db
      .from(byReceipt)
      .select({ start_time_unix_nano: bigintAsText(db, 's.start_time_unix_nano') }, 's.trace_id', 's.span_id', {
        value: `s.${slotColumn(slot.slot)}`,
      })
      .where('s.application_id', target.applicationId)
      .whereRaw(`s.seq > ${dialect.exactUnsigned}`, [after]);
    if (last !== null) filled.whereRaw(`s.seq <= ${dialect.exactUnsigned}`, [last]);
    await refileSlotOf(db, run, target.applicationId, slot.slot, await run<Array<SpanKey & { value: string | null }>>(filled));
    // The batch's values filed per trace under the slot's generation (trace-slot-values.ts).
    await fileStoredValues(
      db,
      target.applicationId,
      slot,
      await run<SlotValue[]>(spanValuesQuery(db, target.applicationId, slot.slot, after, last)),
      run,
    );
    const slots = target.state.slots.map((candidate, index) =>
      index === slot.slot - 1 && candidate ? { ...candidate, after_seq: last ?? candidate.after_seq, ready: last === null } : candidate,
    );
    const state = serializeIndexedAttributes({ ...target.state, slots });
    await run(db('applications').where({ id: target.applicationId }).update({ indexed_attributes_state: state }));
    return last === null ? 'ready' : 'progressed';
  });
}

/** One application's backfill state as stored now; undefined once the application is deleted. */
export async function readBackfillTarget(knex: Knex, applicationId: string): Promise<BackfillTarget | undefined> {
  const row = (await knex('applications').where({ id: applicationId }).whereNull('deleted_at').first('indexed_attributes_state')) as
    { indexed_attributes_state: string | null } | undefined;
  return row && { applicationId, state: parseIndexedAttributes(row.indexed_attributes_state) };
}
