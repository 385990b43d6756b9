// The repricing_jobs table (README.md beside this file): a job's row as the management API
// creates, lists, reads and cancels it, and the lease by which one worker of any instance works on
// it (../jobs/leases.ts). A job's position (the hour being worked on, the last span done in it,
// whether a span of it changed) is written only by the worker holding the lease, in the
// transactions of ./span-repricing.ts; every one of them first checks and renews the lease (fencedRepricingUpdate).
import type { Knex } from 'knex';
import { bigintAsText } from '../database.js';
import { listApplicationJobs, newestFirst } from '../jobs/job-lists.js';
import type { ListPage, WindowedListRequest } from '../paging.js';
import type { Run } from '../sql/dialect.js';
import { dialectFor } from '../sql/index.js';
import { HOUR_NS, hourStartOf } from '../spans/read-sources.js';
import { claimableJobIds, claimLeasedJob, fencedJobUpdate, leaseFree, type Lease, type LeasedTable } from '../jobs/leases.js';

export const REPRICING_JOBS = 'repricing_jobs';

/** The table as the lease statements (../jobs/leases.ts) name it. */
export const REPRICING_TABLE: LeasedTable = { name: REPRICING_JOBS, state: 'status' };

export const REPRICING_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type RepricingStatus = (typeof REPRICING_STATUSES)[number];

/** The statuses of a job that may still re-price spans: two of them over overlapping windows never coexist. */
export const UNFINISHED_STATUSES: readonly RepricingStatus[] = ['queued', 'running'];

/** A job as the management API shows it. Times are epoch milliseconds; the window is nanoseconds. */
export interface RepricingJobRecord {
  id: string;
  applicationId: string;
  fromNs: bigint;
  toNs: bigint;
  status: RepricingStatus;
  spansExamined: number;
  spansRepriced: number;
  hoursDone: number;
  hoursTotal: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
}

/** Where the job's worker is: the hour of span start time being worked on and the last span of it done. */
export interface RepricingPosition {
  /** The hour's start; null before the first hour. */
  hourNs: bigint | null;
  /** The last span of the hour done, as its key in the batches' order (start time, trace_id, span_id). */
  after: [string, string, string] | null;
  /** Whether a span of the hour was re-priced since the hour's derived data was last rebuilt. */
  hourRepriced: boolean;
}

/** A job a worker holds the lease of: its row as read when it took it, and its position. */
export interface LeasedJob {
  record: RepricingJobRecord;
  /** The application's organization, whose price entries price the spans. */
  organizationId: string;
  position: RepricingPosition;
  owner: string;
}

interface JobRow {
  id: string;
  application_id: string;
  from_ns: string;
  to_ns: string;
  status: RepricingStatus;
  spans_examined: number | string;
  spans_repriced: number | string;
  hours_done: number | string;
  hours_total: number | string;
  created_at: number | string;
  started_at: number | string | null;
  finished_at: number | string | null;
  error: string | null;
}

interface PositionRow {
  hour_ns: string | null;
  after_start_ns: string | null;
  after_trace_id: string | null;
  after_span_id: string | null;
  hour_repriced: number | boolean | string;
  lease_owner: string | null;
  organization_id: string;
}

function jobColumns(knex: Knex, alias = 'j'): Array<string | Record<string, Knex.Raw>> {
  return [
    `${alias}.id`,
    `${alias}.application_id`,
    { from_ns: bigintAsText(knex, `${alias}.from_unix_nano`), to_ns: bigintAsText(knex, `${alias}.to_unix_nano`) },
    `${alias}.status`,
    `${alias}.spans_examined`,
    `${alias}.spans_repriced`,
    `${alias}.hours_done`,
    `${alias}.hours_total`,
    `${alias}.created_at`,
    `${alias}.started_at`,
    `${alias}.finished_at`,
    `${alias}.error`,
  ];
}

const orNull = (value: number | string | null) => (value === null ? null : Number(value));

function fromRow(row: JobRow): RepricingJobRecord {
  return {
    id: row.id,
    applicationId: row.application_id,
    fromNs: BigInt(row.from_ns),
    toNs: BigInt(row.to_ns),
    status: row.status,
    spansExamined: Number(row.spans_examined),
    spansRepriced: Number(row.spans_repriced),
    hoursDone: Number(row.hours_done),
    hoursTotal: Number(row.hours_total),
    createdAt: Number(row.created_at),
    startedAt: orNull(row.started_at),
    finishedAt: orNull(row.finished_at),
    error: row.error,
  };
}

/** The first hour of span start time the window touches. */
export function firstHourOf(job: Pick<RepricingJobRecord, 'fromNs'>): bigint {
  return hourStartOf(job.fromNs);
}

/** The hours of span start time `[fromNs, toNs)` touches, a partial hour at either end counting as one. */
export function hoursOfWindow(fromNs: bigint, toNs: bigint): number {
  const endHour = hourStartOf(toNs) === toNs ? toNs : hourStartOf(toNs) + HOUR_NS;
  return Number((endHour - hourStartOf(fromNs)) / HOUR_NS);
}

/** A new job's row, queued. */
export async function insertRepricingJob(trx: Knex.Transaction, job: RepricingJobRecord): Promise<void> {
  await trx(REPRICING_JOBS).insert({
    id: job.id,
    application_id: job.applicationId,
    from_unix_nano: job.fromNs.toString(),
    to_unix_nano: job.toNs.toString(),
    status: job.status,
    spans_examined: job.spansExamined,
    spans_repriced: job.spansRepriced,
    hours_done: job.hoursDone,
    hours_total: job.hoursTotal,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
    error: job.error,
    hour_repriced: 0,
  });
}

/**
 * The oldest queued or running job of the application whose window overlaps `[fromNs, toNs)`.
 * Read in the transaction that inserts the new job, after the application's write guard (so two
 * such transactions never both find none).
 */
export async function unfinishedOverlapping(
  trx: Knex.Transaction,
  applicationId: string,
  fromNs: bigint,
  toNs: bigint,
): Promise<RepricingJobRecord | undefined> {
  const { exactInteger } = dialectFor(trx);
  const row = (await trx({ j: REPRICING_JOBS })
    .where('j.application_id', applicationId)
    .whereIn('j.status', UNFINISHED_STATUSES)
    .whereRaw(`j.from_unix_nano < ${exactInteger}`, [toNs.toString()])
    .whereRaw(`j.to_unix_nano > ${exactInteger}`, [fromNs.toString()])
    .orderBy([{ column: 'j.created_at' }, { column: 'j.id' }])
    .first(jobColumns(trx))) as JobRow | undefined;
  return row && fromRow(row);
}

/** The application's job `id`; undefined when there is none (or it is another application's). */
export async function findRepricingJob(knex: Knex, applicationId: string, id: string): Promise<RepricingJobRecord | undefined> {
  const row = (await knex({ j: REPRICING_JOBS }).where({ 'j.id': id, 'j.application_id': applicationId }).first(jobColumns(knex))) as
    JobRow | undefined;
  return row && fromRow(row);
}

/** As findRepricingJob, its row locked until the transaction ends (a cancel waits for the batch in flight). */
export async function lockRepricingJob(trx: Knex.Transaction, applicationId: string, id: string): Promise<RepricingJobRecord | undefined> {
  const row = (await trx({ j: REPRICING_JOBS })
    .where({ 'j.id': id, 'j.application_id': applicationId })
    .first(jobColumns(trx))
    .forUpdate()) as JobRow | undefined;
  return row && fromRow(row);
}

/** Cancels a job locked by lockRepricingJob. Its lease and position stay: the worker holding it still rebuilds the hour it was on. */
export async function cancelRepricingJobRow(trx: Knex.Transaction, id: string, now: number): Promise<void> {
  await trx(REPRICING_JOBS).where({ id }).update({ status: 'cancelled', finished_at: now });
}

/** The list order as a keyset: newest first. */
export const REPRICING_JOB_ORDER = newestFirst('j');

export async function listRepricingJobs(
  knex: Knex,
  applicationId: string,
  page: WindowedListRequest,
): Promise<ListPage<RepricingJobRecord>> {
  return listApplicationJobs(knex, { table: REPRICING_JOBS, alias: 'j', columns: jobColumns(knex), toItem: fromRow }, applicationId, page);
}

/**
 * What a worker may take: a queued job; a running one that no instance holds (its lease expired,
 * or its worker let it go when it stopped); a cancelled or failed one whose last hour still has
 * re-priced spans to rebuild, no instance holding it. Jobs of deleted applications are left.
 */
function claimable(query: Knex.QueryBuilder, now: number, alias: string): Knex.QueryBuilder {
  return leaseFree(query, now, alias).where((work) =>
    work
      .whereIn(`${alias}.status`, UNFINISHED_STATUSES)
      .orWhere((stopped) => stopped.whereIn(`${alias}.status`, ['cancelled', 'failed']).where(`${alias}.hour_repriced`, 1)),
  );
}

/** Up to `limit` jobs a worker may take now, oldest first. */
export async function claimableRepricingJobs(knex: Knex, now: number, limit: number): Promise<string[]> {
  return claimableJobIds(knex, REPRICING_TABLE, (query, alias) => claimable(query, now, alias), limit);
}

/**
 * Takes job `id` for `owner` until `now + leaseMs`, when it is still what claimableRepricingJobs
 * found (claimLeasedJob). Resolves with the job and its position, or undefined when another took
 * it first.
 */
export async function claimRepricingJob(
  knex: Knex,
  id: string,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<LeasedJob | undefined> {
  const taken = await claimLeasedJob(knex, REPRICING_TABLE, id, owner, { now, leaseMs }, (query, alias) => claimable(query, now, alias));
  return taken ? readLeasedJob(knex, id, owner) : undefined;
}

/** The job and its position, when `owner` holds it. */
export async function readLeasedJob(knex: Knex, id: string, owner: string): Promise<LeasedJob | undefined> {
  const row = (await knex({ j: REPRICING_JOBS })
    .join({ a: 'applications' }, 'a.id', 'j.application_id')
    .where({ 'j.id': id, 'j.lease_owner': owner })
    .first(...jobColumns(knex), 'j.after_trace_id', 'j.after_span_id', 'j.hour_repriced', 'j.lease_owner', 'a.organization_id', {
      hour_ns: bigintAsText(knex, 'j.hour_start_unix_nano'),
      after_start_ns: bigintAsText(knex, 'j.after_start_unix_nano'),
    })) as (JobRow & PositionRow) | undefined;
  if (!row) return undefined;
  const after: RepricingPosition['after'] =
    row.after_start_ns === null || row.after_trace_id === null || row.after_span_id === null
      ? null
      : [row.after_start_ns, row.after_trace_id, row.after_span_id];
  return {
    record: fromRow(row),
    organizationId: row.organization_id,
    position: { hourNs: row.hour_ns === null ? null : BigInt(row.hour_ns), after, hourRepriced: Number(row.hour_repriced) === 1 },
    owner,
  };
}

/** The columns of a position, as a job's row stores it. */
export function positionColumns(position: RepricingPosition): Record<string, string | number | null> {
  return {
    hour_start_unix_nano: position.hourNs === null ? null : position.hourNs.toString(),
    after_start_unix_nano: position.after?.[0] ?? null,
    after_trace_id: position.after?.[1] ?? null,
    after_span_id: position.after?.[2] ?? null,
    hour_repriced: position.hourRepriced ? 1 : 0,
  };
}

/** The lease a worker holds on `job`. */
export const repricingLeaseOf = (job: LeasedJob): Lease => ({ id: job.record.id, owner: job.owner });

/**
 * fencedJobUpdate of ../jobs/leases.ts on the job's row, its status one of `statuses`
 * (running by default): the first statement of every transaction of the worker.
 */
export async function fencedRepricingUpdate(
  db: Knex,
  run: Run,
  job: LeasedJob,
  changes: Record<string, unknown>,
  { now, leaseMs, statuses = ['running'] }: { now: number; leaseMs: number; statuses?: readonly RepricingStatus[] },
): Promise<boolean> {
  return fencedJobUpdate(db, run, REPRICING_TABLE, repricingLeaseOf(job), changes, { now, leaseMs, states: statuses });
}
