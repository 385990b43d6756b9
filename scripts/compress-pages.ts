// `npm run compress:pages`: rebuilds every uncompressed span table of DATABASE_URL (MariaDB) with
// LZ4 page compression (src/storage/page-compression.ts), whatever its size: the migration at start
// compresses only small tables. One `ALTER TABLE … PAGE_COMPRESSED=1` per table, the largest
// (spans) last; each copies its table, about 16 s per GiB on two cores (BENCHMARKS.md, "Page
// compression"), with writes allowed on one server; on Galera the DDL holds writes on every node
// while it runs. Interrupted, it starts again where it stopped: compressed tables are skipped.
// Exits 1 with one line when the server has no LZ4 or the database is not MariaDB.
import type { Knex } from 'knex';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { openDatabase } from '../src/storage/database.js';
import { asDatabaseUnusable, DatabaseUnusable } from '../src/storage/database-unusable.js';
import { compressSpanTables, lz4PageCompression } from '../src/storage/page-compression.js';

function stopOn(error: unknown): never {
  if (!(error instanceof ConfigError || error instanceof DatabaseUnusable)) throw error;
  console.error(error.message);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  stopOn(error);
}
let knex: Knex;
try {
  knex = openDatabase(config.databaseUrl, config.dataDir, createLogger(config.logLevel));
} catch (error) {
  stopOn(asDatabaseUnusable(error, config.databaseUrl, config.dataDir));
}
try {
  const lz4 = await lz4PageCompression(knex);
  if (!lz4.available) {
    console.error(`pages not compressed: ${lz4.reason}`);
    await knex.destroy();
    process.exit(1);
  }
  const started = performance.now();
  const { compressed } = await compressSpanTables(knex, {
    onTable: (table, bytes) => console.log(`compressing ${table} (${(bytes / 2 ** 20).toFixed(0)} MiB uncompressed)`),
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(compressed.length === 0 ? 'every span table is compressed already' : `compressed ${compressed.join(', ')} in ${seconds} s`);
} catch (error) {
  await knex.destroy();
  stopOn(asDatabaseUnusable(error, config.databaseUrl, config.dataDir));
}
await knex.destroy();
