// The indexed attribute backfill (src/storage/spans/slots/slot-backfill.ts) as a background job:
// every INDEXING_BACKFILL_INTERVAL_SECONDS, one pass over the applications with a slot not ready
// yet fills it batch by batch until it is ready. A slot's backfill starts only once its change is
// INDEXING_SETTLE_SECONDS old, so that no ingestion still holding the keys from before the change
// stores a span after the backfill passed its place. The walk goes by seq, which is neither dense
// nor in commit order (across Galera nodes not even in insert order): a span that commits behind
// the walk is not read. That is sound because every span stored with the old keys has committed
// before the walk starts (the span writer commits nothing with keys older than 30 s, see
// SLOT_KEYS_MAX_AGE_MS in src/ingest/ingest-traces.ts), and every later one carries the new key
// and files its value itself. Safe beside ingestion and beside the backfillers of other
// instances: every batch checks the state it was planned from.
// Once a slot is ready, the structures kept per slot value (slot_rollups, spend_slot_rollups:
// src/storage/spans/derived/slot-fill.ts) are rebuilt for the hours whose spans its generation
// does not count yet (the spans stored before the key was indexed).
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { IndexingConfig } from '../config.js';
import { PeriodicPasses } from './periodic-passes.js';
import {
  backfillBatch,
  listBackfillTargets,
  pendingSlot,
  readBackfillTarget,
  type BackfillTarget,
} from '../storage/spans/slots/slot-backfill.js';
import { fillSlot } from '../storage/spans/derived/slot-fill.js';

export interface SlotBackfillerDeps {
  knex: Knex;
  logger: Logger;
  config: IndexingConfig;
}

export class SlotBackfiller extends PeriodicPasses {
  constructor(private readonly deps: SlotBackfillerDeps) {
    super(deps.config.backfillIntervalSeconds);
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
      if (outcome === 'ready') {
        const hours = await fillSlot(knex, target.applicationId, slot);
        this.deps.logger.info(
          { application_id: target.applicationId, slot: slot.slot, rollup_hours_rebuilt: hours },
          'indexed attribute backfill complete',
        );
      }
      current = await readBackfillTarget(knex, target.applicationId);
    }
    return batches;
  }

  /** One pass over the applications with a slot to fill; resolves with the batches it committed. */
  protected async pass(): Promise<number> {
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
