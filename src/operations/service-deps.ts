// What handler modules receive: the configuration, the database, the token service, the
// organizations' price entries as ingestion uses them, and the clock.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { TokenService } from '../auth/tokens.js';
import type { Config } from '../config.js';
import type { SpanStore } from '../storage/spans/span-store.js';
import type { PriceEntryCache } from '../pricing/price-entry-cache.js';

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
   * The organizations' price entries ingestion prices with; a change through the management API
   * forgets its organization's copy before answering (src/pricing/price-entry-cache.ts).
   */
  prices: PriceEntryCache;
  /**
   * The time now, epoch milliseconds, for usage hours and the daily span quota's UTC day
   * (Date.now when absent): tests pass a settable one to cross midnight without waiting.
   */
  clock?: () => number;
  /** The process's ingestion, which background jobs give way to (absent: not tracked). */
  ingestActivity?: StoreTracker;
}
