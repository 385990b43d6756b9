// Key lifecycle (management 1.4.0): an optional expiry per API key, and the secret right before
// the current one with the moment it stops working, so a rotation can leave a grace period.
// Only one previous secret is kept: a second rotation overwrites it, ending any earlier grace.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (table) => {
    table.bigInteger('expires_at').nullable();
    table.string('previous_secret_hash', 128).nullable();
    table.bigInteger('previous_secret_expires_at').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (table) => {
    table.dropColumn('previous_secret_expires_at');
    table.dropColumn('previous_secret_hash');
    table.dropColumn('expires_at');
  });
}
