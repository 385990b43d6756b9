// The model, provider and token counts of LLM calls, read at ingestion from the GenAI and
// OpenInference conventions (src/ingest/genai-usage.ts). Nullable columns added at the end of
// the row: MariaDB adds them instantly, without rewriting the table, and spans stored before
// read as null. No roll-up or other derived table keeps them (the read planner sends reads of
// them to the spans).
import type { Knex } from 'knex';

const TOKEN_COLUMNS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens', 'total_tokens'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spans', (table) => {
    table.text('model').nullable();
    table.text('provider').nullable();
    for (const column of TOKEN_COLUMNS) table.bigInteger(column).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spans', (table) => {
    for (const column of ['model', 'provider', ...TOKEN_COLUMNS]) table.dropColumn(column);
  });
}
