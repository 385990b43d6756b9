// The retention purger: every RETENTION_PURGE_INTERVAL_SECONDS, one pass over every application
// removes the spans past its retention (all spans of a deleted application), batch by batch.
// Safe beside ingestion and beside the purgers of other instances (docs/retention.md).
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Counter, Registry } from 'prom-client';
import type { RetentionConfig } from '../config.js';
import { listRetentionTargets, type RetentionTarget } from '../storage/accounts/applications.js';
import { PeriodicPasses } from './periodic-passes.js';
import { HOUR_NS, hourStartOf, type SpanStore } from '../storage/spans/span-store.js';

const NANOS_PER_DAY = 24n * HOUR_NS;

export interface RetentionPurgerDeps {
  knex: Knex;
  spans: SpanStore;
  logger: Logger;
  config: RetentionConfig;
  /** Where `spanledger_retention_purged_spans_total` is registered (the /metrics registry). */
  registry?: Registry;
}

/**
 * Spans that started before this time are past the target's retention; null: all of them are. On
 * a whole hour (now − retention, floored), so that the purge edge it raises leaves no roll-up
 * bucket cut in two (docs/retention.md).
 */
export function purgeBefore(target: RetentionTarget, defaultDays: number, nowMs: number): bigint | null {
  if (target.deleted) return null;
  const cutoff = BigInt(nowMs) * 1_000_000n - BigInt(target.retention_days ?? defaultDays) * NANOS_PER_DAY;
  return hourStartOf(cutoff);
}

export class RetentionPurger extends PeriodicPasses {
  private readonly purged: Counter;

  constructor(private readonly deps: RetentionPurgerDeps) {
    super(deps.config.purgeIntervalSeconds);
    this.purged = new Counter({
      name: 'spanledger_retention_purged_spans_total',
      help: 'Spans this process removed because they were past their application retention or their application was deleted',
      registers: [deps.registry ?? new Registry()],
    });
  }

  /** One pass over every application; resolves with the spans it deleted (each pass sees the time it starts at). */
  protected async pass(): Promise<number> {
    const { knex, spans, config, logger } = this.deps;
    const started = Date.now();
    let total = 0;
    try {
      for (const target of await listRetentionTargets(knex)) {
        const beforeNs = purgeBefore(target, config.defaultDays, started);
        for (;;) {
          if (this.stopped) return total;
          const { deleted, full } = await spans.purge({ applicationId: target.id, beforeNs, limit: config.purgeBatchSize });
          this.purged.inc(deleted);
          total += deleted;
          if (!full) break;
        }
      }
    } catch (error) {
      // The batches before the failure stay purged (each committed on its own); the failed one rolled back.
      logger.error({ err: error, purged_spans: total, duration_ms: Date.now() - started }, 'retention purge failed');
      throw error;
    }
    if (total > 0) logger.info({ purged_spans: total, duration_ms: Date.now() - started }, 'retention purge');
    return total;
  }
}
