// A background purge of rows that are only ever added: every `purgeIntervalSeconds`, one pass
// deletes the rows older than `retentionDays`, oldest first, in batches of `purgeBatchSize` (each
// one short statement). Safe beside the purgers of other instances when `purgeBatch` deletes by
// key only rows still past retention: two instances taking the same batch delete each row once.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditConfig } from '../config.js';
import { PeriodicPasses } from './periodic-passes.js';

const MS_PER_DAY = 86_400_000;

export type PurgeBatch = (knex: Knex, beforeMs: number, limit: number) => Promise<{ deleted: number; full: boolean }>;

export interface BatchPurgerDeps {
  knex: Knex;
  logger: Logger;
  config: AuditConfig;
  /** The clock of a pass (tests move it). */
  now?: () => number;
}

export class BatchPurger extends PeriodicPasses {
  constructor(
    private readonly deps: BatchPurgerDeps,
    /** What the log calls the rows (`purged_<rows>`) and the purge (`<label> purge`). */
    private readonly names: { rows: string; label: string },
    private readonly purgeBatch: PurgeBatch,
  ) {
    super(deps.config.purgeIntervalSeconds);
  }

  /** One pass; resolves with the rows it deleted. */
  protected async pass(): Promise<number> {
    const { knex, config, logger } = this.deps;
    const started = (this.deps.now ?? Date.now)();
    const beforeMs = started - config.retentionDays * MS_PER_DAY;
    const field = `purged_${this.names.rows}`;
    let total = 0;
    try {
      for (;;) {
        if (this.stopped) break;
        const { deleted, full } = await this.purgeBatch(knex, beforeMs, config.purgeBatchSize);
        total += deleted;
        if (!full) break;
      }
    } catch (error) {
      logger.error({ err: error, [field]: total }, `${this.names.label} purge failed`);
      throw error;
    }
    if (total > 0) logger.info({ [field]: total, duration_ms: Date.now() - started }, `${this.names.label} purge`);
    return total;
  }
}
