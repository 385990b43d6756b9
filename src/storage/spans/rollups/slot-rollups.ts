// Roll-ups per indexed attribute slot value (table `slot_rollups`, docs/analytics.md, "Roll-ups
// per indexed attribute"): per application, minute and hour of start time, slot, generation (the
// `since` of the key the slot holds) and value, the same measures as span_rollups
// (span-rollups.ts). Analytics grouped by an indexed key read them (slot-rollup-reads.ts).
//
// Every span counts under each slot in use as one of three kinds of value: the string the slot
// keeps (KEPT, with that value), no value (ABSENT: the attribute is missing or JSON null, whose
// text form is NULL), or a value the slot does not keep (UNKEPT: a number, a boolean, an array
// or object, a string too long for the slot). An UNKEPT value's text form is not in the table, so
// a bucket holding one is not answered from it.
//
// The span writer adds the spans it stores under the generations it wrote their slots with, in
// the same transaction; the retention purge subtracts nothing and deletes the rows below the
// application's purge edge, as for span_rollups. Spans stored before a key was indexed (or before
// this table) are added by rebuildSlotRollups once their slot is filled (the backfill, the
// migration): per hour, the generation's rows of the hour are recomputed from the spans. A bucket
// is read from the table only when it starts at or above the purge edge, its rows of the
// generation count as many spans as span_rollups' rows of the bucket (every span of it is counted
// under the generation) and none is UNKEPT.
import type { Knex } from 'knex';
import { bigintAsText } from '../../database.js';
import type { Run } from '../../sql/dialect.js';
import { dialectFor } from '../../sql/index.js';
import { RowStatements, type NativeStatement } from '../../sql/row-statements.js';
import { bulkWriteTransaction } from '../../transactions.js';
import type { DerivedData } from '../derived/derived-data.js';
import { heldHoursOf } from '../derived/held-hours.js';
import { slotColumn, type IndexedSlot } from '../indexed-slots.js';
import { readySlotsOf } from '../application-span-state.js';
import { atOrAfterEdge, purgeEdgeOf } from '../purge-edge.js';
import { HOUR_NS } from '../read-sources.js';
import {
  accumulate,
  bucketStartSeconds,
  bucketStartSql,
  deleteBelowEdge,
  emptyTotals,
  figureColumns,
  figureAggregates,
  mergeRollupsQueries,
  mergeRollupsQuery,
  MEASURE_COLUMNS,
  nanosText,
  paddedRuns,
  ROLLUP_WIDTHS_S,
  secondsOf,
  WIDTHS_NS,
  type FigureSpan,
  type FigureTotals,
} from './span-rollups.js';
import type { SpanRow } from '../span-row.js';

export const SLOT_ROLLUPS = 'slot_rollups';

/** The kinds of value a span has for a slot (column value_kind). */
export const VALUE_ABSENT = 0;
export const VALUE_KEPT = 1;
export const VALUE_UNKEPT = 2;
export type ValueKind = typeof VALUE_ABSENT | typeof VALUE_KEPT | typeof VALUE_UNKEPT;

/** A span's value for one slot: its kind, and the kept string ('' unless KEPT). */
export interface SlotEntry {
  kind: ValueKind;
  value: string;
}

const KEY = ['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'slot', 'generation', 'value_kind', 'value'];

/**
 * A stored row's value for a slot, as the writer holds it: the slot column, else whether the
 * attribute JSON holds the key with a non-null value. The JSON is parsed only when it may hold
 * the key (it contains the key's text or an escape that could spell it).
 */
export function slotEntryOfRow(row: SpanRow, slot: IndexedSlot): SlotEntry {
  const kept = row[slotColumn(slot.slot)];
  if (kept !== null && kept !== undefined) return { kind: VALUE_KEPT, value: kept };
  const json = row[slot.source];
  if (json === null || json === undefined || (!json.includes(slot.key) && !json.includes('\\'))) return { kind: VALUE_ABSENT, value: '' };
  const map = JSON.parse(json) as Record<string, unknown>;
  const present = Object.hasOwn(map, slot.key) && map[slot.key] !== null;
  return { kind: present ? VALUE_UNKEPT : VALUE_ABSENT, value: '' };
}

export interface SlotRollupSpan extends FigureSpan {
  application_id: string;
  start_time_unix_nano: string;
}

interface Accumulator extends FigureTotals {
  row: Record<string, string | number>;
}

/** The slot_rollups rows that add the spans under each slot's generation, in key order (a fixed lock order for concurrent writers). */
export function slotRollupDeltas<S extends SlotRollupSpan>(
  spans: readonly S[],
  slots: readonly IndexedSlot[],
  entryOf: (span: S, slot: IndexedSlot) => SlotEntry,
): Array<Record<string, unknown>> {
  const accumulators = new Map<string, Accumulator>();
  for (const span of spans) {
    const seconds = secondsOf(String(span.start_time_unix_nano));
    for (const slot of slots) {
      const { kind, value } = entryOf(span, slot);
      for (const widthS of ROLLUP_WIDTHS_S) {
        const start = nanosText(bucketStartSeconds(seconds, widthS));
        const id = JSON.stringify([span.application_id, widthS, start, slot.slot, slot.generation, kind, value]);
        let accumulator = accumulators.get(id);
        if (accumulator === undefined) {
          const row = {
            application_id: span.application_id,
            bucket_width_s: widthS,
            bucket_start_unix_nano: start,
            slot: slot.slot,
            generation: slot.generation,
            value_kind: kind,
            value,
          };
          accumulator = { row, ...emptyTotals() };
          accumulators.set(id, accumulator);
        }
        accumulate(accumulator, span);
      }
    }
  }
  return [...accumulators.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, accumulator]) => ({ ...accumulator.row, ...figureColumns(accumulator) }));
}

/** Upserts that add the deltas to the stored rows (counts and sums add up, extremes widen). */
export function addSlotRollupsQueries(db: Knex, deltas: ReadonlyArray<Record<string, unknown>>): Knex.QueryBuilder[] {
  return mergeRollupsQueries(db, SLOT_ROLLUPS, KEY, deltas);
}

const writerUpserts = new RowStatements<Record<string, unknown>>((db, rows) => mergeRollupsQuery(db, SLOT_ROLLUPS, KEY, rows));

/** The span writer's upserts of the deltas (addSlotRollupsQueries' statements, sized as span-rollups.ts paddedRuns sizes them). */
export function writerSlotRollupUpserts(db: Knex, deltas: ReadonlyArray<Record<string, unknown>>): NativeStatement[] {
  return paddedRuns(deltas).map((run) => writerUpserts.statement(db, run));
}

/** A slot's kind of value as an expression over spans `alias` (the rebuild's reading). */
export function slotKindSql(db: Knex, slot: IndexedSlot, alias: string): { sql: string; bindings: Knex.Value[] } {
  const text = dialectFor(db).attributeText(`${alias}.${slot.source}`, slot.key);
  return {
    sql: `CASE WHEN ${alias}.${slotColumn(slot.slot)} IS NOT NULL THEN ${VALUE_KEPT} WHEN ${text.sql} IS NULL THEN ${VALUE_ABSENT} ELSE ${VALUE_UNKEPT} END`,
    bindings: text.bindings,
  };
}

const HOUR_S = 3600;

/** Per hour bucket of the application, the span count of one table's rows (filtered by `where`). */
async function hourCounts(knex: Knex, table: string, where: Record<string, string | number>): Promise<Map<string, number>> {
  const rows = (await knex(table)
    .where({ ...where, bucket_width_s: HOUR_S })
    .groupBy('bucket_start_unix_nano')
    .select({ b: bigintAsText(knex, 'bucket_start_unix_nano') }, knex.raw('SUM(span_count) AS n'))) as Array<{
    b: string;
    n: number | string;
  }>;
  return new Map(rows.map((row) => [String(row.b), Number(row.n)]));
}

/**
 * A table of rows per slot value (slot_rollups, and spend_slot_rollups in src/storage/spend/):
 * rebuildSlotRollups fills a slot's generation in it once the slot's backfill is done.
 */
export interface SlotValueTable {
  /** The table: hour rows (bucket_width_s 3600) with span_count, per slot and generation. */
  table: string;
  /** The table whose hour rows count every span of the application (span_count). */
  everySpan: string;
  /** Recomputes the slot's generation's rows of one hour from the spans, in its own transaction. */
  rebuildHour(knex: Knex, applicationId: string, slot: IndexedSlot, hourStartNs: bigint): Promise<void>;
}

/**
 * The hours whose rows of the slot's generation do not count every span of the hour (those to
 * rebuild), oldest first. Both counts from one snapshot (a writer adds to both tables in one
 * transaction), unless `snapshot` is false (the migration, where no writer runs).
 */
export async function hoursToRebuild(
  knex: Knex,
  applicationId: string,
  slot: IndexedSlot,
  snapshot = true,
  of: SlotValueTable = slotRollupTable,
): Promise<bigint[]> {
  const read = async (db: Knex) => [
    await hourCounts(db, of.everySpan, { application_id: applicationId }),
    await hourCounts(db, of.table, { application_id: applicationId, slot: slot.slot, generation: slot.generation }),
  ];
  const [spans, counted] = (snapshot ? await knex.transaction(read, dialectFor(knex).snapshot) : await read(knex)) as [
    Map<string, number>,
    Map<string, number>,
  ];
  const hours = new Set([...spans.keys(), ...counted.keys()]);
  return [...hours]
    .filter((hour) => (spans.get(hour) ?? 0) !== (counted.get(hour) ?? 0))
    .map((hour) => BigInt(hour))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Deletes the slot's generation's rows of one hour: the hour's bucket and its minutes. */
async function deleteHourRows(db: Knex, run: Run, applicationId: string, slot: IndexedSlot, hourStartNs: bigint): Promise<void> {
  const { exactInteger } = dialectFor(db);
  await run(
    db(SLOT_ROLLUPS)
      .where({ application_id: applicationId, slot: slot.slot, generation: slot.generation })
      .whereIn(
        'bucket_width_s',
        WIDTHS_NS.map(([widthS]) => widthS),
      )
      .whereRaw(`bucket_start_unix_nano >= ${exactInteger}`, [hourStartNs.toString()])
      .whereRaw(`bucket_start_unix_nano < ${exactInteger}`, [(hourStartNs + HOUR_NS).toString()])
      .del(),
  );
}

/**
 * The statements that recompute the slot's generation's rows of one hour (the hour's bucket and
 * its minutes) from the spans: the rows are deleted, then computed by one INSERT … SELECT per
 * width whose rows replace any that a writer committed in between (their spans are in the
 * SELECT's view then); a writer committing later adds its spans on top, as always.
 */
export async function rebuildHourStatements(
  db: Knex,
  run: Run,
  applicationId: string,
  slot: IndexedSlot,
  hourStartNs: bigint,
): Promise<void> {
  const dialect = dialectFor(db);
  const hourStart = hourStartNs.toString();
  const hourEnd = (hourStartNs + HOUR_NS).toString();
  await deleteHourRows(db, run, applicationId, slot, hourStartNs);
  const kind = slotKindSql(db, slot, 's');
  const value = dialect.exactKey(`COALESCE(s.${slotColumn(slot.slot)}, '')`);
  const replace = MEASURE_COLUMNS.map((column) => `${column} = ${dialect.insertedValue.replace('??', column)}`).join(', ');
  const upsert =
    dialect.name === 'mysql' ? `ON DUPLICATE KEY UPDATE ${replace}` : `ON CONFLICT (${KEY.join(', ')}) DO UPDATE SET ${replace}`;
  for (const [widthS, widthNs] of WIDTHS_NS) {
    const bucket = bucketStartSql(db);
    // Grouped by the output columns' names: the spans have no column of these names.
    const sql =
      `INSERT INTO ${SLOT_ROLLUPS} (${[...KEY, ...MEASURE_COLUMNS].join(', ')}) ` +
      `SELECT ? AS application_id, ${widthS} AS bucket_width_s, ${bucket} AS bucket_start_unix_nano, ${slot.slot} AS slot, ${dialect.exactInteger} AS generation, ` +
      `${kind.sql} AS value_kind, ${value} AS value, ${figureAggregates()} ` +
      `FROM spans s WHERE s.application_id = ? AND s.start_time_unix_nano >= ${dialect.exactInteger} AND s.start_time_unix_nano < ${dialect.exactInteger} ` +
      `GROUP BY bucket_start_unix_nano, value_kind, value ${upsert}`;
    const bindings = [
      applicationId,
      hourStart,
      hourStart,
      widthNs.toString(),
      widthNs.toString(),
      String(slot.generation),
      ...kind.bindings,
      applicationId,
      hourStart,
      hourEnd,
    ];
    await run(db.raw(sql, bindings) as unknown as Knex.QueryBuilder);
  }
}

/** slot_rollups as a SlotValueTable: an hour's rows rebuilt by rebuildHourStatements in its own short transaction. */
const slotRollupTable: SlotValueTable = {
  table: SLOT_ROLLUPS,
  everySpan: 'span_rollups',
  rebuildHour: (knex, applicationId, slot, hourStartNs) =>
    bulkWriteTransaction(knex, ({ db, run }) => rebuildHourStatements(db, run, applicationId, slot, hourStartNs)),
};

/** Rounds of rebuildSlotRollups: a writer committing while an hour's INSERT … SELECT runs can leave that hour short once more. */
const REBUILD_ROUNDS = 3;

/**
 * Rebuilds every hour of the application whose rows of the slot's generation miss spans in the
 * table (slot_rollups unless given), one transaction each, then checks again (at most REBUILD_ROUNDS times): a writer that commits new
 * rows of the hour while its INSERT … SELECT runs (after the statement's snapshot) has them
 * replaced without its spans, which leaves the hour short (then read from the spans, never
 * wrong) until the next round. Hours starting below the purge edge are left alone: their rows
 * are never read, and span_rollups' counts there are not the spans' any more. Answers the hours
 * rebuilt.
 */
export async function rebuildSlotRollups(
  knex: Knex,
  applicationId: string,
  slot: IndexedSlot,
  of: SlotValueTable = slotRollupTable,
): Promise<number> {
  let rebuilt = 0;
  for (let round = 0; round < REBUILD_ROUNDS; round += 1) {
    const edge = await purgeEdgeOf(knex, applicationId);
    const hours = (await hoursToRebuild(knex, applicationId, slot, true, of)).filter((hour) => atOrAfterEdge(edge, hour));
    if (hours.length === 0) break;
    for (const hour of hours) await of.rebuildHour(knex, applicationId, slot, hour);
    rebuilt += hours.length;
  }
  return rebuilt;
}

/** The table `slot_rollups` behind the derived-data seam: only for an application that indexes keys. */
export const slotRollups: DerivedData = {
  name: 'slot roll-ups',
  // Per indexed slot value, under the generations the rows' slots were filled with.
  async onStored({ fresh, slots }, { db, runNative }) {
    if (slots.length === 0) return;
    for (const statement of writerSlotRollupUpserts(db, slotRollupDeltas(fresh, slots, slotEntryOfRow))) await runNative(statement);
  },
  // As span_rollups: nothing subtracted, the rows below the purge edge (of every generation) go,
  // a bounded number per batch, also for an application that indexes no key any more.
  async onDeleted({ applicationId, purgedBeforeNs, rowLimit }, { db, run }) {
    await deleteBelowEdge(db, run, SLOT_ROLLUPS, KEY.slice(3), applicationId, purgedBeforeNs, rowLimit);
  },
  // Per slot in use; rows of earlier generations are never read again. A slot not ready yet has
  // spans whose column is not filled for its key (or still holds an earlier key's value): rows
  // computed from them would count every span and so look complete. Its hour rows go instead,
  // and fillSlot recomputes the hour once the slot is ready (its count then differs).
  async rebuild({ applicationId, startNs, slots }, { db, run }) {
    if (slots.length === 0) return;
    const ready = await readySlotsOf(db, applicationId, run);
    for (const slot of slots) {
      if (ready.some((candidate) => candidate.slot === slot.slot && candidate.generation === slot.generation))
        await rebuildHourStatements(db, run, applicationId, slot, startNs);
      else await deleteHourRows(db, run, applicationId, slot, startNs);
    }
  },
  fillSlot: (knex, applicationId, slot) => rebuildSlotRollups(knex, applicationId, slot),
  heldHours: (db, applicationId) =>
    heldHoursOf(db, db(SLOT_ROLLUPS).where({ application_id: applicationId, bucket_width_s: HOUR_S }), 'bucket_start_unix_nano'),
};
