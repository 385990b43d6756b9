// Budgets (src/storage/budgets/README.md): an organization's amounts per day or month with their
// thresholds, and the crossings the evaluator recorded. A crossing's primary key (budget, period
// start, threshold) is what makes a threshold fire once per period across instances: the second
// insert of one is a duplicate, and its transaction (which would have stored the event) rolls back.
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('budgets', (table) => {
    binaryCollation(knex, table);
    table.string('id', 40).primary();
    table.string('organization_id', 40).notNullable().references('organizations.id');
    table.string('name', 200).notNullable();
    /** Null: every application of the organization. */
    table.string('application_id', 40).nullable();
    table.double('amount').notNullable();
    table.string('currency', 3).notNullable();
    /** day or month. */
    table.string('period', 8).notNullable();
    /** Whole percents, a JSON array in ascending order. */
    table.string('thresholds', 200).notNullable();
    table.boolean('enabled').notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.bigInteger('deleted_at').nullable();
    table.index(['organization_id', 'deleted_at', 'created_at', 'id'], 'budgets_by_organization');
  });
  await knex.schema.createTable('budget_crossings', (table) => {
    binaryCollation(knex, table);
    table.string('budget_id', 40).notNullable();
    /** The period's start, epoch milliseconds. */
    table.bigInteger('period_start').notNullable();
    table.integer('threshold_percent').notNullable();
    table.bigInteger('crossed_at').notNullable();
    /** The period's spend when the crossing was found (the event's). */
    table.double('spend').notNullable();
    table.primary(['budget_id', 'period_start', 'threshold_percent']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('budget_crossings');
  await knex.schema.dropTableIfExists('budgets');
}
