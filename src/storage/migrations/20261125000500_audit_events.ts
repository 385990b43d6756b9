// The audit log (docs/audit-log.md): one row per management change or refused token exchange,
// written in the transaction of the change itself and never updated. Portable by design: a
// random, time-ordered primary key (no AUTO_INCREMENT, so no order across nodes is assumed), no
// triggers; lists order by (occurred_at, id).
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_events', (table) => {
    binaryCollation(knex, table);
    table.string('id', 40).primary();
    table.bigInteger('occurred_at').notNullable();
    // Null for a change that belongs to no organization (a user's own profile).
    table.string('organization_id', 40).nullable();
    table.string('actor_type', 16).notNullable();
    table.string('actor_id', 64).nullable();
    table.string('operation_id', 64).notNullable();
    table.string('resource_type', 32).notNullable();
    table.string('resource_id', 64).notNullable();
    table.string('request_id', 128).nullable();
    table.string('caller_address', 64).nullable();
    table.string('outcome', 16).notNullable();
    // JSON {"before": {...} | null, "after": {...} | null}: the changed fields, never a secret.
    table.text('changes').notNullable();
    // The organization's list, newest first, and the purge's oldest-first walk.
    table.index(['organization_id', 'occurred_at', 'id'], 'audit_events_by_organization');
    table.index(['occurred_at'], 'audit_events_by_time');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_events');
}
