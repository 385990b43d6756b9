// LZ4 page compression for the span tables and the tables derived from them
// (src/storage/page-compression.ts, README "Databases"), on MariaDB servers that load the
// provider_lz4 plugin with innodb_compression_algorithm=lz4; elsewhere (SQLite, a server without
// LZ4) nothing changes, and the start logs that pages are uncompressed. Only tables up to
// COMPRESS_AT_START_MAX_BYTES are rebuilt here: a larger one would hold the start for minutes,
// so it waits for `npm run compress:pages`, which the start's log line names.
import type { Knex } from 'knex';
import { COMPRESS_AT_START_MAX_BYTES, compressSpanTables, uncompressSpanTables } from '../page-compression.js';
import { isMysql } from '../sql/index.js';

export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await compressSpanTables(knex, { maxBytes: COMPRESS_AT_START_MAX_BYTES });
}

export async function down(knex: Knex): Promise<void> {
  if (!isMysql(knex)) return;
  await uncompressSpanTables(knex);
}
