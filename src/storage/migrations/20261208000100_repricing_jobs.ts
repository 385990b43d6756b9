// Re-pricing jobs (src/storage/repricing/README.md): one row per job an owner created through
// the management API, holding its window, status, progress, the position its worker reached (the
// hour being worked on and the last span done in it, written in the transaction of each batch)
// and the lease of the instance working on it. No foreign key, as the other tables: a job of a
// deleted application stays readable in the table, and is never claimed.
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('repricing_jobs', (table) => {
    table.string('id', 40).primary();
    table.string('application_id', 40).notNullable();
    /** The window of span start time, [from, to), in Unix nanoseconds. */
    table.bigInteger('from_unix_nano').notNullable();
    table.bigInteger('to_unix_nano').notNullable();
    /** queued, running, succeeded, failed, cancelled. */
    table.string('status', 16).notNullable();
    table.bigInteger('spans_examined').notNullable().defaultTo(0);
    table.bigInteger('spans_repriced').notNullable().defaultTo(0);
    table.integer('hours_done').notNullable().defaultTo(0);
    table.integer('hours_total').notNullable();
    /** Epoch milliseconds. */
    table.bigInteger('created_at').notNullable();
    table.bigInteger('started_at').nullable();
    table.bigInteger('finished_at').nullable();
    table.text('error').nullable();
    /** The hour of span start time being worked on (its start); null before the first. */
    table.bigInteger('hour_start_unix_nano').nullable();
    /** The last span of that hour done, in the batches' order (start time, trace_id, span_id); null: none yet. */
    table.bigInteger('after_start_unix_nano').nullable();
    table.string('after_trace_id', 32).nullable();
    table.string('after_span_id', 16).nullable();
    /** Whether a span of that hour was re-priced and its derived data not rebuilt yet. */
    table.boolean('hour_repriced').notNullable().defaultTo(false);
    /** The instance working on the job, and until when (epoch milliseconds) it holds it. */
    table.string('lease_owner', 64).nullable();
    table.bigInteger('lease_expires_at').nullable();
    table.index(['application_id', 'created_at', 'id'], 'repricing_jobs_by_application');
    table.index(['status'], 'repricing_jobs_by_status');
    binaryCollation(knex, table);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('repricing_jobs');
}
