// Span status, events, links, instrumentation scope and the dropped counts (engine API 1.1.0),
// and the per-trace count of ERROR spans. Every new span column is nullable and added at the
// end of the row: MariaDB adds such columns instantly, without rewriting the table, and spans
// stored before read as null (no status known, no events kept). Existing summaries start at
// error_count 0, which is exact: their spans have no status.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spans', (table) => {
    table.string('status_code', 32).nullable();
    table.text('status_message').nullable();
    table.text('scope_name').nullable();
    table.text('scope_version').nullable();
    table.json('events').nullable();
    table.json('links').nullable();
    table.integer('dropped_attributes_count').unsigned().nullable();
    table.integer('dropped_events_count').unsigned().nullable();
    table.integer('dropped_links_count').unsigned().nullable();
  });
  await knex.schema.alterTable('traces', (table) => {
    table.integer('error_count').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('traces', (table) => {
    table.dropColumn('error_count');
  });
  await knex.schema.alterTable('spans', (table) => {
    for (const column of [
      'status_code',
      'status_message',
      'scope_name',
      'scope_version',
      'events',
      'links',
      'dropped_attributes_count',
      'dropped_events_count',
      'dropped_links_count',
    ]) {
      table.dropColumn(column);
    }
  });
}
