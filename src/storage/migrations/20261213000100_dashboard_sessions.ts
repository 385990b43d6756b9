// The dashboard's sign-in sessions (docs/dashboard.md, "Signing in"): one row per session, named by
// the SHA-256 of the cookie's random id (the id itself is never stored), with its user, when it
// was made and last used, and when it ends: idle_expires_at moves on with each token request,
// never past expires_at.
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_sessions', (table) => {
    binaryCollation(knex, table);
    table.string('id_hash', 64).primary();
    table.string('user_id', 40).notNullable().index();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('last_seen_at').notNullable();
    // The purge of ended sessions finds them by it.
    table.bigInteger('idle_expires_at').notNullable().index();
    table.bigInteger('expires_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dashboard_sessions');
}
