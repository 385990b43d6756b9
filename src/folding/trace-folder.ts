// The trace fold (src/storage/spans/trace-folding.ts, docs/analytics.md, "Folded trace figures")
// as a background job: every TRACE_FOLD_INTERVAL_SECONDS, one pass files the pending summaries
// of every application that has some, batch by batch, each batch one short transaction; while
// this process stores spans, a backlog the reads still answer around is left to a later pass
// (foldApplication), so that a burst is stored at the writer's pace. Safe
// beside ingestion (a summary changed meanwhile is pending again) and beside the folds of other
// instances (each batch reads its summaries locked; on Galera the loser of a conflict is retried).
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { FoldingConfig } from '../config.js';
import { PeriodicPasses } from '../periodic-passes.js';
import { applicationsWithPendingTraces, foldApplication } from '../storage/spans/trace-folding.js';

export interface TraceFolderDeps {
  knex: Knex;
  logger: Logger;
  config: FoldingConfig;
  /** Whether this process's ingestion is storing spans now (src/ingest/ingest-activity.ts): a small backlog waits for it. */
  ingestBusy?: () => boolean;
}

export class TraceFolder extends PeriodicPasses {
  constructor(private readonly deps: TraceFolderDeps) {
    super(deps.config.intervalSeconds);
  }

  /** One pass over the applications with pending summaries; resolves with the traces filed. */
  protected async pass(): Promise<number> {
    const { knex, logger, config } = this.deps;
    let folded = 0;
    try {
      for (const applicationId of await applicationsWithPendingTraces(knex)) {
        if (this.stopped) break;
        folded += await foldApplication(knex, applicationId, config.batchSize, { shouldStop: () => this.stopped, ingestBusy: this.deps.ingestBusy });
      }
    } catch (error) {
      logger.error({ err: error, folded }, 'trace fold failed');
      throw error;
    }
    return folded;
  }
}
