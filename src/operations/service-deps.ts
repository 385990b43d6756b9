// What handler modules receive: the configuration, the database, the token service and the clock.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { TokenService } from '../auth/tokens.js';
import type { Config } from '../config.js';
import type { SpanStore } from '../storage/spans/span-store.js';

/** Runs each store of spans, counting it (src/ingest/ingest-activity.ts): background jobs give way to ingestion. */
export interface StoreTracker {
  during<T>(store: () => Promise<T>): Promise<T>;
}

export interface ServiceDeps {
  config: Config;
  knex: Knex;
  /** The spans and everything derived from them: the engine and ingestion read and write spans only through it. */
  spans: SpanStore;
  logger: Logger;
  tokens: TokenService;
  /**
   * The time now, epoch milliseconds, for usage hours and the daily span quota's UTC day
   * (Date.now when absent): tests pass a settable one to cross midnight without waiting.
   */
  clock?: () => number;
  /** The process's ingestion, which background jobs give way to (absent: not tracked). */
  ingestActivity?: StoreTracker;
}
