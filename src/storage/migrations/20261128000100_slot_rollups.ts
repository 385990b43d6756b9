// Roll-ups per indexed attribute slot value (src/storage/spans/rollups/slot-rollups.ts, docs/analytics.md,
// "Roll-ups per indexed attribute"): per application, minute and hour of start time, slot,
// generation and value, the measures of span_rollups. The spans stored before this migration are
// rolled up here for every ready slot, one hour at a time (one INSERT … SELECT per width over the
// hour's spans, each statement committed on its own); a slot still being backfilled is rolled up
// by the backfiller once it is ready.
import type { Knex } from 'knex';
import { readySlotsOfApplications } from '../accounts/applications.js';
import { hoursToRebuild, rebuildHourStatements, SLOT_ROLLUPS } from '../spans/rollups/slot-rollups.js';
import type { Run } from '../sql/dialect.js';
import { isMysql } from '../sql/index.js';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  await knex.schema.createTable(SLOT_ROLLUPS, (table) => {
    table.string('application_id', 40).notNullable();
    /** 60 or 3600: the bucket's width in seconds. */
    table.integer('bucket_width_s').notNullable();
    table.bigInteger('bucket_start_unix_nano').notNullable();
    table.integer('slot').notNullable();
    /** The `since` of the slot's key (epoch milliseconds): rows of an earlier key are never read. */
    table.bigInteger('generation').notNullable();
    /** 0: no value (missing or JSON null), 1: the string in `value`, 2: a value the slot does not keep. */
    table.integer('value_kind').notNullable();
    // Bytes on MariaDB/MySQL, as in trace_slot_values: a key of a text column would take `x` and
    // `x ` for the same value (PAD SPACE). '' unless value_kind is 1.
    if (mysql) table.specificType('value', 'VARBINARY(1020)').notNullable();
    else table.text('value').notNullable();
    table.bigInteger('span_count').notNullable();
    for (const measure of ['duration', 'cost', 'usage']) {
      table.bigInteger(`${measure}_count`).notNullable();
      table.double(`${measure}_sum`).notNullable();
      table.double(`${measure}_min`).nullable();
      table.double(`${measure}_max`).nullable();
    }
    /** 1 once spans were taken out of the bucket (retention); dropped by 20261203000100_purge_edge, whose code writes none. */
    table.integer('partial').notNullable().defaultTo(0);
    table.primary(['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'slot', 'generation', 'value_kind', 'value']);
    binaryCollation(knex, table);
  });
  await rollUpStoredSpans(knex);
}

/** Rolls up the stored spans of every ready slot (exported for its test). */
export async function rollUpStoredSpans(knex: Knex): Promise<void> {
  // Each statement on its own (on MariaDB the CREATE TABLE above ended the migration's transaction).
  const run: Run = async <T>(query: Knex.QueryBuilder) => (await query) as T;
  for (const application of await readySlotsOfApplications(knex)) {
    for (const slot of application.slots) {
      for (const hour of await hoursToRebuild(knex, application.id, slot, false))
        await rebuildHourStatements(knex, run, application.id, slot, hour);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists(SLOT_ROLLUPS);
}
