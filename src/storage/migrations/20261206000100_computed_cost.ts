// Where a span's cost came from (src/ingest/computed-cost.ts): `cost_source` (`reported`,
// `computed`), the price book entry a computed cost used (`price_model`, `price_provider`) and
// the book's version (`price_book`), or why an LLM call stayed unpriced (`unpriced_reason`).
// Nullable columns added at the end of the row, as 20261205000100_span_tokens: MariaDB adds them
// instantly, and spans stored before read as null. No roll-up or other derived table keeps them
// (the read planner sends reads of them to the spans); a computed cost is in `cost`, which they
// keep as they always did.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spans', (table) => {
    table.string('cost_source', 16).nullable();
    // Ids and versions of the price book: short, but written by the book's maintainers.
    table.string('price_model', 255).nullable();
    table.string('price_provider', 255).nullable();
    table.string('price_book', 255).nullable();
    table.string('unpriced_reason', 32).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spans', (table) => {
    for (const column of ['cost_source', 'price_model', 'price_provider', 'price_book', 'unpriced_reason']) table.dropColumn(column);
  });
}
