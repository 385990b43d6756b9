// A counter on each organization and application that writers which must exclude each other
// increment, instead of reading the row FOR UPDATE or FOR SHARE: a row lock is local to one
// Galera node (and to one TiDB transaction in optimistic mode), so two owners demoting each
// other through two nodes both passed the last-owner check, and a key was added to an
// application deleted at the same moment through another node. A write to the same row makes
// one of the two transactions fail certification and retry (docs/multi-instance.md).
import type { Knex } from 'knex';

const GUARDED = ['organizations', 'applications'];

export async function up(knex: Knex): Promise<void> {
  for (const table of GUARDED) {
    await knex.schema.alterTable(table, (columns) => {
      columns.bigInteger('write_guard').notNullable().defaultTo(0);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of GUARDED) {
    await knex.schema.alterTable(table, (columns) => {
      columns.dropColumn('write_guard');
    });
  }
}
