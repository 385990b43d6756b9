// InnoDB page compression with LZ4 for the span tables and the tables derived from them, on
// MariaDB servers that load the `provider_lz4` plugin and choose `innodb_compression_algorithm=lz4`
// (README, "Databases"). LZ4 only: zlib pages are smaller but cost about 4x the server CPU per
// row, and ingestion is CPU-bound. Without LZ4 the tables stay uncompressed and work the same.
// SQLite has no page compression: everything here answers "not available" there.
import type { Knex } from 'knex';
import { isMysql } from './sql/index.js';

/** The tables that grow with spans, in the order they are compressed (largest last). */
export const SPAN_TABLES = [
  'traces',
  'span_rollups',
  'slot_rollups',
  'trace_slot_values',
  'span_slot_values',
  'trace_figures',
  'trace_histograms',
  'spans',
] as const;

/**
 * The size (data and indexes, as information_schema reports it) up to which a migration at start
 * compresses a table: `ALTER TABLE … PAGE_COMPRESSED=1` copies the table, and a start must not
 * spend minutes doing that unasked. Larger tables wait for `npm run compress:pages`.
 */
export const COMPRESS_AT_START_MAX_BYTES = 64 * 1024 * 1024;

export type Lz4Availability = { available: true } | { available: false; reason: string };

/** Whether new or rebuilt pages of a PAGE_COMPRESSED table would be written with LZ4. */
export async function lz4PageCompression(knex: Knex): Promise<Lz4Availability> {
  if (!isMysql(knex)) return { available: false, reason: 'SQLite has no page compression' };
  const [plugins] = (await knex.raw(
    "SELECT PLUGIN_STATUS AS status FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'provider_lz4'",
  )) as [Array<{ status: string }>];
  if (plugins[0]?.status !== 'ACTIVE') {
    return {
      available: false,
      reason: 'the provider_lz4 plugin is not loaded (package mariadb-plugin-provider-lz4, server option plugin-load-add=provider_lz4)',
    };
  }
  const [algorithms] = (await knex.raw('SELECT @@GLOBAL.innodb_compression_algorithm AS algorithm')) as [Array<{ algorithm: string }>];
  const algorithm = String(algorithms[0]?.algorithm ?? '');
  if (algorithm.toLowerCase() !== 'lz4') {
    return {
      available: false,
      reason: `innodb_compression_algorithm is ${algorithm || 'unknown'}, not lz4 (server option innodb-compression-algorithm=lz4)`,
    };
  }
  return { available: true };
}

export interface SpanTablePages {
  table: (typeof SPAN_TABLES)[number];
  compressed: boolean;
  /** DATA_LENGTH + INDEX_LENGTH: the uncompressed size, whether the pages are compressed or not. */
  bytes: number;
}

/** The span tables of the current database and whether their pages are compressed (MariaDB only). */
export async function spanTablePages(knex: Knex): Promise<SpanTablePages[]> {
  if (!isMysql(knex)) return [];
  const rows = (await knex('information_schema.TABLES')
    .where('TABLE_SCHEMA', knex.raw('DATABASE()'))
    .whereIn('TABLE_NAME', [...SPAN_TABLES])
    .select({ table: 'TABLE_NAME', options: 'CREATE_OPTIONS', data: 'DATA_LENGTH', indexes: 'INDEX_LENGTH' })) as Array<{
    table: string;
    options: string | null;
    data: number | string | null;
    indexes: number | string | null;
  }>;
  const byName = new Map(rows.map((row) => [row.table, row]));
  return SPAN_TABLES.flatMap((table) => {
    const row = byName.get(table);
    if (!row) return [];
    return [
      {
        table,
        compressed: /page_compressed`?\s*=\s*'?(1|on)\b/i.test(row.options ?? ''),
        bytes: Number(row.data ?? 0) + Number(row.indexes ?? 0),
      },
    ];
  });
}

export interface CompressionOutcome {
  compressed: string[];
  /** Uncompressed tables larger than the limit: left for `npm run compress:pages`. */
  leftLarge: string[];
}

/**
 * Rebuilds the uncompressed span tables with `PAGE_COMPRESSED=1`, those up to `maxBytes` only
 * (no limit by default). Each ALTER rebuilds its table in place, writes allowed on one server (on
 * Galera the DDL holds every node's writes while it runs); nothing happens where LZ4 is not available.
 */
export async function compressSpanTables(
  knex: Knex,
  { maxBytes = Number.POSITIVE_INFINITY, onTable }: { maxBytes?: number; onTable?: (table: string, bytes: number) => void } = {},
): Promise<CompressionOutcome> {
  const outcome: CompressionOutcome = { compressed: [], leftLarge: [] };
  if (!(await lz4PageCompression(knex)).available) return outcome;
  for (const { table, compressed, bytes } of await spanTablePages(knex)) {
    if (compressed) continue;
    if (bytes > maxBytes) {
      outcome.leftLarge.push(table);
      continue;
    }
    onTable?.(table, bytes);
    await knex.raw('ALTER TABLE ?? PAGE_COMPRESSED=1', [table]);
    outcome.compressed.push(table);
  }
  return outcome;
}

/** Rebuilds the compressed span tables without page compression (the migration's `down`). */
export async function uncompressSpanTables(knex: Knex): Promise<void> {
  for (const { table, compressed } of await spanTablePages(knex)) {
    if (compressed) await knex.raw('ALTER TABLE ?? PAGE_COMPRESSED=0', [table]);
  }
}

export interface PageCompressionNotice {
  level: 'info' | 'warn';
  message: string;
  fields: Record<string, unknown>;
}

/**
 * What the start logs about the span tables' pages on MariaDB: uncompressed and how to enable
 * LZ4, or tables too large to have been compressed at start; nothing when all are compressed.
 */
export async function pageCompressionNotice(knex: Knex): Promise<PageCompressionNotice | undefined> {
  if (!isMysql(knex)) return undefined;
  const lz4 = await lz4PageCompression(knex);
  if (!lz4.available) {
    return {
      level: 'info',
      message: 'span tables: pages uncompressed; to compress them with LZ4 see README, "Smaller span tables: LZ4 page compression"',
      fields: { reason: lz4.reason },
    };
  }
  const uncompressed = (await spanTablePages(knex)).filter((table) => !table.compressed).map((table) => table.table);
  if (uncompressed.length === 0) return undefined;
  return {
    level: 'warn',
    message: 'span tables: LZ4 is available but these tables are uncompressed; `npm run compress:pages` rebuilds them',
    fields: { tables: uncompressed },
  };
}
