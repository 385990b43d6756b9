// Folded trace figures (src/storage/spans/fold/trace-folding.ts, docs/analytics.md, "Folded trace
// figures"): exact trace metrics and trace-grain percentiles without ranking every summary.
// - traces.folded: whether the trace's figures are filed as they are now (the span writer and
//   the purger set it back to pending whenever they change a summary), with an index that finds
//   the pending ones;
// - trace_figures: per folded trace and figure, its value, fine bin, root hour and root service,
//   indexed to read the values of one bin in order per hour and service, and per window;
// - trace_histograms: per application, root hour, root service, figure and bin, the count, the
//   sum and sum of squares of the filed values' differences from the bin's origin
//   (trace-figures.ts, originOfBin), and bounds that only widen.
// Every stored trace starts pending: the fold job files them in the background, and until it has
// the reads take the summaries as before.
import type { Knex } from 'knex';
import { isMysql } from '../sql/index.js';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  await knex.schema.alterTable('traces', (table) => {
    table.smallint('folded').notNullable().defaultTo(0);
    table.index(['application_id', 'folded'], 'traces_by_fold_state');
  });
  // Bytes on MariaDB/MySQL, as slot values are: a key of a text column would take `x` and `x `
  // for the same service (PAD SPACE).
  const serviceKey = (table: Knex.CreateTableBuilder) => {
    if (mysql) table.specificType('service_key', 'VARBINARY(255)').notNullable();
    else table.text('service_key').notNullable();
  };
  await knex.schema.createTable('trace_figures', (table) => {
    table.string('application_id', 40).notNullable();
    table.string('trace_id', 32).notNullable();
    table.smallint('figure').notNullable();
    table.bigInteger('hour').notNullable();
    serviceKey(table);
    table.integer('bin').notNullable();
    table.double('value').notNullable();
    table.primary(['application_id', 'trace_id', 'figure']);
    binaryCollation(knex, table);
  });
  // One hour and service's values of a run of bins, in value order (bins rise with the value).
  await knex.raw('CREATE INDEX trace_figures_by_cell ON trace_figures (application_id, figure, hour, service_key, bin, value, trace_id)');
  // One bin's values of a run of hours.
  await knex.raw('CREATE INDEX trace_figures_by_bin ON trace_figures (application_id, figure, bin, hour, value, trace_id)');
  await knex.schema.createTable('trace_histograms', (table) => {
    table.string('application_id', 40).notNullable();
    table.bigInteger('hour').notNullable();
    serviceKey(table);
    table.smallint('figure').notNullable();
    table.integer('bin').notNullable();
    table.bigInteger('trace_count').notNullable();
    table.double('value_sum').notNullable();
    table.double('value_sum_sq').notNullable();
    table.double('value_low').nullable();
    table.double('value_high').nullable();
    table.primary(['application_id', 'hour', 'service_key', 'figure', 'bin']);
    binaryCollation(knex, table);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('trace_histograms');
  await knex.schema.dropTableIfExists('trace_figures');
  await knex.schema.alterTable('traces', (table) => {
    table.dropIndex(['application_id', 'folded'], 'traces_by_fold_state');
    table.dropColumn('folded');
  });
}
