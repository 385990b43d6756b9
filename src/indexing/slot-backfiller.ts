// The indexed attribute backfill (src/storage/spans/slot-backfill.ts) as a background job:
// every INDEXING_BACKFILL_INTERVAL_SECONDS, one pass over the applications with a slot not ready
// yet fills it batch by batch until it is ready. A slot's backfill starts only once its change is
// INDEXING_SETTLE_SECONDS old, so that no ingestion still holding the keys from before the change
// stores a span after the backfill passed its place. Safe beside ingestion and beside the
// backfillers of other instances: every batch checks the state it was planned from.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { IndexingConfig } from '../config.js';
import { backfillBatch, listBackfillTargets, pendingSlot, type BackfillTarget } from '../storage/spans/slot-backfill.js';
import { parseIndexedAttributes } from '../storage/accounts/indexed-attributes.js';

export interface SlotBackfillerDeps {
  knex: Knex;
  logger: Logger;
  config: IndexingConfig;
}

export class SlotBackfiller {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly deps: SlotBackfillerDeps) {}

  /** Schedules passes every interval (none when the interval is 0). */
  start(): void {
    if (this.deps.config.backfillIntervalSeconds === 0 || this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.deps.config.backfillIntervalSeconds * 1000);
    this.timer.unref();
  }

  /** One pass; resolves with the batches it committed. A pass asked for while one runs starts after it. */
  runOnce(): Promise<number> {
    const pass = (this.current ?? Promise.resolve(0)).catch(() => 0).then(() => this.pass());
    this.current = pass;
    return pass;
  }

  /** Stops scheduling and waits for the batch in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
  }

  private async tick(): Promise<void> {
    await this.runOnce().catch(() => undefined);
    this.start();
  }

  /** Backfills one application's settled slots until each is ready; answers the batches committed. */
  private async backfill(target: BackfillTarget): Promise<number> {
    const { knex, config } = this.deps;
    let batches = 0;
    let current: BackfillTarget | undefined = target;
    while (current && !this.stopped) {
      const slot = pendingSlot(current.state, Date.now(), config.settleSeconds * 1000);
      if (!slot) break;
      const outcome = await backfillBatch(knex, current, slot, config.backfillBatchSize);
      if (outcome !== 'superseded') batches += 1;
      if (outcome === 'ready') this.deps.logger.info({ application_id: target.applicationId, slot: slot.slot }, 'indexed attribute backfill complete');
      current = await this.reread(target.applicationId);
    }
    return batches;
  }

  private async reread(applicationId: string): Promise<BackfillTarget | undefined> {
    const row = (await this.deps.knex('applications').where({ id: applicationId }).whereNull('deleted_at').first('indexed_attributes_state')) as
      | { indexed_attributes_state: string | null }
      | undefined;
    return row && { applicationId, state: parseIndexedAttributes(row.indexed_attributes_state) };
  }

  private async pass(): Promise<number> {
    const { knex, logger } = this.deps;
    let batches = 0;
    try {
      for (const target of await listBackfillTargets(knex)) {
        if (this.stopped) break;
        batches += await this.backfill(target);
      }
    } catch (error) {
      logger.error({ err: error, batches }, 'indexed attribute backfill failed');
      throw error;
    }
    return batches;
  }
}
