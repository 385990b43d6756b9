// The audit log's retention: every AUDIT_PURGE_INTERVAL_SECONDS, one pass deletes the events older
// than AUDIT_RETENTION_DAYS, oldest first, in batches of AUDIT_PURGE_BATCH_SIZE (each one short
// statement). Safe beside the purgers of other instances: a batch deletes by id only events past
// retention, so two instances taking the same batch delete each event once between them.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditConfig } from '../config.js';
import { PeriodicPasses } from '../periodic-passes.js';
import { purgeAuditBatch } from '../storage/audit/audit-events.js';

const MS_PER_DAY = 86_400_000;

export interface AuditPurgerDeps {
  knex: Knex;
  logger: Logger;
  config: AuditConfig;
  /** The clock of a pass (tests move it). */
  now?: () => number;
}

export class AuditPurger extends PeriodicPasses {
  constructor(private readonly deps: AuditPurgerDeps) {
    super(deps.config.purgeIntervalSeconds);
  }

  /** One pass; resolves with the events it deleted. */
  protected async pass(): Promise<number> {
    const { knex, config, logger } = this.deps;
    const started = (this.deps.now ?? Date.now)();
    const beforeMs = started - config.retentionDays * MS_PER_DAY;
    let total = 0;
    try {
      for (;;) {
        if (this.stopped) break;
        const { deleted, full } = await purgeAuditBatch(knex, beforeMs, config.purgeBatchSize);
        total += deleted;
        if (!full) break;
      }
    } catch (error) {
      logger.error({ err: error, purged_audit_events: total }, 'audit purge failed');
      throw error;
    }
    if (total > 0) logger.info({ purged_audit_events: total, duration_ms: Date.now() - started }, 'audit purge');
    return total;
  }
}
