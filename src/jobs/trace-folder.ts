// The trace fold (src/storage/spans/fold/trace-folding.ts, src/storage/spans/fold/README.md)
// as a background job: every TRACE_FOLD_INTERVAL_SECONDS, one pass folds the pending summaries
// of every application that has some, batch by batch, each batch one short transaction; while
// this process stores spans, a small backlog waits (foldApplication), so that a burst is stored
// at the writer's pace. Safe beside ingestion (a summary changed meanwhile is pending again) and
// beside the folds of other instances (each batch reads its summaries locked; on Galera the
// loser of a conflict is retried).
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { FoldingConfig } from '../config.js';
import { PeriodicPasses } from './periodic-passes.js';
import { applicationsWithPendingTraces, foldApplication } from '../storage/spans/fold/trace-folding.js';

export interface TraceFolderDeps {
  knex: Knex;
  logger: Logger;
  config: FoldingConfig;
  /** Whether this process's ingestion is storing spans now (src/ingest/ingest-activity.ts): a small backlog waits for it. */
  ingestBusy?: () => boolean;
}

/** How soon a pass looks again at the backlogs that gave way to ingestion (foldApplication). */
export const GIVE_WAY_RECHECK_MS = 500;

export class TraceFolder extends PeriodicPasses {
  constructor(private readonly deps: TraceFolderDeps) {
    super(deps.config.intervalSeconds);
  }

  /**
   * One pass over the applications with pending summaries; resolves with the traces folded. The
   * applications whose fold gave way to ingestion are looked at again every GIVE_WAY_RECHECK_MS
   * rather than an interval later, so that their backlogs are folded before they outgrow what the
   * reads take in; meanwhile every application is probed again once an interval, as between
   * passes. The pass ends when no fold gave way.
   */
  protected async pass(): Promise<number> {
    const { knex, logger, config } = this.deps;
    const ingestBusy = this.deps.ingestBusy ?? (() => false);
    let folded = 0;
    try {
      let listedAt = performance.now();
      let applications = await applicationsWithPendingTraces(knex);
      while (!this.stopped && applications.length > 0) {
        const gaveWay: string[] = [];
        for (const applicationId of applications) {
          if (this.stopped) break;
          let sawBusy = false;
          const busy = () => (ingestBusy() ? (sawBusy = true) : false);
          folded += await foldApplication(knex, applicationId, config.batchSize, { shouldStop: () => this.stopped, ingestBusy: busy });
          if (sawBusy) gaveWay.push(applicationId);
        }
        if (gaveWay.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, GIVE_WAY_RECHECK_MS));
        // Without a schedule (an interval of 0, passes run on demand) only those are looked at again.
        if (config.intervalSeconds === 0 || performance.now() - listedAt < config.intervalSeconds * 1000) applications = gaveWay;
        else {
          listedAt = performance.now();
          applications = await applicationsWithPendingTraces(knex);
        }
      }
    } catch (error) {
      logger.error({ err: error, folded }, 'trace fold failed');
      throw error;
    }
    return folded;
  }
}
