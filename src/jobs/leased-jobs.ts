// The worker of a table of jobs taken under a lease (src/storage/jobs/leases.ts): the re-pricing
// jobs (repricer.ts) and the export jobs (exporter.ts). Every interval, one pass takes the jobs
// that need work, one at a time, and works each until it is done, cancelled, taken over, or this
// process stops (then it lets the job go, so another instance or this one after a restart goes on
// at once). Any number of instances run the worker; a job is worked on by one at a time.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { failLeasedJob, releaseLease, type Lease, type LeasedTable } from '../storage/jobs/leases.js';
import { isLockConflict } from '../storage/transactions.js';
import { isDatabaseUnavailable } from '../storage/unavailable.js';
import { PeriodicPasses } from './periodic-passes.js';

/**
 * How long a job stays with the instance working on it without a word from it: every transaction
 * of the worker renews it. Past it (the instance crashed, or lost the database), another instance
 * takes the job; clocks of the instances must agree within a fraction of it.
 */
export const JOB_LEASE_MS = 30_000;

/** The most error text a failed job keeps. */
const ERROR_TEXT_MAX = 1000;

/** An error's message as a failed job keeps it. */
export function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, ERROR_TEXT_MAX) || 'unexpected error';
}

/** What a pass reports: the batches it committed. */
export type Worked = { batches: number };

export abstract class LeasedJobWorker<Job> extends PeriodicPasses {
  /** This process's name on the leases it takes: a restarted process is another owner. */
  readonly owner = `${hostname().slice(0, 30)}:${process.pid}:${randomBytes(6).toString('hex')}`;

  constructor(
    intervalSeconds: number,
    protected readonly knex: Knex,
    protected readonly logger: Logger,
    /** The jobs' table, and what the log calls them ("re-pricing job"). */
    private readonly jobs: { table: LeasedTable; name: string },
  ) {
    super(intervalSeconds);
  }

  /** The time now, epoch milliseconds. */
  protected now(): number {
    return Date.now();
  }

  /** Up to a few job ids this process could take now, oldest first. */
  protected abstract claimableIds(): Promise<string[]>;
  /** Takes job `id`; undefined when another instance took it first. */
  protected abstract claim(id: string): Promise<Job | undefined>;
  /** Works on the job until it is done, taken over or cancelled, or this process stops (then it lets the job go). */
  protected abstract advance(job: Job, worked: Worked): Promise<void>;
  /** The lease this process holds on the job. */
  protected abstract leaseOf(job: Job): Lease;
  /** What a job failed for `error` records (its error columns). */
  protected abstract failure(error: unknown): Record<string, unknown>;
  /** The ids the log lines about the job carry. */
  protected abstract logFields(job: Job): Record<string, string>;

  /** Lets the job go: another instance, or this one after a restart, takes it at once. */
  protected async release(job: Job): Promise<void> {
    await releaseLease(this.knex, this.jobs.table, this.leaseOf(job));
  }

  /** Work a pass does before taking jobs (none by default). */
  protected async beforeJobs(): Promise<void> {}

  /** One pass: the jobs that need work, one after the other, until none is left; resolves with the batches committed. */
  protected async pass(): Promise<number> {
    const worked: Worked = { batches: 0 };
    try {
      await this.beforeJobs();
      while (!this.stopped) {
        const job = await this.claimNext();
        if (!job) break;
        await this.work(job, worked);
      }
    } catch (error) {
      this.logger.error({ err: error, batches: worked.batches }, `${this.jobs.name} pass failed`);
      throw error;
    }
    return worked.batches;
  }

  /** The oldest job this process could take, taken; undefined when there is none. */
  private async claimNext(): Promise<Job | undefined> {
    for (const id of await this.claimableIds()) {
      const job = await this.claim(id);
      if (job) return job;
    }
    return undefined;
  }

  /**
   * Works on a job this process holds. An error the database gives for being away or busy lets
   * the job go and fails the pass (the next pass, here or elsewhere, goes on after the last
   * commit); any other fails the job, after logging, with its message.
   */
  private async work(job: Job, worked: Worked): Promise<void> {
    try {
      await this.advance(job, worked);
    } catch (error) {
      if (isDatabaseUnavailable(error) || isLockConflict(error)) {
        await this.release(job).catch(() => undefined);
        throw error;
      }
      this.logger.error({ err: error, ...this.logFields(job) }, `${this.jobs.name} failed`);
      await failLeasedJob(this.knex, this.jobs.table, this.leaseOf(job), this.failure(error), this.now());
    }
  }

  /**
   * On SQLite every statement completes without waiting for I/O: without a turn of the event loop
   * between transactions, a job would hold off this process's requests until it ended.
   */
  protected async yieldToRequests(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
  }
}
