// The export jobs' worker (src/exports/README.md): every EXPORT_INTERVAL_SECONDS, one pass does
// the housekeeping (results expired, dead jobs' parts deleted, old records purged), then takes the
// jobs whose snapshot has settled, one at a time, each under a lease (./leased-jobs.ts), and
// writes each batch by batch: a batch of records read after the job's position, encoded by its
// format, appended with the new position in one transaction (writeBatch). A job interrupted
// anywhere goes on from its last committed batch, here or on another instance, with the same
// bytes as an uninterrupted run.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ExportConfig } from '../config.js';
import { FilterTimeLimitError } from '../errors.js';
import { compressedBatch } from '../exports/compression.js';
import { exportReader, type ExportReader } from '../exports/export-reads.js';
import type { ExportFormat } from '../exports/formats/format.js';
import { formatOf } from '../exports/formats/index.js';
import type { ExportRecords } from '../exports/records.js';
import { writeBatch, type BatchWrite } from '../storage/exports/export-batches.js';
import { exportHousekeeping } from '../storage/exports/export-housekeeping.js';
import {
  claimableExportJobs,
  claimExportJob,
  EXPORT_TABLE,
  exportLeaseOf,
  type ExportError,
  type LeasedExport,
} from '../storage/exports/export-jobs.js';
import type { SpanStore } from '../storage/spans/span-store.js';
import { RegexTimeLimitExceeded } from '../storage/sql/regex-time-limit.js';
import type { Lease } from '../storage/jobs/leases.js';
import { JOB_LEASE_MS, LeasedJobWorker, type Worked } from './leased-jobs.js';

export interface ExporterDeps {
  knex: Knex;
  spans: SpanStore;
  logger: Logger;
  config: ExportConfig;
  /** The engine's record shapes (src/engine/wire.ts), handed over by src/server.ts: jobs sit below the engine. */
  records: ExportRecords;
  /** The clock of snapshots, settling and expiry (Date.now by default; tests move it). */
  clock?: () => number;
  /** Whether this process's ingestion is storing spans now (src/ingest/ingest-activity.ts): a job gives way to it. */
  ingestBusy?: () => boolean;
  /** How a job waits when it gives way (a timer by default; tests record the waits). */
  giveWay?: (ms: number) => Promise<void>;
}

/** The longest a job gives way to ingestion after one batch: it never stalls behind a steady stream of spans. */
export const GIVE_WAY_MAX_MS = 2000;

/** Why a job failed, as its `error` tells it: a fault of ours says only that, its cause is in the log. */
export function exportErrorOf(error: unknown): ExportError {
  if (error instanceof RegexTimeLimitExceeded) return { code: 'time_limit', message: new FilterTimeLimitError(error.limitMs).message };
  return { code: 'internal', message: 'the export failed on an internal error of the service; create it again' };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  return Buffer.concat(chunks);
}

export class Exporter extends LeasedJobWorker<LeasedExport> {
  constructor(private readonly deps: ExporterDeps) {
    super(deps.config.intervalSeconds, deps.knex, deps.logger, { table: EXPORT_TABLE, name: 'export job' });
  }

  protected override now(): number {
    return (this.deps.clock ?? Date.now)();
  }

  private timing() {
    return { now: this.now(), leaseMs: JOB_LEASE_MS };
  }

  private get retentionMs(): number {
    return this.deps.config.retentionHours * 3_600_000;
  }

  protected override async beforeJobs(): Promise<void> {
    const counts = await exportHousekeeping(this.deps.knex, this.now(), this.retentionMs);
    if (Object.values(counts).some((count) => count > 0)) this.logger.info(counts, 'export housekeeping');
  }

  protected claimableIds(): Promise<string[]> {
    const now = this.now();
    return claimableExportJobs(this.deps.knex, now, now - this.deps.config.settleSeconds * 1000, 10);
  }

  protected claim(id: string): Promise<LeasedExport | undefined> {
    const { now, leaseMs } = this.timing();
    return claimExportJob(this.deps.knex, id, this.owner, { now, leaseMs, settledBefore: now - this.deps.config.settleSeconds * 1000 });
  }

  protected leaseOf(job: LeasedExport): Lease {
    return exportLeaseOf(job);
  }

  /** What it wrote is deleted by the housekeeping. */
  protected failure(error: unknown): Record<string, unknown> {
    const { code, message } = exportErrorOf(error);
    return { error_code: code, error_message: message };
  }

  protected logFields(job: LeasedExport): Record<string, string> {
    return { export_id: job.record.id, application_id: job.record.applicationId };
  }

  /** Batches until the job has succeeded or failed, is taken over or cancelled, or this process stops. */
  protected async advance(job: LeasedExport, worked: Worked): Promise<void> {
    const { knex, spans, records, config } = this.deps;
    const format = formatOf(job.record.format);
    if (!format) throw new Error(`export format ${job.record.format} is not available in this release`);
    const reader = exportReader(job.record, spans, records);
    const limits = { maxBytes: config.maxBytesPerOrganization, retentionMs: this.retentionMs };
    for (;;) {
      await this.yieldToRequests();
      if (this.stopped) {
        await this.release(job);
        return;
      }
      const started = performance.now();
      const write = await this.nextBatch(job, format, reader);
      const outcome = await writeBatch(knex, job, write, limits, this.timing());
      const batchMs = performance.now() - started;
      if (outcome.kind === 'lost') return;
      worked.batches += 1;
      if (outcome.kind === 'byte_limit') {
        this.logger.warn(this.logFields(job), 'export job stopped at the organization byte limit');
        return;
      }
      if (outcome.kind === 'succeeded') {
        this.logger.info({ ...this.logFields(job), rows: job.record.rows + write.rows }, 'export job succeeded');
        return;
      }
      job.position = outcome.position;
      job.record = { ...job.record, rows: job.record.rows + write.rows, bytes: job.record.bytes + write.bytes.length };
      // While spans are being stored, wait as long as the batch took before the next one: the
      // job runs at half its pace and leaves the event loop and the database to ingestion.
      if (this.deps.ingestBusy?.()) await (this.deps.giveWay ?? sleep)(Math.min(batchMs, GIVE_WAY_MAX_MS));
    }
  }

  /**
   * The next batch of the file: the records after the job's position, encoded from the format's
   * state; the file's opening bytes before the first batch, its closing bytes after the last (a
   * batch with fewer records than asked for).
   */
  private async nextBatch(job: LeasedExport, format: ExportFormat, reader: ExportReader): Promise<BatchWrite> {
    const limit = this.deps.config.batchRows;
    const { columns } = reader;
    const { records, lastKey } = await reader.read(job.position.after, limit);
    const chunks: Uint8Array[] = [];
    let offset = job.record.bytes;
    let state: unknown = job.position.formatState === null ? null : JSON.parse(job.position.formatState);
    // Nothing committed yet (every batch but the last holds at least one record): the file opens here.
    if (job.position.after === null) {
      const head = format.head(columns);
      chunks.push(head.bytes);
      offset += head.bytes.length;
      state = head.state;
    }
    if (records.length > 0) {
      const batch = format.batch(columns, records, state, offset);
      chunks.push(batch.bytes);
      offset += batch.bytes.length;
      state = batch.state;
    }
    const last = records.length < limit;
    if (last) chunks.push(format.tail(columns, state, offset));
    return {
      bytes: compressedBatch(job.record.compression, concat(chunks)),
      rows: records.length,
      after: lastKey ?? job.position.after,
      formatState: state === null || state === undefined ? null : JSON.stringify(state),
      last,
    };
  }
}
