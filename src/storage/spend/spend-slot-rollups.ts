// Spend roll-ups per indexed attribute value (table `spend_slot_rollups`, README.md beside this
// file, "Per indexed attribute"): spend_rollups' rows (hour and day widths, the same measures and
// currency rule, the same code: spend-rollups.ts) for an application that indexes attribute keys,
// told apart by slot, generation (the `since` of the key the slot holds), kind of value and kept
// value (as slot_rollups tells them apart: ../spans/rollups/slot-rollups.ts) and spend currency.
// Kept through the derived-data seam: the writer adds each span once per slot in use under the
// generation it wrote the slot with; the purge deletes rows below the purge edge; the rebuild
// recomputes an hour of each ready slot, then its day. The spans stored before a key was indexed
// are added once its backfill is done (fillSlot), hour by hour where this table's hour rows of
// the generation count fewer spans than spend_rollups'.
import type { Knex } from 'knex';
import type { Run } from '../sql/dialect.js';
import { bulkWriteTransaction } from '../transactions.js';
import type { DerivedData } from '../spans/derived/derived-data.js';
import { readySlotsOf } from '../spans/application-span-state.js';
import { INDEXED_SLOT_COUNT, slotColumn, type IndexedSlot } from '../spans/indexed-slots.js';
import { rebuildSlotRollups, slotEntryOfRow, slotKindSql, type SlotEntry, type SlotValueTable } from '../spans/rollups/slot-rollups.js';
import type { SpanRow } from '../spans/span-row.js';
import { HOUR_NS } from './spend-ranges.js';
import {
  deleteSpendBelowEdge,
  deleteSpendHour,
  rebuildSpendDays,
  rebuildSpendHourOf,
  SPEND_CURRENCY_SQL,
  spendCurrencyOf,
  spendDeltasOf,
  spendHeldHours,
  writerSpendUpserts,
  type KeyValues,
  type SpanKeys,
  type SpendDelta,
  type SpendTable,
} from './spend-rollups.js';

export const SPEND_SLOT_ROLLUPS: SpendTable = {
  name: 'spend_slot_rollups',
  columns: ['slot', 'generation', 'value_kind', 'value', 'currency'],
};

/** A span's key values under a slot, as text: the rebuild reads them back as text and hashes them the same. */
function keyValues(slot: IndexedSlot, entry: SlotEntry, currency: string | null): KeyValues {
  return [String(slot.slot), String(slot.generation), String(entry.kind), entry.value, currency];
}

/** The rows that add the spans under each slot in use (slotEntryOfRow: the value the writer filled), in key order. */
export function spendSlotDeltas(spans: readonly SpanRow[], slots: readonly IndexedSlot[]): SpendDelta[] {
  return spendDeltasOf(SPEND_SLOT_ROLLUPS, spans, (span) => {
    const currency = spendCurrencyOf(span);
    return slots.map((slot) => keyValues(slot, slotEntryOfRow(span, slot), currency));
  });
}

/**
 * The key columns over a stored span `s` whose slot is filled for the key (a ready slot): the
 * slot column when set, else whether the JSON holds a value (slotKindSql), as slotEntryOfRow.
 */
export function spendSlotKeys(db: Knex, slot: IndexedSlot): SpanKeys {
  const kind = slotKindSql(db, slot, 's');
  return {
    expressions: [
      String(Math.trunc(slot.slot)),
      String(Math.trunc(slot.generation)),
      kind.sql,
      `COALESCE(s.${slotColumn(slot.slot)}, '')`,
      SPEND_CURRENCY_SQL,
    ],
    bindings: kind.bindings,
  };
}

/** Recomputes the slot's generation's hour rows of one hour from the spans, then the day rows of its day. */
export async function rebuildSpendSlotHour(db: Knex, run: Run, applicationId: string, slot: IndexedSlot, startNs: bigint): Promise<void> {
  const endNs = startNs + HOUR_NS;
  const where = { slot: slot.slot, generation: slot.generation };
  await rebuildSpendHourOf(db, run, SPEND_SLOT_ROLLUPS, { applicationId, startNs, endNs, keys: spendSlotKeys(db, slot), where });
  await rebuildSpendDays(db, run, SPEND_SLOT_ROLLUPS, applicationId, startNs, endNs);
}

/** The table for rebuildSlotRollups: its hours against spend_rollups', each rebuilt in its own transaction. */
export const SPEND_SLOT_VALUES: SlotValueTable = {
  table: SPEND_SLOT_ROLLUPS.name,
  everySpan: 'spend_rollups',
  rebuildHour: (knex, applicationId, slot, startNs) =>
    bulkWriteTransaction(knex, ({ db, run }) => rebuildSpendSlotHour(db, run, applicationId, slot, startNs)),
};

/** The table `spend_slot_rollups` behind the derived-data seam: only for an application that indexes keys. */
export const spendSlotRollups: DerivedData = {
  name: 'spend slot roll-ups',
  async onStored({ fresh, slots }, { db, runNative }) {
    if (slots.length === 0) return;
    for (const statement of writerSpendUpserts(db, SPEND_SLOT_ROLLUPS, spendSlotDeltas(fresh, slots))) await runNative(statement);
  },
  // As spend_rollups, of every generation, also for an application that indexes no key any more;
  // a span has an hour row per slot, so up to INDEXED_SLOT_COUNT rows a span go with its batch.
  async onDeleted({ applicationId, purgedBeforeNs, rowLimit }, { db, run }) {
    await deleteSpendBelowEdge(db, run, SPEND_SLOT_ROLLUPS, applicationId, purgedBeforeNs, rowLimit * INDEXED_SLOT_COUNT);
  },
  // A slot not ready yet has spans whose column is not filled for its key (or still holds an
  // earlier key's value): its hour rows go, and fillSlot recomputes the hour once it is ready.
  async rebuild({ applicationId, startNs, endNs, slots }, { db, run }) {
    if (slots.length === 0) return;
    const ready = await readySlotsOf(db, applicationId, run);
    for (const slot of slots) {
      const where = { slot: slot.slot, generation: slot.generation };
      if (ready.some((candidate) => candidate.slot === slot.slot && candidate.generation === slot.generation))
        await rebuildSpendHourOf(db, run, SPEND_SLOT_ROLLUPS, { applicationId, startNs, endNs, keys: spendSlotKeys(db, slot), where });
      else await deleteSpendHour(db, run, SPEND_SLOT_ROLLUPS, { applicationId, startNs, endNs, where });
    }
    await rebuildSpendDays(db, run, SPEND_SLOT_ROLLUPS, applicationId, startNs, endNs);
  },
  fillSlot: (knex, applicationId, slot) => rebuildSlotRollups(knex, applicationId, slot, SPEND_SLOT_VALUES),
  heldHours: spendHeldHours(SPEND_SLOT_ROLLUPS),
};
