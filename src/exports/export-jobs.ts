// Export job rules (openapi/engine.yaml, tag Exports; README.md beside this file): a job is
// created queued, its snapshot the moment of creation, when its organization has fewer than
// EXPORT_MAX_ACTIVE_PER_ORGANIZATION jobs queued or running; a queued or running job can be
// cancelled, a cancelled one answers as it is, a finished one cannot; a file is downloaded only
// from a job that succeeded. The worker that runs the jobs is src/jobs/exporter.ts.
import type { Knex } from 'knex';
import type { ExportConfig } from '../config.js';
import { ConflictError, GoneError, NotFoundError, QuotaExceededError } from '../errors.js';
import { newId } from '../storage/accounts/ids.js';
import { writeGuard } from '../storage/accounts/write-guard.js';
import {
  activeExportJobs,
  cancelExportJobRow,
  insertExportJob,
  lockExportJob,
  type ExportCompression,
  type ExportFormatName,
  type ExportGrain,
  type ExportJobRecord,
} from '../storage/exports/export-jobs.js';
import { toIsoRequired } from '../storage/time.js';
import { writeTransaction } from '../storage/transactions.js';

export const EXPORT_NOT_FOUND = 'Export not found';

/** What a 429 tells a client to wait before creating again: a job of a small window takes about this long. */
export const ACTIVE_LIMIT_RETRY_SECONDS = 30;

/** A new export's query, as the engine handler checked it. */
export interface ExportQuery {
  applicationId: string;
  organizationId: string;
  startNs: bigint;
  endNs: bigint;
  /** The filter as sent (JSON text); null: none. */
  filter: string | null;
  grain: ExportGrain;
  format: ExportFormatName;
  compression: ExportCompression;
  columns: string[] | null;
  searchChildSpans: boolean;
}

/** A new job of `query`, queued, whose snapshot is `now`. */
export function queuedExport(query: ExportQuery, now: number): ExportJobRecord {
  return {
    id: newId('exp'),
    ...query,
    state: 'queued',
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    expiresAt: null,
    rows: 0,
    bytes: 0,
    error: null,
  };
}

/**
 * Queues an export of `query` whose snapshot is `now`. The organization's write guard is taken
 * first, so that of two creations at once (on one database or across Galera nodes) one waits or
 * is retried and then counts the other's job: the organization never has more than
 * `maxActivePerOrganization` jobs queued or running.
 */
export async function createExport(knex: Knex, query: ExportQuery, config: ExportConfig, now: number): Promise<ExportJobRecord> {
  const job = queuedExport(query, now);
  await writeTransaction(knex, async (trx) => {
    if (!(await writeGuard(trx, 'organizations', query.organizationId))) throw new NotFoundError('Application not found');
    const active = await activeExportJobs(trx, query.organizationId);
    if (active >= config.maxActivePerOrganization)
      throw new QuotaExceededError(
        `the organization already has ${active} exports queued or running (EXPORT_MAX_ACTIVE_PER_ORGANIZATION is ${config.maxActivePerOrganization}); wait for one to finish or cancel one`,
        ACTIVE_LIMIT_RETRY_SECONDS,
      );
    await insertExportJob(trx, job);
  });
  return job;
}

/** The job as it is at `now`: a result past its expiry is expired even before the worker's housekeeping marks it so. */
export function asOf(job: ExportJobRecord, now: number): ExportJobRecord {
  return job.state === 'succeeded' && job.expiresAt !== null && job.expiresAt <= now ? { ...job, state: 'expired' } : job;
}

const FINISHED: ReadonlySet<ExportJobRecord['state']> = new Set(['succeeded', 'failed', 'expired']);

/**
 * Cancels the application's export `id`: a queued or running one becomes cancelled (its worker
 * commits no further batch: each batch's first write is fenced by the job's state; its parts are
 * deleted by the worker's housekeeping); a cancelled one is answered as it is; a finished one is
 * a conflict naming its state.
 */
export async function cancelExport(knex: Knex, applicationId: string, id: string, now: number): Promise<ExportJobRecord> {
  return writeTransaction(knex, async (trx) => {
    const locked = await lockExportJob(trx, applicationId, id);
    if (!locked) throw new NotFoundError(EXPORT_NOT_FOUND);
    const job = asOf(locked, now);
    if (FINISHED.has(job.state))
      throw new ConflictError(
        `export ${id} has already ${job.state === 'expired' ? 'succeeded and expired' : job.state}; only a queued or running export can be cancelled`,
        'export_finished',
        { export_id: id, state: job.state },
      );
    if (job.state === 'cancelled') return job;
    await cancelExportJobRow(trx, id, now);
    return { ...job, state: 'cancelled', finishedAt: now };
  });
}

/** The job, when its file can be downloaded: a 409 while it is queued or running, a 410 when it has no file. */
export function downloadable(job: ExportJobRecord, retentionHours: number): ExportJobRecord {
  const fields = { export_id: job.id, state: job.state };
  switch (job.state) {
    case 'succeeded':
      return job;
    case 'queued':
    case 'running':
      throw new ConflictError(
        `export ${job.id} is ${job.state} (${job.rows} rows written); download it once it has succeeded`,
        'export_not_finished',
        fields,
      );
    case 'expired':
      throw new GoneError(
        `the result of export ${job.id} expired at ${toIsoRequired(job.expiresAt ?? job.createdAt)} (results are kept ${retentionHours} hours); create the export again`,
        'export_expired',
        fields,
      );
    case 'cancelled':
      throw new GoneError(`export ${job.id} was cancelled; it has no file`, 'export_cancelled', fields);
    case 'failed':
      throw new GoneError(`export ${job.id} failed (${job.error?.code ?? 'internal'}); it has no file`, 'export_failed', fields);
  }
}
