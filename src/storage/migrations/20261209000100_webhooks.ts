// Webhooks (src/webhooks/README.md): an organization's endpoints, and the stored outbox of what is
// sent to them: events (the body every attempt sends), deliveries (one event to one endpoint, its
// state, when it is next tried, and the lease of the instance sending it) and attempts. Nothing of
// a delivery is held only in memory, so a restart or a crash loses none.
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_endpoints', (table) => {
    binaryCollation(knex, table);
    table.string('id', 40).primary();
    table.string('organization_id', 40).notNullable().references('organizations.id');
    table.string('url', 2048).notNullable();
    table.string('description', 500).nullable();
    /** The subscribed event types, a JSON array of strings. */
    table.text('event_types').notNullable();
    table.boolean('enabled').notNullable();
    /** `whsec_…`: kept as is, since every attempt signs with it; never answered after creation or rotation. */
    table.string('secret', 128).notNullable();
    /** The secret before the last rotation, and until when (epoch milliseconds) attempts are also signed with it. */
    table.string('previous_secret', 128).nullable();
    table.bigInteger('previous_secret_expires_at').nullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.bigInteger('deleted_at').nullable();
    table.index(['organization_id', 'deleted_at', 'created_at', 'id'], 'webhook_endpoints_by_organization');
  });
  await knex.schema.createTable('webhook_events', (table) => {
    binaryCollation(knex, table);
    table.string('id', 40).primary();
    table.string('organization_id', 40).notNullable();
    table.string('type', 64).notNullable();
    /** The JSON body every attempt sends, byte for byte. */
    table.text('payload').notNullable();
    table.bigInteger('created_at').notNullable();
    table.index(['created_at'], 'webhook_events_by_time');
  });
  await knex.schema.createTable('webhook_deliveries', (table) => {
    binaryCollation(knex, table);
    table.string('id', 40).primary();
    table.string('event_id', 40).notNullable();
    table.string('endpoint_id', 40).notNullable();
    /** pending, delivering, succeeded, failed. */
    table.string('state', 16).notNullable();
    table.integer('attempt_count').notNullable().defaultTo(0);
    /** Epoch milliseconds; null once the delivery succeeded or failed. */
    table.bigInteger('next_attempt_at').nullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('finished_at').nullable();
    /** The instance sending it now, and until when it holds it. */
    table.string('lease_owner', 64).nullable();
    table.bigInteger('lease_expires_at').nullable();
    table.index(['state', 'next_attempt_at'], 'webhook_deliveries_due');
    table.index(['endpoint_id', 'created_at', 'id'], 'webhook_deliveries_by_endpoint');
    table.index(['event_id'], 'webhook_deliveries_by_event');
  });
  await knex.schema.createTable('webhook_attempts', (table) => {
    binaryCollation(knex, table);
    table.string('delivery_id', 40).notNullable();
    /** 1 for the first attempt. */
    table.integer('attempt').notNullable();
    table.bigInteger('at').notNullable();
    table.integer('status_code').nullable();
    table.string('error', 1000).nullable();
    table.integer('duration_ms').notNullable();
    table.primary(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_events', 'webhook_endpoints']) {
    await knex.schema.dropTableIfExists(table);
  }
}
