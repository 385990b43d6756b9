// Export jobs (src/exports/README.md): one row per bulk export an engine caller created, holding
// its query (window, filter, grain, columns), its state, progress, the position its worker
// reached (the keyset of the last record written, and the file format's state), and the lease of
// the instance working on it; and the file itself, as the parts each batch appended. No foreign
// key, as the other tables: a job of a deleted application stays readable until it is purged.
import type { Knex } from 'knex';
import { isMysql } from '../sql/index.js';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  await knex.schema.createTable('exports', (table) => {
    table.string('id', 40).primary();
    table.string('application_id', 40).notNullable();
    /** The application's organization, whose limits (active jobs, bytes kept) the job counts against. */
    table.string('organization_id', 40).notNullable();
    /** queued, running, succeeded, failed, cancelled, expired. */
    table.string('state', 16).notNullable();
    /** spans or traces. */
    table.string('grain', 8).notNullable();
    /** ndjson, csv or parquet. */
    table.string('format', 8).notNullable();
    /** The columns chosen, as a JSON array of names; null: every field of the grain's record. */
    table.text('columns').nullable();
    /** The filter as sent, as JSON text (MEDIUMTEXT on MariaDB: a filter may be as long as the 1 MiB body). */
    table.text('filter', 'mediumtext').nullable();
    table.boolean('search_child_spans').notNullable().defaultTo(false);
    /**
     * The window of span (or root span) start time, [start, end), in Unix nanoseconds as decimal
     * text: a bound may lie outside the BIGINT range (RFC 3339 reaches from year 0001 to 9999),
     * and the reads apply it as the engine's reads do.
     */
    table.string('start_unix_nano', 24).notNullable();
    table.string('end_unix_nano', 24).notNullable();
    /** Epoch milliseconds; created_at is also the snapshot time. */
    table.bigInteger('created_at').notNullable();
    table.bigInteger('started_at').nullable();
    table.bigInteger('finished_at').nullable();
    table.bigInteger('expires_at').nullable();
    table.bigInteger('rows_written').notNullable().defaultTo(0);
    table.bigInteger('bytes_written').notNullable().defaultTo(0);
    /** The number of parts written: the next part's number. */
    table.integer('parts_written').notNullable().defaultTo(0);
    /** The keyset of the last record written (JSON array of its sort key's text parts); null before the first batch. */
    table.text('after_key').nullable();
    /** The file format's state between batches (JSON text); null for formats without one. */
    table.text('format_state', 'longtext').nullable();
    table.string('error_code', 32).nullable();
    table.text('error_message').nullable();
    /** The instance working on the job, and until when (epoch milliseconds) it holds it. */
    table.string('lease_owner', 64).nullable();
    table.bigInteger('lease_expires_at').nullable();
    table.index(['application_id', 'created_at', 'id'], 'exports_by_application');
    table.index(['organization_id', 'state'], 'exports_by_organization');
    table.index(['state', 'created_at'], 'exports_by_state');
    binaryCollation(knex, table);
  });
  await knex.schema.createTable('export_parts', (table) => {
    table.string('export_id', 40).notNullable();
    table.integer('part').notNullable();
    /** The file offset of the part's first byte (`offset` is a reserved word of MariaDB). */
    table.bigInteger('byte_offset').notNullable();
    if (mysql) table.specificType('bytes', 'LONGBLOB').notNullable();
    else table.binary('bytes').notNullable();
    table.primary(['export_id', 'part']);
    // A download from a byte on starts at the part holding it.
    table.index(['export_id', 'byte_offset'], 'export_parts_by_offset');
    binaryCollation(knex, table);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('export_parts');
  await knex.schema.dropTableIfExists('exports');
}
