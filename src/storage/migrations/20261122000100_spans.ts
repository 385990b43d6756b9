// Spans per application, and a per-trace summary kept current as spans arrive in any order.
// Nanosecond times are BIGINT (exact); free-form strings are TEXT (OTLP puts no bound on them).
import type { Knex } from 'knex';
import { isMysql } from '../sql/index.js';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  await knex.schema.createTable('spans', (table) => {
    // Receive order, for the live endpoints. Not gap-free and not commit-ordered: readers must cope.
    // On MariaDB/MySQL it becomes AUTO_INCREMENT below, once the index it needs exists.
    if (mysql) table.bigInteger('seq').unsigned().notNullable();
    else table.bigIncrements('seq').primary();
    table.string('application_id', 40).notNullable();
    table.string('trace_id', 32).notNullable();
    table.string('span_id', 16).notNullable();
    table.string('parent_span_id', 16).nullable();
    table.bigInteger('start_time_unix_nano').notNullable();
    table.bigInteger('end_time_unix_nano').notNullable();
    table.double('duration_ms').notNullable();
    table.text('span_name').notNullable();
    table.string('span_kind', 32).notNullable();
    table.text('service_name').nullable();
    table.text('unit').nullable();
    table.text('parent_unit').nullable();
    table.double('cost').nullable();
    for (const field of ['resource_type', 'resource_name', 'service_id', 'service_name', 'sku_id', 'sku_name', 'region']) {
      table.text(`billing_${field}`).nullable();
    }
    table.double('usage_amount').nullable();
    table.text('usage_unit').nullable();
    table.json('resource_attributes').nullable();
    table.json('span_attributes').nullable();
    table.bigInteger('received_at').notNullable();
    table.unique(['application_id', 'trace_id', 'span_id'], { indexName: 'spans_identity' });
    if (mysql) {
      // InnoDB stores rows in primary-key order: keyed by (application, start time), the spans of
      // a time window lie together and a window is read as one range, not one random lookup per
      // span (measured: 42k spans of an hour in ~20 ms instead of ~60-100 ms).
      table.primary(['application_id', 'start_time_unix_nano', 'seq']);
      table.unique(['seq'], { indexName: 'spans_seq' });
    }
    table.index(['application_id', 'seq'], 'spans_by_receipt');
    binaryCollation(knex, table);
  });
  if (mysql) await knex.raw('ALTER TABLE spans MODIFY seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT');
  // The order of POST /engine/query (newest first, then trace_id, span_id): a page is read from
  // the index in order, without sorting the window, and the index also serves time ranges.
  await knex.raw('CREATE INDEX spans_newest_first ON spans (application_id, start_time_unix_nano DESC, trace_id, span_id)');
  await knex.schema.createTable('traces', (table) => {
    table.string('application_id', 40).notNullable();
    table.string('trace_id', 32).notNullable();
    // The root: earliest parentless span, else earliest SPAN_KIND_SERVER span (ties by span_id).
    table.string('root_span_id', 16).nullable();
    table.bigInteger('root_start_time_unix_nano').nullable();
    table.text('span_name').nullable();
    table.text('service_name').nullable();
    table.text('unit').nullable();
    table.text('parent_unit').nullable();
    table.bigInteger('min_start_time_unix_nano').notNullable();
    table.bigInteger('max_end_time_unix_nano').notNullable();
    table.double('duration_ms').notNullable();
    table.integer('spans_count').notNullable();
    table.double('total_cost').notNullable();
    table.primary(['application_id', 'trace_id']);
    table.index(['application_id', 'root_start_time_unix_nano'], 'traces_by_root_start');
    table.index(['application_id', 'min_start_time_unix_nano', 'trace_id'], 'traces_by_min_start');
    binaryCollation(knex, table);
  });
  // Trace lists filtered by the root's service (their most common filter) read only the
  // service's traces of the window, however long the application's history. TEXT needs a
  // prefix on MariaDB/MySQL; the comparison itself is always rechecked on the row.
  const service = mysql ? 'service_name(100)' : 'service_name';
  await knex.raw(`CREATE INDEX traces_by_service ON traces (application_id, ${service}, root_start_time_unix_nano)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('traces');
  await knex.schema.dropTableIfExists('spans');
}
