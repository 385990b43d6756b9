// Knex CLI settings; the service itself builds the same settings from its configuration.
import { loadConfig } from './src/config.js';
import { knexSettings } from './src/storage/database.js';
import { migratorConfig } from './src/storage/migrations/index.js';

const config = loadConfig();

export default { ...knexSettings(config.databaseUrl, config.dataDir), migrations: migratorConfig };
