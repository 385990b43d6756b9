// The exports table (src/exports/README.md): an export job's row as the engine API creates,
// lists, reads and cancels it, the lease by which one worker of any instance works on it
// (../jobs/leases.ts), and the organization's limits read from it (jobs active, bytes kept). A
// job's position (the keyset of the last record written, the parts written, the file format's
// state) is written only by the worker holding the lease, in the transactions of
// ./export-batches.ts, each of which first checks and renews the lease.
import type { Knex } from 'knex';
import { claimableJobIds, claimLeasedJob, leaseFree, type Lease, type LeasedTable } from '../jobs/leases.js';
import { listApplicationJobs, newestFirst } from '../jobs/job-lists.js';
import type { ListPage, WindowedListRequest } from '../paging.js';

export const EXPORTS = 'exports';
/** The table as the lease statements (../jobs/leases.ts) name it. */
export const EXPORT_TABLE: LeasedTable = { name: EXPORTS, state: 'state' };

export const EXPORT_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export type ExportState = (typeof EXPORT_STATES)[number];
export const EXPORT_GRAINS = ['spans', 'traces'] as const;
export type ExportGrain = (typeof EXPORT_GRAINS)[number];
export const EXPORT_FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export type ExportFormatName = (typeof EXPORT_FORMATS)[number];
export const EXPORT_COMPRESSIONS = ['none', 'gzip'] as const;
export type ExportCompression = (typeof EXPORT_COMPRESSIONS)[number];

/** The states of a job that counts against its organization's active jobs. */
export const ACTIVE_STATES: readonly ExportState[] = ['queued', 'running'];
/** The states whose bytes count against the organization's bytes kept: a running job's file so far, a result not yet expired. */
export const KEPT_STATES: readonly ExportState[] = ['running', 'succeeded'];
/** The states whose parts are deleted (by the worker's housekeeping). */
export const DEAD_STATES: readonly ExportState[] = ['failed', 'cancelled', 'expired'];

/** Why a job failed: `byte_limit` (the organization's bytes kept), `time_limit` (a regex filter's statement limit), `internal`. */
export interface ExportError {
  code: string;
  message: string;
}

/** A job as the engine API shows it. Times are epoch milliseconds (created_at is the snapshot time); the window is nanoseconds. */
export interface ExportJobRecord {
  id: string;
  applicationId: string;
  organizationId: string;
  state: ExportState;
  grain: ExportGrain;
  format: ExportFormatName;
  /** How the file is compressed: `none`, or `gzip` (each batch's bytes one gzip member). */
  compression: ExportCompression;
  /** The columns chosen, in the file's order; null: every field of the grain's record. */
  columns: string[] | null;
  /** The filter as sent, as JSON text; null: none. */
  filter: string | null;
  searchChildSpans: boolean;
  startNs: bigint;
  endNs: bigint;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  expiresAt: number | null;
  rows: number;
  bytes: number;
  error: ExportError | null;
}

/** Where a job's worker is: after which record, how many parts, and the format's state between batches. */
export interface ExportPosition {
  /** The sort key of the last record written (text parts); null before the first batch. */
  after: string[] | null;
  parts: number;
  /** JSON text; null for formats without a state. */
  formatState: string | null;
}

/** A job a worker holds the lease of: its row as read when it took it, and its position. */
export interface LeasedExport {
  record: ExportJobRecord;
  position: ExportPosition;
  owner: string;
}

interface JobRow {
  id: string;
  application_id: string;
  organization_id: string;
  state: ExportState;
  grain: ExportGrain;
  format: ExportFormatName;
  compression: ExportCompression;
  columns: string | null;
  filter: string | null;
  search_child_spans: number | boolean | string;
  start_unix_nano: string;
  end_unix_nano: string;
  created_at: number | string;
  started_at: number | string | null;
  finished_at: number | string | null;
  expires_at: number | string | null;
  rows_written: number | string;
  bytes_written: number | string;
  error_code: string | null;
  error_message: string | null;
}

interface PositionRow {
  after_key: string | null;
  parts_written: number | string;
  format_state: string | null;
}

const JOB_COLUMNS = [
  'id',
  'application_id',
  'organization_id',
  'state',
  'grain',
  'format',
  'compression',
  'columns',
  'filter',
  'search_child_spans',
  'start_unix_nano',
  'end_unix_nano',
  'created_at',
  'started_at',
  'finished_at',
  'expires_at',
  'rows_written',
  'bytes_written',
  'error_code',
  'error_message',
] as const;

function jobColumns(alias = 'e'): string[] {
  return JOB_COLUMNS.map((column) => `${alias}.${column}`);
}

const orNull = (value: number | string | null) => (value === null ? null : Number(value));

function fromRow(row: JobRow): ExportJobRecord {
  return {
    id: row.id,
    applicationId: row.application_id,
    organizationId: row.organization_id,
    state: row.state,
    grain: row.grain,
    format: row.format,
    compression: row.compression,
    columns: row.columns === null ? null : (JSON.parse(row.columns) as string[]),
    filter: row.filter,
    searchChildSpans: Number(row.search_child_spans) === 1 || row.search_child_spans === true,
    startNs: BigInt(row.start_unix_nano),
    endNs: BigInt(row.end_unix_nano),
    createdAt: Number(row.created_at),
    startedAt: orNull(row.started_at),
    finishedAt: orNull(row.finished_at),
    expiresAt: orNull(row.expires_at),
    rows: Number(row.rows_written),
    bytes: Number(row.bytes_written),
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
  };
}

/** A new job's row, queued. */
export async function insertExportJob(trx: Knex.Transaction, job: ExportJobRecord): Promise<void> {
  await trx(EXPORTS).insert({
    id: job.id,
    application_id: job.applicationId,
    organization_id: job.organizationId,
    state: job.state,
    grain: job.grain,
    format: job.format,
    compression: job.compression,
    columns: job.columns === null ? null : JSON.stringify(job.columns),
    filter: job.filter,
    search_child_spans: job.searchChildSpans ? 1 : 0,
    start_unix_nano: job.startNs.toString(),
    end_unix_nano: job.endNs.toString(),
    created_at: job.createdAt,
  });
}

/**
 * The organization's queued and running jobs, of applications not deleted. Read in the
 * transaction that inserts a job, after the organization's write guard (so two such
 * transactions never both find room for one more).
 */
export async function activeExportJobs(trx: Knex.Transaction, organizationId: string): Promise<number> {
  const row = (await trx({ e: EXPORTS })
    .join({ a: 'applications' }, 'a.id', 'e.application_id')
    .whereNull('a.deleted_at')
    .where('e.organization_id', organizationId)
    .whereIn('e.state', ACTIVE_STATES)
    .count({ n: '*' })
    .first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/** The bytes the organization keeps: its running jobs' files so far and its results not yet expired. */
export async function keptExportBytes(db: Knex, organizationId: string): Promise<number> {
  const row = (await db(EXPORTS)
    .where('organization_id', organizationId)
    .whereIn('state', KEPT_STATES)
    .sum({ n: 'bytes_written' })
    .first()) as { n: number | string | null } | undefined;
  return Number(row?.n ?? 0);
}

/** The application's job `id`; undefined when there is none (or it is another application's). */
export async function findExportJob(knex: Knex, applicationId: string, id: string): Promise<ExportJobRecord | undefined> {
  const row = (await knex({ e: EXPORTS }).where({ 'e.id': id, 'e.application_id': applicationId }).first(jobColumns())) as
    JobRow | undefined;
  return row && fromRow(row);
}

/** As findExportJob, its row locked until the transaction ends (a cancel waits for the batch in flight). */
export async function lockExportJob(trx: Knex.Transaction, applicationId: string, id: string): Promise<ExportJobRecord | undefined> {
  const row = (await trx({ e: EXPORTS }).where({ 'e.id': id, 'e.application_id': applicationId }).first(jobColumns()).forUpdate()) as
    JobRow | undefined;
  return row && fromRow(row);
}

/** Cancels a job locked by lockExportJob, letting its lease go; its parts are deleted by the worker's housekeeping. */
export async function cancelExportJobRow(trx: Knex.Transaction, id: string, now: number): Promise<void> {
  await trx(EXPORTS).where({ id }).update({ state: 'cancelled', finished_at: now, lease_owner: null, lease_expires_at: null });
}

/** The list order as a keyset: newest first. */
export const EXPORT_JOB_ORDER = newestFirst('e');

export async function listExportJobs(knex: Knex, applicationId: string, page: WindowedListRequest): Promise<ListPage<ExportJobRecord>> {
  return listApplicationJobs(knex, { table: EXPORTS, alias: 'e', columns: jobColumns(), toItem: fromRow }, applicationId, page);
}

/**
 * What a worker may take: a queued or running job that no instance holds (its lease expired, or
 * its worker let it go when it stopped), once its snapshot has settled (created at or before
 * `settledBefore`: spans received before the snapshot have been committed).
 */
function claimable(query: Knex.QueryBuilder, now: number, settledBefore: number, alias: string): Knex.QueryBuilder {
  return leaseFree(query, now, alias).whereIn(`${alias}.state`, ACTIVE_STATES).where(`${alias}.created_at`, '<=', settledBefore);
}

/** Up to `limit` jobs a worker may take now, oldest first; jobs of deleted applications are left (housekeeping cancels them). */
export async function claimableExportJobs(knex: Knex, now: number, settledBefore: number, limit: number): Promise<string[]> {
  return claimableJobIds(knex, EXPORT_TABLE, (query, alias) => claimable(query, now, settledBefore, alias), limit);
}

/** Takes job `id` for `owner` (claimLeasedJob); resolves with it and its position, or undefined when another took it first. */
export async function claimExportJob(
  knex: Knex,
  id: string,
  owner: string,
  timing: { now: number; leaseMs: number; settledBefore: number },
): Promise<LeasedExport | undefined> {
  const taken = await claimLeasedJob(knex, EXPORT_TABLE, id, owner, timing, (query, alias) =>
    claimable(query, timing.now, timing.settledBefore, alias),
  );
  if (!taken) return undefined;
  const row = (await knex({ e: EXPORTS })
    .where({ 'e.id': id, 'e.lease_owner': owner })
    .first(...jobColumns(), 'e.after_key', 'e.parts_written', 'e.format_state')) as (JobRow & PositionRow) | undefined;
  if (!row) return undefined;
  return {
    record: fromRow(row),
    position: {
      after: row.after_key === null ? null : (JSON.parse(row.after_key) as string[]),
      parts: Number(row.parts_written),
      formatState: row.format_state,
    },
    owner,
  };
}

/** The lease a worker holds on `job`. */
export const exportLeaseOf = (job: LeasedExport): Lease => ({ id: job.record.id, owner: job.owner });
