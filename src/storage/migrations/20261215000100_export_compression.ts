// How an export's file is compressed (engine 1.12.0, `compression`): `none` or `gzip`. A column
// added at the end of the row with a default: MariaDB adds it instantly, and every job made
// before reads as `none`, which it is.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('exports', (table) => {
    table.string('compression', 8).notNullable().defaultTo('none');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('exports', (table) => {
    table.dropColumn('compression');
  });
}
