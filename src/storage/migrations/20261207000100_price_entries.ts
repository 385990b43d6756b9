// Organizations' price entries (src/pricing/price-entries.ts), which override or extend the
// default price book at ingestion, and the provenance of a cost they priced on the span: the
// entry's id (`price_entry_id`) and the currency of every computed cost (`price_currency`).
// Entries are soft-deleted like the other management resources: a span keeps naming the entry
// that priced it. The span columns are nullable and added at the end of the row (MariaDB adds
// them instantly); the costs computed before this migration were all the default book's, in USD.
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('price_entries', (table) => {
    binaryCollation(knex, table);
    table.string('id', 40).primary();
    table.string('organization_id', 40).notNullable().references('organizations.id');
    // Texts as sent (256 characters at most); matching folds their case in the service.
    table.string('provider', 256).nullable();
    table.string('model', 256).notNullable();
    table.double('input_price').notNullable();
    table.double('output_price').notNullable();
    table.double('cache_read_price').nullable();
    table.double('cache_creation_price').nullable();
    table.double('request_price').nullable();
    table.string('currency', 3).notNullable();
    // Epoch milliseconds; null: since always, open-ended.
    table.bigInteger('valid_from').nullable();
    table.bigInteger('valid_to').nullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.bigInteger('deleted_at').nullable();
    // The organization's entries: its list (created_at, id) and ingestion's read of them all.
    table.index(['organization_id', 'deleted_at', 'created_at', 'id'], 'price_entries_by_organization');
  });
  await knex.schema.alterTable('spans', (table) => {
    table.string('price_entry_id', 40).nullable();
    table.string('price_currency', 3).nullable();
  });
  await knex('spans').where({ cost_source: 'computed' }).update({ price_currency: 'USD' });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('spans', (table) => {
    for (const column of ['price_entry_id', 'price_currency']) table.dropColumn(column);
  });
  await knex.schema.dropTable('price_entries');
}
