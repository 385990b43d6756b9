// The re-pricing jobs' worker (src/storage/repricing/README.md): every REPRICING_INTERVAL_SECONDS,
// one pass takes the jobs that need work, one at a time, each under a lease that every
// transaction of it checks and renews, and works each until it is done, cancelled, taken over, or
// this process stops (then it lets the job go, so another instance or this one after a restart
// goes on at once). A job goes hour by hour of span start time: batches of spans priced again
// (repriceBatch), then the hour's derived data rebuilt as the job moves on (advanceToHour). Any
// number of instances run this worker; a job is worked on by one at a time.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RepricingConfig } from '../config.js';
import { costFields } from '../ingest/computed-cost.js';
import type { GenAiFields } from '../ingest/genai-usage.js';
import { OrganizationPrices } from '../pricing/price-entries.js';
import { priceEntriesOf } from '../storage/accounts/price-entries.js';
import { PeriodicPasses } from './periodic-passes.js';
import {
  claimableRepricingJobs,
  claimRepricingJob,
  failRepricingJob,
  firstHourOf,
  readLeasedJob,
  releaseRepricingJob,
  type LeasedJob,
} from '../storage/repricing/repricing-jobs.js';
import {
  advanceToHour,
  nextRepricedHour,
  rebuildStoppedHour,
  repriceBatch,
  type Pricer,
  type RepricedSpan,
  type SpanCost,
} from '../storage/repricing/span-repricing.js';
import { HOUR_NS } from '../storage/spans/read-sources.js';
import { isLockConflict } from '../storage/transactions.js';
import { isDatabaseUnavailable } from '../storage/unavailable.js';

/**
 * How long a job stays with the instance working on it without a word from it: every batch and
 * every hour renews it. Past it (the instance crashed, or lost the database), another instance
 * takes the job; clocks of the instances must agree within a fraction of it.
 */
export const REPRICING_LEASE_MS = 30_000;

/** The most error text a failed job keeps. */
const ERROR_TEXT_MAX = 1000;

/** The model, provider and token counts of a stored span, as ingestion read them from its attributes. */
function genAiFieldsOf(span: RepricedSpan): GenAiFields {
  return {
    model: span.model,
    provider: span.provider,
    input_tokens: span.input_tokens,
    output_tokens: span.output_tokens,
    cache_read_tokens: span.cache_read_tokens,
    cache_creation_tokens: span.cache_creation_tokens,
    total_tokens: span.total_tokens,
  };
}

/**
 * The cost fields a stored span gets from the prices in force now (its organization's entries,
 * then the default book), at its start time, exactly as ingestion prices a span without a
 * reported cost (src/ingest/computed-cost.ts): the one call of costFields in re-pricing. Only
 * spans whose cost is not reported reach it.
 */
export function repricedCost(span: RepricedSpan, prices: OrganizationPrices): SpanCost {
  return costFields(null, genAiFieldsOf(span), span.start_time_unix_nano, prices);
}

/** The organization's price entries as they are now: read for every batch, so a change applies from the next one. */
export async function pricerOf(knex: Knex, organizationId: string): Promise<Pricer> {
  const prices = new OrganizationPrices(await priceEntriesOf(knex, organizationId));
  return (span) => repricedCost(span, prices);
}

export interface RepricerDeps {
  knex: Knex;
  logger: Logger;
  config: RepricingConfig;
}

type Worked = { batches: number };

export class Repricer extends PeriodicPasses {
  /** This process's name on the leases it takes: a restarted process is another owner. */
  readonly owner = `${hostname().slice(0, 30)}:${process.pid}:${randomBytes(6).toString('hex')}`;

  constructor(private readonly deps: RepricerDeps) {
    super(deps.config.intervalSeconds);
  }

  /** One pass: the jobs that need work, one after the other, until none is left; resolves with the batches committed. */
  protected async pass(): Promise<number> {
    const { logger } = this.deps;
    const worked: Worked = { batches: 0 };
    try {
      while (!this.stopped) {
        const job = await this.claimNext();
        if (!job) break;
        await this.work(job, worked);
      }
    } catch (error) {
      logger.error({ err: error, batches: worked.batches }, 're-pricing pass failed');
      throw error;
    }
    return worked.batches;
  }

  private timing() {
    return { now: Date.now(), leaseMs: REPRICING_LEASE_MS };
  }

  /** The oldest job this process could take, taken; undefined when there is none. */
  private async claimNext(): Promise<LeasedJob | undefined> {
    const { knex } = this.deps;
    const { now, leaseMs } = this.timing();
    for (const id of await claimableRepricingJobs(knex, now, 10)) {
      const job = await claimRepricingJob(knex, id, this.owner, now, leaseMs);
      if (job) return job;
    }
    return undefined;
  }

  /**
   * Works on a job this process holds. An error the database gives for being away or busy lets
   * the job go and fails the pass (the next pass, here or elsewhere, goes on after the last
   * commit); any other fails the job, after logging, with its message.
   */
  private async work(job: LeasedJob, worked: Worked): Promise<void> {
    const { knex, logger } = this.deps;
    try {
      await this.advance(job, worked);
    } catch (error) {
      if (isDatabaseUnavailable(error) || isLockConflict(error)) {
        await releaseRepricingJob(knex, job).catch(() => undefined);
        throw error;
      }
      logger.error({ err: error, job_id: job.record.id, application_id: job.record.applicationId }, 're-pricing job failed');
      const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_TEXT_MAX);
      await failRepricingJob(knex, job, message || 'unexpected error', Date.now());
    }
  }

  /** Batches and hours until the job is done, taken over or cancelled, or this process stops. */
  private async advance(job: LeasedJob, worked: Worked): Promise<void> {
    const { knex, logger, config } = this.deps;
    if (job.record.status !== 'running') {
      // Taken only to rebuild the hour it was on when it was cancelled or failed.
      await rebuildStoppedHour(knex, job, this.timing());
      return;
    }
    for (;;) {
      // On SQLite every statement completes without waiting for I/O: without a turn of the event
      // loop between transactions, a job would hold off this process's requests until it ended.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.stopped) {
        await releaseRepricingJob(knex, job);
        return;
      }
      const hourNs = job.position.hourNs;
      let next: bigint | undefined;
      if (hourNs === null) next = await nextRepricedHour(knex, job, firstHourOf(job.record));
      else {
        const batch = await repriceBatch(knex, job, await pricerOf(knex, job.organizationId), config.batchSize, this.timing());
        if (batch.kind === 'lost') return this.afterLoss(job);
        worked.batches += 1;
        job.position = batch.position;
        if (!batch.hourDone) continue;
        next = await nextRepricedHour(knex, job, hourNs + HOUR_NS);
      }
      const moved = await advanceToHour(knex, job, next, this.timing());
      if (moved.kind === 'lost') return this.afterLoss(job);
      if (moved.kind === 'succeeded') {
        logger.info({ job_id: job.record.id, application_id: job.record.applicationId }, 're-pricing job succeeded');
        return;
      }
      job.position = moved.position;
    }
  }

  /** A transaction found the job no longer running under this process's lease: if it was cancelled meanwhile, its hour is still rebuilt. */
  private async afterLoss(job: LeasedJob): Promise<void> {
    const { knex } = this.deps;
    const current = await readLeasedJob(knex, job.record.id, this.owner);
    if (current && current.record.status !== 'running') await rebuildStoppedHour(knex, current, this.timing());
  }
}
