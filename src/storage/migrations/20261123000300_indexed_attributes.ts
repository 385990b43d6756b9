// Indexed attribute slots (management API 1.3.0, `indexed_attributes`): an application marks up
// to INDEXED_SLOTS attribute keys as hot; each span keeps the string value of the key of slot k
// in indexed_value_k, and an index per slot answers equality conditions on that key without
// parsing the span's attribute JSON (src/storage/spans/indexed-slots.ts). The application's row
// records which key each slot holds and whether its backfill is complete
// (indexed_attributes_state, JSON text; null: no slot in use).
//
// The columns are nullable and added at the end of the row: MariaDB adds them instantly, and
// every stored span reads NULL, which is exact for a slot no key uses yet. VARCHAR(255) on
// MariaDB (the table's utf8mb4_bin), TEXT on SQLite; the index is (application, value, start
// time, trace_id): a window of one value is one range, and an any-span search finds a trace's
// match in the index alone.
import type { Knex } from 'knex';
import { isMysql } from '../sql/index.js';

/** The number of slots: how many attribute keys one application can index. */
const SLOTS = [1, 2, 3] as const;

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  await knex.schema.alterTable('applications', (table) => {
    table.text('indexed_attributes_state').nullable();
  });
  await knex.schema.alterTable('spans', (table) => {
    for (const slot of SLOTS) {
      if (mysql) table.string(`indexed_value_${slot}`, 255).nullable();
      else table.text(`indexed_value_${slot}`).nullable();
    }
  });
  for (const slot of SLOTS) {
    await knex.raw(
      `CREATE INDEX spans_by_indexed_value_${slot} ON spans (application_id, indexed_value_${slot}, start_time_unix_nano, trace_id)`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const slot of SLOTS) {
    if (isMysql(knex)) await knex.raw(`DROP INDEX spans_by_indexed_value_${slot} ON spans`);
    else await knex.raw(`DROP INDEX spans_by_indexed_value_${slot}`);
  }
  await knex.schema.alterTable('spans', (table) => {
    for (const slot of SLOTS) table.dropColumn(`indexed_value_${slot}`);
  });
  await knex.schema.alterTable('applications', (table) => {
    table.dropColumn('indexed_attributes_state');
  });
}
