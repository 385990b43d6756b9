// The progress of `npm run rebuild` (src/storage/spans/derived/derived-rebuild.ts): one row per run
// in progress, keyed by its arguments, holding the last hour it rebuilt, written in that hour's own
// transaction. An interrupted run started again with the same arguments goes on after it; a run
// that finishes deletes its row.
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('derived_rebuilds', (table) => {
    /** A hash of the run's arguments (application, window, structures). */
    table.string('run_key', 64).primary();
    /** The arguments as given, for an operator reading the table. */
    table.text('arguments').notNullable();
    table.string('application_id', 40).notNullable();
    /** The start (nanoseconds) of the last hour of that application the run rebuilt. */
    table.bigInteger('hour_start_unix_nano').notNullable();
    /** Epoch milliseconds of that hour's commit. */
    table.bigInteger('updated_at').notNullable();
    binaryCollation(knex, table);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('derived_rebuilds');
}
