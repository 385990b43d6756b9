// `npm run migrate`: applies every pending migration to DATABASE_URL (or the embedded SQLite file).
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrations/index.js';

const config = loadConfig();
const knex = openDatabase(config.databaseUrl, config.dataDir);
try {
  await migrateToLatest(knex);
  console.log('migrations are current');
} finally {
  await knex.destroy();
}
