// Per trace, the values its spans hold in each indexed attribute slot, with the trace's root
// start and earliest start (src/storage/spans/slots/trace-slot-values.ts; docs/filter-semantics.md,
// "Any-span trace searches on an indexed key"): an any-span search for a slot value reads one
// range of `trace_slot_values_window` instead of checking every trace of the window. The values of spans stored before this migration are filed
// here: for a ready slot from every span, for a slot still being backfilled from the spans the
// backfill has passed (it files the rest as it goes).
import type { Knex } from 'knex';
import { parseIndexedAttributes } from '../accounts/indexed-attributes.js';
import { bigintAsText } from '../database.js';
import { SLOT_NUMBERS } from '../spans/indexed-slots.js';
import { fileStoredValues, spanValuesQuery, type SlotValue, type TraceSlot } from '../spans/slots/trace-slot-values.js';
import type { Run } from '../sql/dialect.js';
import { dialectFor, isMysql } from '../sql/index.js';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  await knex.schema.createTable('trace_slot_values', (table) => {
    table.string('application_id', 40).notNullable();
    table.integer('slot').notNullable();
    /** The `since` of the slot's key (epoch milliseconds): rows of an earlier key are never read. */
    table.bigInteger('generation').notNullable();
    // Bytes on MariaDB/MySQL: a key of a text column would take `x` and `x ` for the same value
    // (PAD SPACE) and keep only one of them. 255 characters of utf8mb4 are at most 1020 bytes.
    if (mysql) table.specificType('value', 'VARBINARY(1020)').notNullable();
    else table.text('value').notNullable();
    table.string('trace_id', 32).notNullable();
    /** The trace summary's; null while the trace has no root (it then belongs to no window). */
    table.bigInteger('root_start_time_unix_nano').nullable();
    table.bigInteger('min_start_time_unix_nano').notNullable();
    table.primary(['application_id', 'slot', 'generation', 'value', 'trace_id']);
    // A value's traces in a window of root starts, with the list order's key beside them.
    table.index(
      ['application_id', 'slot', 'generation', 'value', 'root_start_time_unix_nano', 'min_start_time_unix_nano'],
      'trace_slot_values_window',
    );
    // A trace's rows, for the writer's and the purger's follow-ups.
    table.index(['application_id', 'trace_id'], 'trace_slot_values_by_trace');
    binaryCollation(knex, table);
  });
  await fileValuesOfStoredSpans(knex);
}

/** Spans read per step of the filing below. */
const FILING_BATCH = 20_000;

async function fileValuesOfStoredSpans(knex: Knex): Promise<void> {
  const applications = (await knex('applications')
    .whereNotNull('indexed_attributes_state')
    .select('id', 'indexed_attributes_state')) as Array<{ id: string; indexed_attributes_state: string }>;
  for (const application of applications) {
    const state = parseIndexedAttributes(application.indexed_attributes_state);
    for (const slot of SLOT_NUMBERS) {
      const entry = state.slots[slot - 1];
      // A slot being backfilled holds its current key's values up to after_seq only.
      const last = entry?.ready ? null : (entry?.after_seq ?? undefined);
      if (!entry || last === undefined) continue;
      await fileSlot(knex, application.id, { slot, generation: entry.since }, last);
    }
  }
}

/** Files one slot's values of the application's spans with seq up to `last` (null: all), in steps along the receive order. */
async function fileSlot(knex: Knex, applicationId: string, target: TraceSlot, last: string | null): Promise<void> {
  const dialect = dialectFor(knex);
  const run: Run = async <T>(query: Knex.QueryBuilder) => (await query) as T;
  for (let after = '0'; ;) {
    const step = knex
      .from(knex.raw(dialect.tableThroughIndex('spans', 's', 'spans_by_receipt')))
      .select({ seq: bigintAsText(knex, 's.seq') })
      .where('s.application_id', applicationId)
      .whereRaw(`s.seq > ${dialect.exactUnsigned}`, [after])
      .orderBy('s.seq')
      .limit(FILING_BATCH);
    if (last !== null) step.whereRaw(`s.seq <= ${dialect.exactUnsigned}`, [last]);
    const seqs = (await step) as Array<{ seq: string }>;
    if (seqs.length === 0) return;
    const through = String(seqs[seqs.length - 1]?.seq);
    // No writer runs during a migration: the lock fileStoredValues takes costs nothing here.
    await fileStoredValues(
      knex,
      applicationId,
      target,
      (await spanValuesQuery(knex, applicationId, target.slot, after, through)) as SlotValue[],
      run,
    );
    after = through;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('trace_slot_values');
}
