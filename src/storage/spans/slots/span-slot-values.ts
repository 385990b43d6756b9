// The table `span_slot_values`: one row per span and slot whose slot column on `spans` holds a
// value (indexed-slots.ts), keyed by the span, with a lookup index by (application, slot, value,
// start). It is the slots' index, kept beside `spans` so that only spans that carry a value pay
// for it: an index on `spans` would hold an entry for every span. It answers how many spans of a
// window hold a value without reading them (a span page's total), and which ones (span-grain
// analytics read the spans it names). A row exists exactly while the span's column holds that value:
// the writer, the purge and the rebuild keep it so through the seam, the backfill as it fills a column.
import type { Knex } from 'knex';
import { fragment, type Run } from '../../sql/dialect.js';
import { dialectFor } from '../../sql/index.js';
import type { DerivedData } from '../derived/derived-data.js';
import { heldHoursOf } from '../derived/held-hours.js';
import { SLOT_NUMBERS, slotColumn, type SlotNumber } from '../indexed-slots.js';
import type { SpanRow } from '../span-row.js';
import { betweenNanos } from '../time-bounds.js';

export const SPAN_SLOT_VALUES = 'span_slot_values';

/** Rows one statement writes or deletes: within SQLite's 500-term compound inserts and its bound-variable limit. */
const ROWS_PER_STATEMENT = 500;

/** A span as the table is keyed by it. */
export interface SpanKey {
  start_time_unix_nano: string;
  trace_id: string;
  span_id: string;
}

/** One row of the table. */
interface SpanSlotValue extends SpanKey {
  application_id: string;
  slot: SlotNumber;
  value: string;
}

/** The rows the spans' slot columns make (every slot: a column holds a value only for a slot in use). */
export function slotValueRows(
  rows: ReadonlyArray<Pick<SpanRow, 'application_id' | keyof SpanKey | `indexed_value_${SlotNumber}`>>,
): SpanSlotValue[] {
  const values: SpanSlotValue[] = [];
  for (const row of rows) {
    for (const slot of SLOT_NUMBERS) {
      const value = row[slotColumn(slot)];
      if (value === null || value === undefined) continue;
      values.push({
        application_id: row.application_id,
        start_time_unix_nano: row.start_time_unix_nano,
        trace_id: row.trace_id,
        span_id: row.span_id,
        slot,
        value,
      });
    }
  }
  return values;
}

async function insertRows(db: Knex, run: Run, rows: SpanSlotValue[]): Promise<void> {
  for (let offset = 0; offset < rows.length; offset += ROWS_PER_STATEMENT)
    await run(db(SPAN_SLOT_VALUES).insert(rows.slice(offset, offset + ROWS_PER_STATEMENT)));
}

/**
 * Deletes the rows of these spans (of one slot, or every slot): one range of the key's
 * (application, start) prefix per statement, narrowed to the spans by their ids.
 */
export async function deleteRowsOf(db: Knex, run: Run, applicationId: string, spans: readonly SpanKey[], slot?: SlotNumber): Promise<void> {
  const dialect = dialectFor(db);
  for (let offset = 0; offset < spans.length; offset += ROWS_PER_STATEMENT) {
    const chunk = spans.slice(offset, offset + ROWS_PER_STATEMENT);
    const starts = chunk.map((span) => BigInt(span.start_time_unix_nano));
    const first = starts.reduce((a, b) => (b < a ? b : a));
    const last = starts.reduce((a, b) => (b > a ? b : a));
    const query = db(SPAN_SLOT_VALUES)
      .where('application_id', applicationId)
      .whereRaw(`start_time_unix_nano >= ${dialect.exactInteger}`, [first.toString()])
      .whereRaw(`start_time_unix_nano <= ${dialect.exactInteger}`, [last.toString()])
      .whereIn(
        ['trace_id', 'span_id'],
        chunk.map((span) => [span.trace_id, span.span_id]),
      );
    if (slot !== undefined) query.where('slot', slot);
    await run(query.del());
  }
}

/** Replaces the rows of these spans in one slot with what their column holds now (the backfill, after filling it). */
export async function refileSlotOf(
  db: Knex,
  run: Run,
  applicationId: string,
  slot: SlotNumber,
  spans: ReadonlyArray<SpanKey & { value: string | null }>,
): Promise<void> {
  await deleteRowsOf(db, run, applicationId, spans, slot);
  const rows = spans.flatMap((span) =>
    span.value === null
      ? []
      : [
          {
            application_id: applicationId,
            start_time_unix_nano: span.start_time_unix_nano,
            trace_id: span.trace_id,
            span_id: span.span_id,
            slot,
            value: span.value,
          },
        ],
  );
  await insertRows(db, run, rows);
}

/** The values one slot's lookup asks for (trace-slot-values.ts, slotValueMatch). */
export interface SpanSlotMatch {
  slot: SlotNumber;
  values: readonly string[];
}

/**
 * The rows of the window's spans holding one of the values (a builder over the table aliased
 * `v`), compared exactly as filter-sql.ts compares a slot column: one range of the lookup index.
 */
export function spanSlotRows(
  knex: Knex,
  window: { applicationId: string; startNs: bigint; endNs: bigint },
  match: SpanSlotMatch,
): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  const values = dialect.textIn(fragment('v.value'), [...match.values], false, true);
  return knex({ v: SPAN_SLOT_VALUES })
    .where('v.application_id', window.applicationId)
    .where('v.slot', match.slot)
    .whereRaw(values.sql, values.bindings)
    .modify(betweenNanos(dialect, 'v.start_time_unix_nano', window.startNs, window.endNs));
}

/**
 * The table behind the derived-data seam: a stored batch's spans add their values, a purged
 * span's rows go with it, and the rebuild refills an hour from the slot columns.
 */
export const spanSlotValues: DerivedData = {
  name: 'span slot values',
  async onStored({ fresh }, { db, run }) {
    await insertRows(db, run, slotValueRows(fresh));
  },
  deletedColumns: () => ['span_id'],
  async onDeleted({ applicationId, spans }, { db, run }) {
    await deleteRowsOf(
      db,
      run,
      applicationId,
      spans.map((span) => ({ start_time_unix_nano: span.start_time_unix_nano, trace_id: span.trace_id, span_id: String(span.span_id) })),
    );
  },
  async rebuild({ applicationId, startNs, endNs }, { db, run }) {
    const dialect = dialectFor(db);
    await run(
      db(SPAN_SLOT_VALUES)
        .where('application_id', applicationId)
        .modify(betweenNanos(dialect, 'start_time_unix_nano', startNs, endNs))
        .del(),
    );
    for (const slot of SLOT_NUMBERS) {
      const column = slotColumn(slot);
      const select = db('spans')
        .select('application_id', 'start_time_unix_nano', 'trace_id', 'span_id', db.raw(`${slot} AS slot`), { value: column })
        .where('application_id', applicationId)
        .modify(betweenNanos(dialect, 'start_time_unix_nano', startNs, endNs))
        .whereNotNull(column);
      // The select's columns in the table's order.
      await run(db(SPAN_SLOT_VALUES).insert(select));
    }
  },
  heldHours: (db, applicationId) => heldHoursOf(db, db(SPAN_SLOT_VALUES).where('application_id', applicationId), 'start_time_unix_nano'),
};
