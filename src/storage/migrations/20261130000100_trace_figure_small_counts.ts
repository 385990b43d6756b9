// Span and error counts below 100 filed without rows of their own (src/storage/spans/fold/trace-folding.ts,
// src/storage/spans/fold/README.md): each is alone in its histogram bin, so the
// histogram row already says which value each of its traces has. The trace's duration row
// (figure 0) carries them instead, for the unfiling: null where the count has its own row.
// Rows filed before keep their count rows; both layouts are read and unfiled alike.
import type { Knex } from 'knex';

const COLUMNS = ['small_spans_count', 'small_error_count'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('trace_figures', (table) => {
    for (const column of COLUMNS) table.smallint(column).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('trace_figures', (table) => {
    table.dropColumns(...COLUMNS);
  });
}
