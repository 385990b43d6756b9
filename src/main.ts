// `npm start`: reads the configuration, starts the service and stops it cleanly on SIGTERM/SIGINT.
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

function firstRunHint(config: Config, url: string): string {
  return [
    `spanledger is listening on ${url} (APIs: ${config.apis.join(', ')}; database: ${config.databaseUrl ? config.databaseUrl.replace(/\/\/[^@]*@/, '//***@') : 'embedded SQLite in ' + config.dataDir})`,
    `  API docs:      ${url}/docs`,
    `  Health:        ${url}/healthz`,
    `  Get a token:   TOKEN=$(npm run --silent token -- --sub alice --email alice@example.com --name Alice)`,
    `  First call:    curl -s -X POST ${url}/organizations -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"name":"Acme"}'`,
  ].join('\n');
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger(config.logLevel);
const server = await startServer(config, logger);
console.error(firstRunHint(config, server.url));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
