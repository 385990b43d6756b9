// Accounts: users, organizations, memberships, applications and API keys.
// Timestamps are epoch milliseconds (BIGINT) so both dialects store them identically.
import type { Knex } from 'knex';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (table) => {
    table.string('id', 40).primary();
    table.string('issuer', 255).nullable();
    table.string('subject', 255).nullable();
    table.string('email', 255).nullable();
    table.string('name', 255).nullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.unique(['issuer', 'subject']);
    table.index(['email']);
    binaryCollation(knex, table);
  });
  await knex.schema.createTable('organizations', (table) => {
    table.string('id', 40).primary();
    table.string('name', 255).notNullable();
    table.string('contract_email', 255).notNullable().defaultTo('');
    table.string('tax_id', 50).notNullable().defaultTo('');
    table.text('address').notNullable();
    table.text('billing_address').notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.bigInteger('deleted_at').nullable();
    binaryCollation(knex, table);
  });
  await knex.schema.createTable('memberships', (table) => {
    table.string('organization_id', 40).notNullable().references('organizations.id');
    table.string('user_id', 40).notNullable().references('users.id');
    table.string('role', 16).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    // Removal is soft; adding the person again revives this row (one row per organization and user).
    table.bigInteger('deleted_at').nullable();
    table.primary(['organization_id', 'user_id']);
    table.index(['user_id']);
    binaryCollation(knex, table);
  });
  await knex.schema.createTable('applications', (table) => {
    table.string('id', 40).primary();
    table.string('organization_id', 40).notNullable().references('organizations.id');
    table.string('name', 255).notNullable();
    table.string('region', 8).notNullable();
    table.string('pricing_plan', 16).notNullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.bigInteger('deleted_at').nullable();
    table.index(['organization_id', 'deleted_at']);
    binaryCollation(knex, table);
  });
  await knex.schema.createTable('api_keys', (table) => {
    table.string('id', 64).primary();
    table.string('application_id', 40).notNullable().references('applications.id');
    table.string('name', 255).notNullable();
    table.text('permissions').notNullable();
    table.string('secret_hash', 128).notNullable();
    // Tokens carry the generation they were issued under; rotation bumps it, so older tokens die at once.
    table.integer('secret_generation').notNullable().defaultTo(1);
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.bigInteger('last_used_at').nullable();
    table.bigInteger('deleted_at').nullable();
    table.index(['application_id', 'deleted_at']);
    binaryCollation(knex, table);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['api_keys', 'applications', 'memberships', 'organizations', 'users']) {
    await knex.schema.dropTableIfExists(table);
  }
}
