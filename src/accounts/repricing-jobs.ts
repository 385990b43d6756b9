// Re-pricing job rules (openapi/management.yaml, createRepricingJob and cancelRepricingJob): a
// job is created queued, in an active application, only when no queued or running job of the
// application has an overlapping window; a queued or running job can be cancelled, a cancelled
// one answers as it is, a finished one cannot. Both changes are audited in their transaction.
// The worker that runs the jobs is src/jobs/repricer.ts.
import type { Knex } from 'knex';
import { ConflictError, NotFoundError } from '../errors.js';
import { guardActiveApplication } from '../storage/accounts/applications.js';
import { newId } from '../storage/accounts/ids.js';
import {
  cancelRepricingJobRow,
  hoursOfWindow,
  insertRepricingJob,
  lockRepricingJob,
  unfinishedOverlapping,
  type RepricingJobRecord,
} from '../storage/repricing/repricing-jobs.js';
import { nanosToIso } from '../storage/time.js';
import { writeTransaction } from '../storage/transactions.js';
import { APPLICATION_NOT_FOUND } from './applications.js';
import { repricingJobFields } from './audit-fields.js';
import { recordChange } from './audit-trail.js';

export const REPRICING_JOB_NOT_FOUND = 'Re-pricing job not found';

/** The window of span start time a job re-prices, `[fromNs, toNs)`: checked by the caller (toNs after fromNs). */
export interface RepricingWindow {
  fromNs: bigint;
  toNs: bigint;
}

/**
 * Queues a job over `window`. The application's write guard is taken first, so that of two
 * creations at once (on one database or across Galera nodes) one waits or is retried and then
 * sees the other's job: two overlapping unfinished jobs never coexist.
 */
export async function createRepricingJob(
  knex: Knex,
  applicationId: string,
  window: RepricingWindow,
  now = Date.now(),
): Promise<RepricingJobRecord> {
  const job: RepricingJobRecord = {
    id: newId('rpj'),
    applicationId,
    fromNs: window.fromNs,
    toNs: window.toNs,
    status: 'queued',
    spansExamined: 0,
    spansRepriced: 0,
    hoursDone: 0,
    hoursTotal: hoursOfWindow(window.fromNs, window.toNs),
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    error: null,
  };
  await writeTransaction(knex, async (trx) => {
    const application = await guardActiveApplication(trx, applicationId);
    if (!application) throw new NotFoundError(APPLICATION_NOT_FOUND);
    const other = await unfinishedOverlapping(trx, applicationId, window.fromNs, window.toNs);
    if (other)
      throw new ConflictError(
        `re-pricing job ${other.id} of this application is ${other.status} over an overlapping window (${nanosToIso(other.fromNs)} to ${nanosToIso(other.toNs)}); wait for it to finish or cancel it`,
        'repricing_job_overlaps',
        { job_id: other.id },
      );
    await insertRepricingJob(trx, job);
    await recordChange(trx, {
      organizationId: application.organization_id,
      resourceType: 'repricing_job',
      resourceId: job.id,
      before: null,
      after: repricingJobFields(job),
      at: now,
    });
  });
  return job;
}

/**
 * Cancels the application's job `jobId`: a queued or running one becomes cancelled (its worker
 * commits no further batch: every batch first checks the job's status under its row lock); a
 * cancelled one is answered as it is, with an event that changes nothing; a finished one is a
 * conflict.
 */
export async function cancelRepricingJob(knex: Knex, applicationId: string, jobId: string, now = Date.now()): Promise<RepricingJobRecord> {
  return writeTransaction(knex, async (trx) => {
    const application = await guardActiveApplication(trx, applicationId);
    if (!application) throw new NotFoundError(APPLICATION_NOT_FOUND);
    const before = await lockRepricingJob(trx, applicationId, jobId);
    if (!before) throw new NotFoundError(REPRICING_JOB_NOT_FOUND);
    if (before.status === 'succeeded' || before.status === 'failed')
      throw new ConflictError(
        `re-pricing job ${jobId} has already ${before.status}; only a queued or running job can be cancelled`,
        'repricing_job_finished',
        { job_id: jobId },
      );
    const after: RepricingJobRecord = before.status === 'cancelled' ? before : { ...before, status: 'cancelled', finishedAt: now };
    if (before.status !== 'cancelled') await cancelRepricingJobRow(trx, jobId, now);
    await recordChange(trx, {
      organizationId: application.organization_id,
      resourceType: 'repricing_job',
      resourceId: jobId,
      before: repricingJobFields(before),
      after: repricingJobFields(after),
      at: now,
    });
    return after;
  });
}
