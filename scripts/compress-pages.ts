// `npm run compress:pages`: rebuilds every uncompressed span table of DATABASE_URL (MariaDB) with
// LZ4 page compression (src/storage/page-compression.ts), whatever its size: the migration at start
// compresses only small tables. One `ALTER TABLE … PAGE_COMPRESSED=1` per table, the largest
// (spans) last; each copies its table, about 16 s per GiB on two cores (BENCHMARKS.md, "Page
// compression"), with writes allowed on one server; on Galera the DDL holds writes on every node
// while it runs. Interrupted, it starts again where it stopped: compressed tables are skipped.
// Exits 1 with one line when the server has no LZ4 or the database is not MariaDB.
import { compressSpanTables, lz4PageCompression } from '../src/storage/page-compression.js';
import { runDatabaseCommand } from './lib/database-command.js';

/** The server has no LZ4: said in one line, exit code 1. */
class NoLz4 extends Error {}

await runDatabaseCommand(
  async (knex) => {
    const lz4 = await lz4PageCompression(knex);
    if (!lz4.available) throw new NoLz4(`pages not compressed: ${lz4.reason}`);
    const started = performance.now();
    const { compressed } = await compressSpanTables(knex, {
      onTable: (table, bytes) => console.log(`compressing ${table} (${(bytes / 2 ** 20).toFixed(0)} MiB uncompressed)`),
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(compressed.length === 0 ? 'every span table is compressed already' : `compressed ${compressed.join(', ')} in ${seconds} s`);
  },
  [NoLz4],
);
