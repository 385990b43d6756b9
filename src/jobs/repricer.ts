// The re-pricing jobs' worker (src/storage/repricing/README.md): every REPRICING_INTERVAL_SECONDS,
// one pass takes the jobs that need work, one at a time, each under a lease that every
// transaction of it checks and renews (./leased-jobs.ts). A job goes hour by hour of span start
// time: batches of spans priced again (repriceBatch), then the hour's derived data rebuilt as the
// job moves on (advanceToHour). Any number of instances run this worker; a job is worked on by
// one at a time.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { RepricingConfig } from '../config.js';
import { costFields } from '../ingest/computed-cost.js';
import type { GenAiFields } from '../ingest/genai-usage.js';
import { OrganizationPrices } from '../pricing/price-entries.js';
import { priceEntriesOf } from '../storage/accounts/price-entries.js';
import type { Lease } from '../storage/jobs/leases.js';
import { errorText, JOB_LEASE_MS, LeasedJobWorker, type Worked } from './leased-jobs.js';
import {
  claimableRepricingJobs,
  claimRepricingJob,
  firstHourOf,
  readLeasedJob,
  REPRICING_TABLE,
  repricingLeaseOf,
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

/** How long a job stays with the instance working on it without a word from it (every batch and every hour renews it). */
export const REPRICING_LEASE_MS = JOB_LEASE_MS;

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

export class Repricer extends LeasedJobWorker<LeasedJob> {
  constructor(private readonly deps: RepricerDeps) {
    super(deps.config.intervalSeconds, deps.knex, deps.logger, { table: REPRICING_TABLE, name: 're-pricing job' });
  }

  private timing() {
    return { now: Date.now(), leaseMs: REPRICING_LEASE_MS };
  }

  protected claimableIds(): Promise<string[]> {
    return claimableRepricingJobs(this.deps.knex, Date.now(), 10);
  }

  protected claim(id: string): Promise<LeasedJob | undefined> {
    const { now, leaseMs } = this.timing();
    return claimRepricingJob(this.deps.knex, id, this.owner, now, leaseMs);
  }

  protected leaseOf(job: LeasedJob): Lease {
    return repricingLeaseOf(job);
  }

  /** Its position stays, so that the hour it was on is rebuilt if a span of it was re-priced. */
  protected failure(error: unknown): Record<string, unknown> {
    return { error: errorText(error) };
  }

  protected logFields(job: LeasedJob): Record<string, string> {
    return { job_id: job.record.id, application_id: job.record.applicationId };
  }

  /** Batches and hours until the job is done, taken over or cancelled, or this process stops. */
  protected async advance(job: LeasedJob, worked: Worked): Promise<void> {
    const { knex, logger, config } = this.deps;
    if (job.record.status !== 'running') {
      // Taken only to rebuild the hour it was on when it was cancelled or failed.
      await rebuildStoppedHour(knex, job, this.timing());
      return;
    }
    for (;;) {
      await this.yieldToRequests();
      if (this.stopped) {
        await this.release(job);
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
        logger.info(this.logFields(job), 're-pricing job succeeded');
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
