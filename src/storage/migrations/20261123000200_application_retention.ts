// How long an application's spans are kept. NULL means "the configured default"
// (RETENTION_DEFAULT_DAYS): the migration cannot know the value the service will run with, and
// an application that never chose keeps following the operator's setting (docs/retention.md).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('applications', (table) => {
    table.integer('retention_days').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('applications', (table) => {
    table.dropColumn('retention_days');
  });
}
