// The frame of a command that works on the configured database (`npm run migrate`,
// `npm run compress:pages`): a problem the operator fixes (configuration, a database that cannot
// be used, or one the command names) stops it with one line on stderr and exit code 1, as it
// stops `npm start`; anything else is rethrown with its stack.
import type { Knex } from 'knex';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { openDatabase } from '../../src/storage/database.js';
import { asDatabaseUnusable, DatabaseUnusable } from '../../src/storage/database-unusable.js';

type ErrorClass = abstract new (...args: never[]) => Error;

export async function runDatabaseCommand(
  work: (knex: Knex, config: Config) => Promise<void>,
  alsoStopOn: ErrorClass[] = [],
): Promise<void> {
  function stopOn(error: unknown): never {
    if (!(error instanceof ConfigError || error instanceof DatabaseUnusable || alsoStopOn.some((type) => error instanceof type)))
      throw error;
    console.error((error as Error).message);
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
    // Knex's warnings (a failed connection, say) go to the structured log on stdout, as in the service.
    knex = openDatabase(config.databaseUrl, config.dataDir, createLogger(config.logLevel));
  } catch (error) {
    stopOn(asDatabaseUnusable(error, config.databaseUrl, config.dataDir));
  }
  try {
    await work(knex, config);
  } catch (error) {
    await knex.destroy();
    stopOn(asDatabaseUnusable(error, config.databaseUrl, config.dataDir));
  }
  await knex.destroy();
}
