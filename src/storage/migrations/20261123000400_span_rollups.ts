// Roll-ups of the spans (src/storage/spans/rollups/span-rollups.ts, docs/analytics.md): per application,
// per minute and per hour of start time and per combination of the low-cardinality text columns,
// the count of spans and the count, sum, minimum and maximum of duration, cost and usage amount.
// Spans stored before this migration are rolled up here, in batches by `seq`.
import type { Knex } from 'knex';
import { ROLLUP_DIMENSIONS, addRollupsQuery, rollupDeltas, type RollupSpan } from '../spans/rollups/span-rollups.js';
import { isMysql } from '../sql/index.js';
import { binaryCollation } from './mysql-table-options.js';

const BACKFILL_BATCH = 5000;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('span_rollups', (table) => {
    table.string('application_id', 40).notNullable();
    /** 60 or 3600: the bucket's width in seconds. */
    table.integer('bucket_width_s').notNullable();
    table.bigInteger('bucket_start_unix_nano').notNullable();
    /** A hash of the dimension values (the key cannot hold TEXT columns on MariaDB/MySQL). */
    table.string('dimensions_hash', 32).notNullable();
    for (const column of ROLLUP_DIMENSIONS) {
      if (column === 'span_kind' || column === 'status_code') table.string(column, 32).nullable();
      else table.text(column).nullable();
    }
    table.bigInteger('span_count').notNullable();
    for (const measure of ['duration', 'cost', 'usage']) {
      table.bigInteger(`${measure}_count`).notNullable();
      table.double(`${measure}_sum`).notNullable();
      table.double(`${measure}_min`).nullable();
      table.double(`${measure}_max`).nullable();
    }
    /** 1 once spans were taken out of the bucket (retention); dropped by 20261203000100_purge_edge, whose code writes none. */
    table.integer('partial').notNullable().defaultTo(0);
    table.primary(['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash']);
    // Finds the partial buckets of a window without reading the others.
    table.index(['application_id', 'bucket_width_s', 'partial', 'bucket_start_unix_nano'], 'span_rollups_partial');
    binaryCollation(knex, table);
  });
  await backfill(knex);
}

/** Rolls up the spans already stored, batch by batch in receive order. */
async function backfill(knex: Knex): Promise<void> {
  const columns = ['seq', 'application_id', 'start_time_unix_nano', 'duration_ms', 'cost', 'usage_amount', ...ROLLUP_DIMENSIONS];
  const start = isMysql(knex)
    ? knex.raw('CAST(start_time_unix_nano AS CHAR) AS start_time_unix_nano')
    : knex.raw('CAST(start_time_unix_nano AS TEXT) AS start_time_unix_nano');
  let after = '0';
  for (;;) {
    const rows = (await knex('spans')
      .select(...columns.filter((column) => column !== 'start_time_unix_nano'), start)
      .whereRaw(isMysql(knex) ? 'seq > CAST(? AS UNSIGNED)' : 'seq > CAST(? AS INTEGER)', [after])
      .orderBy('seq')
      .limit(BACKFILL_BATCH)) as Array<RollupSpan & { seq: number | string }>;
    if (rows.length === 0) return;
    after = String(rows[rows.length - 1]?.seq);
    const deltas = rollupDeltas(rows);
    for (const statement of addRollupsQuery(knex, deltas)) await statement;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('span_rollups');
}
