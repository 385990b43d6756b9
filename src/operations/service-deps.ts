// What handler modules receive: the configuration, the database and the token service.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { TokenService } from '../auth/tokens.js';
import type { Config } from '../config.js';

export interface ServiceDeps {
  config: Config;
  knex: Knex;
  logger: Logger;
  tokens: TokenService;
}
