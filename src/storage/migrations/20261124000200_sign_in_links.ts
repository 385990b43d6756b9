// The dashboard's one-time sign-in links that were exchanged (docs/dashboard.md, "Signing in"):
// one row per link id, kept until the link would have expired anyway, so a second exchange of
// the same link fails on every instance sharing the database.
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('used_sign_in_links', (table) => {
    binaryCollation(knex, table);
    table.string('link_id', 64).primary();
    table.bigInteger('expires_at').notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('used_sign_in_links');
}
