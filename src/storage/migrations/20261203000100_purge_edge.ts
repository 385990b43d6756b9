// The purge edge (src/storage/spans/purge-edge.ts) replaces the roll-ups' `partial` mark: each
// application's edge starts at the end of its latest partial bucket of either roll-up table, so
// that no bucket the purge subtracted from is read again, then `partial` and the index that only
// found partial buckets go.
import type { Knex } from 'knex';
import { isMysql } from '../sql/index.js';

const ROLLUP_TABLES = ['span_rollups', 'slot_rollups'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('applications', (table) => {
    /** Nanoseconds of span start time; every hour below may have lost spans to retention. NULL: nothing purged. */
    table.bigInteger('spans_purged_before').nullable();
  });
  const text = isMysql(knex) ? 'CHAR' : 'TEXT';
  const edges = new Map<string, bigint>();
  for (const table of ROLLUP_TABLES) {
    const rows = (await knex(table)
      .where('partial', 1)
      .groupBy('application_id')
      .select('application_id', knex.raw(`CAST(MAX(bucket_start_unix_nano + bucket_width_s * 1000000000) AS ${text}) AS edge`))) as Array<{
      application_id: string;
      edge: string;
    }>;
    for (const row of rows) {
      const edge = BigInt(row.edge);
      const known = edges.get(row.application_id);
      if (known === undefined || edge > known) edges.set(row.application_id, edge);
    }
  }
  const exact = isMysql(knex) ? 'CAST(? AS SIGNED)' : 'CAST(? AS INTEGER)';
  for (const [applicationId, edge] of edges)
    await knex('applications')
      .where({ id: applicationId })
      .update({ spans_purged_before: knex.raw(exact, [edge.toString()]) });
  // Raw statements: Knex's SQLite dropColumn copies the whole table; SQLite 3.35+ drops in place.
  if (isMysql(knex)) {
    await knex.raw('ALTER TABLE span_rollups DROP INDEX span_rollups_partial, DROP COLUMN partial');
    await knex.raw('ALTER TABLE slot_rollups DROP COLUMN partial');
  } else {
    await knex.raw('DROP INDEX span_rollups_partial');
    for (const table of ROLLUP_TABLES) await knex.raw(`ALTER TABLE ${table} DROP COLUMN partial`);
  }
}

export async function down(knex: Knex): Promise<void> {
  // Every bucket below an edge comes back partial: it is not read from the roll-ups either way.
  for (const table of ROLLUP_TABLES)
    await knex.schema.alterTable(table, (columns) => {
      columns.integer('partial').notNullable().defaultTo(0);
    });
  await knex.schema.alterTable('span_rollups', (table) => {
    table.index(['application_id', 'bucket_width_s', 'partial', 'bucket_start_unix_nano'], 'span_rollups_partial');
  });
  for (const table of ROLLUP_TABLES)
    await knex(table)
      .update({ partial: 1 })
      .whereExists((edge) =>
        edge
          .select(knex.raw('1'))
          .from('applications')
          .whereRaw(`applications.id = ${table}.application_id`)
          .whereRaw(`${table}.bucket_start_unix_nano < applications.spans_purged_before`),
      );
  await knex.schema.alterTable('applications', (table) => {
    table.dropColumn('spans_purged_before');
  });
}
