// The values of indexed attribute slots move from three indexes on `spans` to the table
// `span_slot_values` (src/storage/spans/slots/span-slot-values.ts): an index on `spans` holds an
// entry for every span, NULL or not, so each slot cost every span about 140 bytes and an entry
// to write whether the application indexed a key or not; the table holds a row only for a span
// that has a value. The slot columns stay on `spans` (a page checks the value on the row). The
// table is filled from the columns here, one INSERT … SELECT per slot, then the indexes go.
import type { Knex } from 'knex';
import { lz4PageCompression } from '../page-compression.js';
import { isMysql } from '../sql/index.js';
import { binaryCollation } from './mysql-table-options.js';

const SLOTS = [1, 2, 3] as const;

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  await knex.schema.createTable('span_slot_values', (table) => {
    table.string('application_id', 40).notNullable();
    table.bigInteger('start_time_unix_nano').notNullable();
    table.string('trace_id', 32).notNullable();
    table.string('span_id', 16).notNullable();
    table.integer('slot').notNullable();
    // Bytes on MariaDB/MySQL, as in trace_slot_values: compared byte for byte, no PAD SPACE.
    if (mysql) table.specificType('value', 'VARBINARY(1020)').notNullable();
    else table.text('value').notNullable();
    table.primary(['application_id', 'start_time_unix_nano', 'trace_id', 'span_id', 'slot']);
    table.index(['application_id', 'slot', 'value', 'start_time_unix_nano', 'trace_id'], 'span_slot_values_lookup');
    binaryCollation(knex, table);
  });
  // Created empty, so compressing it now costs nothing; filled below with compressed pages.
  if ((await lz4PageCompression(knex)).available) await knex.raw('ALTER TABLE span_slot_values PAGE_COMPRESSED=1');
  for (const slot of SLOTS) {
    await knex.raw(
      `INSERT INTO span_slot_values (application_id, start_time_unix_nano, trace_id, span_id, slot, value) ` +
        `SELECT application_id, start_time_unix_nano, trace_id, span_id, ${slot}, indexed_value_${slot} FROM spans ` +
        `WHERE indexed_value_${slot} IS NOT NULL`,
    );
  }
  for (const slot of SLOTS) {
    if (mysql) await knex.raw(`DROP INDEX spans_by_indexed_value_${slot} ON spans`);
    else await knex.raw(`DROP INDEX spans_by_indexed_value_${slot}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const slot of SLOTS) {
    await knex.raw(
      `CREATE INDEX spans_by_indexed_value_${slot} ON spans (application_id, indexed_value_${slot}, start_time_unix_nano, trace_id)`,
    );
  }
  await knex.schema.dropTableIfExists('span_slot_values');
}
