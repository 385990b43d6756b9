// Spend roll-ups (src/storage/spend/, README.md there): per application, UTC hour and UTC day of
// span start time (two widths) and combination of service, model, provider, SKU, billing resource
// type and spend currency, the spans, the traces rooted in them, cost, tokens and unpriced LLM
// calls. Spans stored before this migration are rolled up here, both widths, in batches by `seq`,
// as 20261123000400_span_rollups did.
import type { Knex } from 'knex';
import { SPEND_DIMENSIONS, SPEND_ROLLUPS, TOKEN_COLUMNS, addSpendQueries, spendDeltas, type SpendSpan } from '../spend/spend-rollups.js';
import { isMysql } from '../sql/index.js';
import { binaryCollation } from './mysql-table-options.js';

const BACKFILL_BATCH = 5000;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('spend_rollups', (table) => {
    table.string('application_id', 40).notNullable();
    /** 3600 (an hour) or 86400 (a day), as span_rollups keeps its widths. */
    table.integer('bucket_width_s').notNullable();
    table.bigInteger('bucket_start_unix_nano').notNullable();
    /** A hash of the key values (the key cannot hold TEXT columns on MariaDB/MySQL). */
    table.string('dimensions_hash', 32).notNullable();
    for (const column of SPEND_DIMENSIONS) table.text(column).nullable();
    /** The spend currency (price_currency, or USD for a reported cost); null for the spans without a cost. */
    table.string('currency', 3).nullable();
    table.bigInteger('span_count').notNullable();
    /** The root spans (no parent span id): each trace counted once, in its root span's row. */
    table.bigInteger('trace_count').notNullable();
    table.bigInteger('cost_count').notNullable();
    table.double('cost_sum').notNullable();
    for (const column of TOKEN_COLUMNS) table.bigInteger(column).notNullable();
    table.bigInteger('unpriced_count').notNullable();
    table.bigInteger('unpriced_tokens').notNullable();
    table.primary(['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash']);
    binaryCollation(knex, table);
  });
  await backfill(knex);
}

/** Rolls up the spans already stored, batch by batch in receive order, into hour and day rows. */
async function backfill(knex: Knex): Promise<void> {
  const columns = [
    'seq',
    'application_id',
    'parent_span_id',
    'cost',
    'price_currency',
    'unpriced_reason',
    ...SPEND_DIMENSIONS,
    ...TOKEN_COLUMNS,
  ];
  const start = isMysql(knex)
    ? knex.raw('CAST(start_time_unix_nano AS CHAR) AS start_time_unix_nano')
    : knex.raw('CAST(start_time_unix_nano AS TEXT) AS start_time_unix_nano');
  let after = '0';
  for (;;) {
    const rows = (await knex('spans')
      .select(...columns, start)
      .whereRaw(isMysql(knex) ? 'seq > CAST(? AS UNSIGNED)' : 'seq > CAST(? AS INTEGER)', [after])
      .orderBy('seq')
      .limit(BACKFILL_BATCH)) as Array<SpendSpan & { seq: number | string }>;
    if (rows.length === 0) return;
    after = String(rows[rows.length - 1]?.seq);
    for (const statement of addSpendQueries(knex, SPEND_ROLLUPS, spendDeltas(rows))) await statement;
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('spend_rollups');
}
