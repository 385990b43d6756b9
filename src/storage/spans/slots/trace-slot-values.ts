// The table `trace_slot_values`: for each trace, each value its spans hold in an indexed
// attribute slot (indexed-slots.ts), with the trace's root start and earliest start copied from
// its summary. An any-span search for a slot value (`POST /traces?search_child_spans=true`,
// metrics and trace-grain analytics over it) then finds its traces in one index range by root
// start, instead of looking into every trace of the window (docs/filter-semantics.md, "Any-span
// trace searches on an indexed key").
//
// A row belongs to a slot's generation (the `since` of the key the slot holds): a slot given a
// new key starts a new generation, and rows of the old one are never read again. Rows are added
// by the span writer and the slot backfill (from values written with the slot's current key),
// taken out by the retention purger when no span of the trace holds the value any more, and
// their time columns follow the summary in the same transaction as every change to it.
import type { Knex } from 'knex';
import type { FilterNode } from '../../../filter/ast.js';
import { fragment, type Run } from '../../sql/dialect.js';
import { dialectFor } from '../../sql/index.js';
import type { DerivedData } from '../derived/derived-data.js';
import { summariesOfHour } from '../traces/trace-summaries.js';
import { answerableBySlot, SLOT_NUMBERS, slotColumn, slotFor, type IndexedSlot, type SlotNumber } from '../indexed-slots.js';
import type { SpanRow } from '../span-row.js';

export const TRACE_SLOT_VALUES = 'trace_slot_values';

/** A slot in use and its generation: what a row of the table is filed under. */
export interface TraceSlot {
  slot: SlotNumber;
  generation: number;
}

/** Rows one insert statement writes: within SQLite's 500-term compound inserts. */
const ROWS_PER_INSERT = 500;

/** One value a span of a trace holds in a slot. */
export interface SlotValue {
  trace_id: string;
  value: string;
}

/** The values the rows hold in the slots, per trace, each once (compared exactly, as JavaScript strings). */
export function slotValuesOf(rows: SpanRow[], slot: SlotNumber): SlotValue[] {
  const found = new Map<string, SlotValue>();
  for (const row of rows) {
    const value = row[slotColumn(slot)];
    if (value !== null && value !== undefined) found.set(JSON.stringify([row.trace_id, value]), { trace_id: row.trace_id, value });
  }
  return [...found.values()];
}

/**
 * Inserts the values not filed yet (the same value and trace of the same generation: kept as
 * it is); the time columns are placeholders until syncTimesQuery sets them.
 */
export function addValuesQueries(db: Knex, applicationId: string, target: TraceSlot, values: readonly SlotValue[]): Knex.QueryBuilder[] {
  const rows = values.map(({ trace_id, value }) => ({
    application_id: applicationId,
    slot: target.slot,
    generation: target.generation,
    value,
    trace_id,
    root_start_time_unix_nano: null,
    min_start_time_unix_nano: 0,
  }));
  const statements: Knex.QueryBuilder[] = [];
  for (let offset = 0; offset < rows.length; offset += ROWS_PER_INSERT) {
    statements.push(
      db(TRACE_SLOT_VALUES)
        .insert(rows.slice(offset, offset + ROWS_PER_INSERT))
        .onConflict(['application_id', 'slot', 'generation', 'value', 'trace_id'])
        .ignore(),
    );
  }
  return statements;
}

/**
 * Copies the traces' root start and earliest start from their summaries into their rows. Run
 * inside the transaction that changed the summaries, after it locked them, so that the rows
 * always agree with the summaries any reader sees.
 */
export function syncTimesQuery(db: Knex, applicationId: string, traceIds: string[]): Knex.QueryBuilder {
  const fromSummary = (column: string) =>
    db.raw(
      `(SELECT t.${column} FROM traces t WHERE t.application_id = ${TRACE_SLOT_VALUES}.application_id AND t.trace_id = ${TRACE_SLOT_VALUES}.trace_id)`,
    );
  return db(TRACE_SLOT_VALUES)
    .where('application_id', applicationId)
    .whereIn('trace_id', traceIds)
    .update({
      root_start_time_unix_nano: fromSummary('root_start_time_unix_nano'),
      // A trace whose summary is gone has no span left: its rows go too (dropUnsupportedQuery).
      min_start_time_unix_nano: db.raw(`COALESCE(${fromSummary('min_start_time_unix_nano').toQuery()}, 0)`),
    });
}

/** The slot column a row's slot names, as an expression over spans `s`. */
function slotValueOf(slotExpression: string): string {
  return `CASE ${slotExpression} ${SLOT_NUMBERS.map((slot) => `WHEN ${slot} THEN s.${slotColumn(slot)}`).join(' ')} END`;
}

/** Deletes the traces' rows whose value no stored span of the trace holds any more (after spans were deleted). */
export function dropUnsupportedQuery(db: Knex, applicationId: string, traceIds: string[]): Knex.QueryBuilder {
  const table = TRACE_SLOT_VALUES;
  return db(table)
    .where('application_id', applicationId)
    .whereIn('trace_id', traceIds)
    .whereNotExists((exists) => {
      exists
        .select(db.raw('1'))
        .from({ s: 'spans' })
        .whereRaw(`s.application_id = ${table}.application_id`)
        .whereRaw(`s.trace_id = ${table}.trace_id`)
        .whereRaw(`${slotValueOf(`${table}.slot`)} = ${table}.value`);
    })
    .del();
}

/** Traces one statement of the purge's follow-up covers. */
const TRACES_PER_STATEMENT = 500;

/** After spans of the traces were deleted and their summaries recomputed: drops the values no span holds, syncs the rest. */
export async function afterSpansDeleted(db: Knex, applicationId: string, traceIds: string[], run: Run): Promise<void> {
  for (let offset = 0; offset < traceIds.length; offset += TRACES_PER_STATEMENT) {
    const chunk = traceIds.slice(offset, offset + TRACES_PER_STATEMENT);
    await run(dropUnsupportedQuery(db, applicationId, chunk));
    await run(syncTimesQuery(db, applicationId, chunk));
  }
}

/**
 * The values that the spans of one application with seq in (after, last] (last null: no upper
 * bound) hold in a slot: what the slot backfill files after filling the slot for them.
 */
export function spanValuesQuery(db: Knex, applicationId: string, slot: SlotNumber, after: string, last: string | null): Knex.QueryBuilder {
  const dialect = dialectFor(db);
  const column = slotColumn(slot);
  // Through spans_by_receipt (application_id, seq), as the backfill's own statements.
  const query = db
    .from(db.raw(dialect.tableThroughIndex('spans', 's', 'spans_by_receipt')))
    .select('s.trace_id', { value: `s.${column}` })
    .where('s.application_id', applicationId)
    .whereRaw(`s.seq > ${dialect.exactUnsigned}`, [after])
    .whereNotNull(`s.${column}`);
  if (last !== null) query.whereRaw(`s.seq <= ${dialect.exactUnsigned}`, [last]);
  return query;
}

/**
 * Files values of spans stored earlier (the slot backfill): locks the traces' summaries in
 * trace_id order, so that no writer changes them until this commits and the times copied are
 * their latest, then inserts the values and copies the times.
 */
export async function fileStoredValues(
  db: Knex,
  applicationId: string,
  target: TraceSlot,
  values: readonly SlotValue[],
  run: Run,
): Promise<void> {
  const unique = [...new Map(values.map((entry) => [JSON.stringify([entry.trace_id, entry.value]), entry])).values()];
  const traceIds = [...new Set(unique.map((entry) => entry.trace_id))].sort();
  for (let offset = 0; offset < traceIds.length; offset += TRACES_PER_STATEMENT) {
    const chunk = traceIds.slice(offset, offset + TRACES_PER_STATEMENT);
    const inChunk = new Set(chunk);
    await run(
      dialectFor(db).lockRows(
        db('traces').select('trace_id').where('application_id', applicationId).whereIn('trace_id', chunk).orderBy('trace_id'),
      ),
    );
    for (const statement of addValuesQueries(
      db,
      applicationId,
      target,
      unique.filter((entry) => inChunk.has(entry.trace_id)),
    ))
      await run(statement);
    await run(syncTimesQuery(db, applicationId, chunk));
  }
}

/** An any-span condition the table answers: one slot, its generation, and the values looked for. */
export interface SlotValueMatch extends TraceSlot {
  values: string[];
}

/**
 * The match when the whole filter is one `eq` or `in` condition on an attribute a ready slot
 * keeps, with values a slot can hold (answerableBySlot): "a span of the trace has one of these
 * values" is then "the trace has a row for one of them". Anything else: undefined.
 */
export function slotValueMatch(filter: FilterNode | null, slots: readonly IndexedSlot[] | undefined): SlotValueMatch | undefined {
  if (filter === null || filter.kind !== 'condition' || filter.resolved.kind !== 'attribute') return undefined;
  // The same cases filter-sql.ts answers from a slot column: string values only (a JSON number
  // compares the attribute's numeric reading), each one a slot can hold.
  let values: string[];
  if (filter.op === 'eq' && !filter.numberGiven) values = [filter.value];
  else if (filter.op === 'in' && filter.numbers.length === 0) values = filter.values;
  else return undefined;
  if (values.length === 0 || !values.every(answerableBySlot)) return undefined;
  const slot = slotFor(slots, filter.resolved.source, filter.resolved.key);
  return slot && { slot: slot.slot, generation: slot.generation, values: [...new Set(values)] };
}

/**
 * The rows of the match's values (a builder over `trace_slot_values` aliased `alias`), compared
 * exactly as filter-sql.ts compares a slot column (MariaDB's PAD SPACE ruled out: a value with a
 * trailing space is another value).
 */
export function matchRows(knex: Knex, applicationId: string, match: SlotValueMatch, alias: string): Knex.QueryBuilder {
  const values = dialectFor(knex).textIn(fragment(`${alias}.value`), match.values, false, true);
  return knex({ [alias]: TRACE_SLOT_VALUES })
    .where(`${alias}.application_id`, applicationId)
    .where(`${alias}.slot`, match.slot)
    .where(`${alias}.generation`, match.generation)
    .whereRaw(values.sql, values.bindings);
}

/**
 * Files the traces' values anew from all their stored spans, under the slots' current generations
 * (the rebuild): locks the summaries as fileStoredValues does, deletes the traces' rows of those
 * generations, inserts the values their spans hold and copies the times. Rows of earlier
 * generations are never read again and are left to retention.
 */
export async function refileTraces(
  db: Knex,
  applicationId: string,
  slots: readonly IndexedSlot[],
  traceIds: string[],
  run: Run,
): Promise<void> {
  for (let offset = 0; offset < traceIds.length; offset += TRACES_PER_STATEMENT) {
    const chunk = traceIds.slice(offset, offset + TRACES_PER_STATEMENT);
    await run(
      dialectFor(db).lockRows(
        db('traces').select('trace_id').where('application_id', applicationId).whereIn('trace_id', chunk).orderBy('trace_id'),
      ),
    );
    await run(
      db(TRACE_SLOT_VALUES)
        .where('application_id', applicationId)
        .whereIn('trace_id', chunk)
        .where((generations) => {
          for (const { slot, generation } of slots) generations.orWhere({ slot, generation });
        })
        .del(),
    );
    for (const target of slots) {
      const column = slotColumn(target.slot);
      const values = await run<SlotValue[]>(
        db('spans')
          .select('trace_id', { value: column })
          .where('application_id', applicationId)
          .whereIn('trace_id', chunk)
          .whereNotNull(column),
      );
      const unique = [...new Map(values.map((entry) => [JSON.stringify([entry.trace_id, entry.value]), entry])).values()];
      for (const statement of addValuesQueries(db, applicationId, target, unique)) await run(statement);
    }
    await run(syncTimesQuery(db, applicationId, chunk));
  }
}

/**
 * The table `trace_slot_values` behind the derived-data seam: after the round's summaries are
 * merged (its time columns are copied from them), after the purge recomputed them, and by the
 * rebuild for every trace of the hour, after their summaries.
 */
export const traceSlotValues: DerivedData = {
  name: 'trace slot values',
  async onTracesStored({ applicationId, fresh, byTrace, slots }, { db, run }) {
    if (slots.length === 0) return;
    for (const target of slots) {
      for (const statement of addValuesQueries(db, applicationId, target, slotValuesOf(fresh, target.slot))) await run(statement);
    }
    // Every trace of the round: a span without slot values can still move its trace's root start.
    await run(syncTimesQuery(db, applicationId, [...byTrace.keys()]));
  },
  async onDeleted({ applicationId, traceIds }, { db, run }) {
    await afterSpansDeleted(db, applicationId, traceIds, run);
  },
  // A row's times are its summary's: the traces of the summaries' hour hold its rows.
  tracesOfHour: summariesOfHour,
  async rebuild({ applicationId, traceIds, slots }, { db, run }) {
    if (slots.length > 0) await refileTraces(db, applicationId, slots, traceIds, run);
  },
};
