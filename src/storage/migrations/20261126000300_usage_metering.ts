// Usage metering and quotas (src/storage/usage/, docs/usage-and-quotas.md): one row per
// application, API key and hour of receipt with what ingestion took in, written in the span
// writer's transaction; and an optional daily span quota per application (NULL: none).
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_hourly', (table) => {
    table.string('application_id', 40).notNullable();
    /** Epoch milliseconds of the UTC hour the requests were received in. */
    table.bigInteger('hour_start').notNullable();
    /** The API key that sent the requests; '' for requests sent with a dashboard user's token. */
    table.string('api_key', 64).notNullable();
    table.bigInteger('spans_accepted').notNullable().defaultTo(0);
    table.bigInteger('spans_duplicate').notNullable().defaultTo(0);
    table.bigInteger('spans_rejected').notNullable().defaultTo(0);
    table.bigInteger('bytes_received').notNullable().defaultTo(0);
    table.bigInteger('bytes_decompressed').notNullable().defaultTo(0);
    table.bigInteger('requests').notNullable().defaultTo(0);
    table.bigInteger('requests_refused').notNullable().defaultTo(0);
    // Application first, then time: a window's rows (and today's, for the quota) are one range.
    table.primary(['application_id', 'hour_start', 'api_key']);
    // Time alone: the retention purge takes the oldest hours of every application.
    table.index(['hour_start'], 'usage_hourly_by_hour');
    binaryCollation(knex, table);
  });
  await knex.schema.alterTable('applications', (table) => {
    table.bigInteger('daily_span_quota').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('applications', (table) => {
    table.dropColumn('daily_span_quota');
  });
  await knex.schema.dropTableIfExists('usage_hourly');
}
