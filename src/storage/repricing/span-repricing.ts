// The statements of a re-pricing job's worker (README.md beside this file): the batches that
// write spans' new cost fields, each with the job's position and counters in one transaction,
// and the end of an hour, which rebuilds the hour's derived data through the rebuild seam
// (src/storage/spans/derived/derived-rebuild.ts, rebuildHourIn) in the transaction that moves
// the job on. How a span is priced is not decided here: the worker passes a Pricer.
import type { Knex } from 'knex';
import { bigintAsText } from '../database.js';
import { afterKey } from '../keyset.js';
import { dialectFor } from '../sql/index.js';
import { rebuildHourIn } from '../spans/derived/derived-rebuild.js';
import { HOUR_NS, hourStartOf } from '../spans/read-sources.js';
import { SPAN_ORDER } from '../spans/reads/span-pages.js';
import { SPAN_PRICING_COLUMNS, SPAN_TOKEN_COLUMNS, type SpanRow } from '../spans/span-row.js';
import { betweenNanos } from '../spans/time-bounds.js';
import { bulkWriteTransaction, lockingWriteTransaction, runCompiled } from '../transactions.js';
import { fencedRepricingUpdate, firstHourOf, positionColumns, type LeasedJob, type RepricingPosition } from './repricing-jobs.js';

/**
 * The reasons an unpriced span may have that a price can change, so a job prices it again: no
 * entry of the organization or the book matched its model (`unknown_model`), or entries matched
 * it but none was in force at its start (`no_price_in_force`). `no_model`, `no_usage` and
 * `invalid_usage` depend on the span alone.
 */
export const REPRICED_UNPRICED_REASONS = ['unknown_model', 'no_price_in_force'] as const satisfies ReadonlyArray<
  NonNullable<SpanRow['unpriced_reason']>
>;

/** A span's cost and where it came from: what a job may change. */
export type SpanCost = Pick<SpanRow, 'cost' | (typeof SPAN_PRICING_COLUMNS)[number]>;

const COST_COLUMNS = ['cost', ...SPAN_PRICING_COLUMNS] as const satisfies ReadonlyArray<keyof SpanCost>;

/** A span a job prices again, as stored: its key, its model, provider and token counts, and its cost now. */
export type RepricedSpan = Pick<
  SpanRow,
  'trace_id' | 'span_id' | 'start_time_unix_nano' | 'model' | 'provider' | (typeof SPAN_TOKEN_COLUMNS)[number]
> &
  SpanCost;

/** The cost fields a span gets now. */
export type Pricer = (span: RepricedSpan) => SpanCost;

export interface JobTiming {
  /** Epoch milliseconds. */
  now: number;
  /** How long the lease is renewed for by each transaction. */
  leaseMs: number;
}

export type BatchOutcome =
  /** Another instance holds the job now, or it was cancelled: nothing was written. */
  { kind: 'lost' } | { kind: 'batch'; examined: number; repriced: number; position: RepricingPosition; hourDone: boolean };

/** The spans of the window whose cost is not reported and a price may change (a builder over `spans s`). */
function repricedSpans(db: Knex, job: LeasedJob, fromNs: bigint, toNs: bigint): Knex.QueryBuilder {
  return db({ s: 'spans' })
    .where('s.application_id', job.record.applicationId)
    .modify(betweenNanos(dialectFor(db), 's.start_time_unix_nano', fromNs, toNs))
    .where((priced) => priced.where('s.cost_source', 'computed').orWhereIn('s.unpriced_reason', REPRICED_UNPRICED_REASONS));
}

const asCount = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function repricedSpan(row: Record<string, unknown>): RepricedSpan {
  return {
    trace_id: String(row.trace_id),
    span_id: String(row.span_id),
    start_time_unix_nano: String(row.start_time_unix_nano),
    model: (row.model as string | null) ?? null,
    provider: (row.provider as string | null) ?? null,
    input_tokens: asCount(row.input_tokens),
    output_tokens: asCount(row.output_tokens),
    cache_read_tokens: asCount(row.cache_read_tokens),
    cache_creation_tokens: asCount(row.cache_creation_tokens),
    total_tokens: asCount(row.total_tokens),
    cost: asCount(row.cost),
    cost_source: (row.cost_source as SpanCost['cost_source']) ?? null,
    price_model: (row.price_model as string | null) ?? null,
    price_provider: (row.price_provider as string | null) ?? null,
    price_book: (row.price_book as string | null) ?? null,
    unpriced_reason: (row.unpriced_reason as SpanCost['unpriced_reason']) ?? null,
    price_entry_id: (row.price_entry_id as string | null) ?? null,
    price_currency: (row.price_currency as string | null) ?? null,
  };
}

const sameCost = (a: SpanCost, b: SpanCost) => COST_COLUMNS.every((column) => a[column] === b[column]);

/**
 * One span's new cost fields, by its identity (spans_identity), never over a reported cost: the
 * same text for every span, compiled ahead (prepared once per connection on MariaDB/MySQL), with
 * the values of COST_COLUMNS, then the application, trace and span ids.
 */
const UPDATE_SPAN_COST = `UPDATE spans SET ${COST_COLUMNS.map((column) => `${column} = ?`).join(', ')} WHERE application_id = ? AND trace_id = ? AND span_id = ? AND (cost_source IS NULL OR cost_source <> 'reported')`;

/** The part of the hour in the job's window. */
function hourInWindow(job: LeasedJob, hourNs: bigint): { fromNs: bigint; toNs: bigint } {
  const { fromNs, toNs } = job.record;
  return { fromNs: fromNs > hourNs ? fromNs : hourNs, toNs: toNs < hourNs + HOUR_NS ? toNs : hourNs + HOUR_NS };
}

/**
 * One batch of the job's hour: the next `limit` spans after its position, in the order of
 * POST /engine/query (start time descending, then trace_id, span_id: the index spans_newest_first,
 * read from the position on), priced again by `price`; those whose cost fields change are
 * written (never a reported cost: the statement says so again), and the job's position, counters
 * and lease in the same transaction. `hourDone` when fewer than `limit` were left.
 */
export async function repriceBatch(knex: Knex, job: LeasedJob, price: Pricer, limit: number, timing: JobTiming): Promise<BatchOutcome> {
  const hourNs = job.position.hourNs;
  if (hourNs === null) throw new Error(`re-pricing job ${job.record.id} has no hour to work on`);
  const window = hourInWindow(job, hourNs);
  return bulkWriteTransaction(knex, async (transaction) => {
    const { db, run } = transaction;
    if (!(await fencedRepricingUpdate(db, run, job, {}, timing))) return { kind: 'lost' };
    const dialect = dialectFor(db);
    const read = repricedSpans(db, job, window.fromNs, window.toNs)
      .select('s.trace_id', 's.span_id', 's.model', 's.provider', ...SPAN_TOKEN_COLUMNS.map((column) => `s.${column}`))
      .select(...COST_COLUMNS.map((column) => `s.${column}`), { start_time_unix_nano: bigintAsText(db, 's.start_time_unix_nano') })
      .orderBy(SPAN_ORDER.map(({ column, order }) => ({ column, order })))
      .limit(limit);
    if (job.position.after) read.modify(afterKey(dialect, SPAN_ORDER, job.position.after));
    const spans = (await run<Array<Record<string, unknown>>>(read)).map(repricedSpan);
    let repriced = 0;
    for (const span of spans) {
      const cost = price(span);
      if (sameCost(span, cost)) continue;
      const bindings = [...COST_COLUMNS.map((column) => cost[column]), job.record.applicationId, span.trace_id, span.span_id];
      await runCompiled(transaction, { sql: UPDATE_SPAN_COST, bindings });
      repriced += 1;
    }
    const last = spans.at(-1);
    const position: RepricingPosition = {
      hourNs,
      after: last ? [last.start_time_unix_nano, last.trace_id, last.span_id] : job.position.after,
      hourRepriced: job.position.hourRepriced || repriced > 0,
    };
    await run(
      db('repricing_jobs')
        .where({ id: job.record.id })
        .update({
          ...positionColumns(position),
          spans_examined: db.raw('spans_examined + ?', [spans.length]),
          spans_repriced: db.raw('spans_repriced + ?', [repriced]),
        }),
    );
    return { kind: 'batch', examined: spans.length, repriced, position, hourDone: spans.length < limit };
  });
}

/**
 * The first hour from `fromHourNs` on (within the window) holding a span to price again, or
 * undefined when none is left. A span stored later into a passed hour needs none: it was priced
 * at ingestion with the prices the job uses.
 */
export async function nextRepricedHour(knex: Knex, job: LeasedJob, fromHourNs: bigint): Promise<bigint | undefined> {
  const fromNs = fromHourNs > job.record.fromNs ? fromHourNs : job.record.fromNs;
  if (fromNs >= job.record.toNs) return undefined;
  const row = (await repricedSpans(knex, job, fromNs, job.record.toNs)
    .orderBy('s.start_time_unix_nano')
    .first({ start: bigintAsText(knex, 's.start_time_unix_nano') })) as { start: string | number } | undefined;
  return row && hourStartOf(BigInt(row.start));
}

export type HourOutcome =
  | { kind: 'lost' }
  /** Moved to the next hour, at `position`. */
  | { kind: 'advanced'; position: RepricingPosition }
  | { kind: 'succeeded' };

/**
 * Ends the job's hour and moves it to `nextHourNs` (undefined: the job has succeeded), in one
 * locking transaction (lockingWriteTransaction) whose first statement writes the job's row; when
 * a span of the hour was re-priced, the hour's derived data is rebuilt from its spans in it
 * (rebuildHourIn), so the move and the rebuild commit together.
 */
export async function advanceToHour(knex: Knex, job: LeasedJob, nextHourNs: bigint | undefined, timing: JobTiming): Promise<HourOutcome> {
  const position: RepricingPosition = { hourNs: nextHourNs ?? job.position.hourNs, after: null, hourRepriced: false };
  const changes =
    nextHourNs === undefined
      ? {
          ...positionColumns(position),
          hours_done: job.record.hoursTotal,
          status: 'succeeded',
          finished_at: timing.now,
          lease_owner: null,
          lease_expires_at: null,
        }
      : { ...positionColumns(position), hours_done: Number((nextHourNs - firstHourOf(job.record)) / HOUR_NS) };
  return lockingWriteTransaction(knex, async (transaction): Promise<HourOutcome> => {
    if (!(await fencedRepricingUpdate(transaction.db, transaction.run, job, changes, timing))) return { kind: 'lost' };
    if (job.position.hourRepriced && job.position.hourNs !== null)
      await rebuildHourIn(transaction, job.record.applicationId, job.position.hourNs);
    return nextHourNs === undefined ? { kind: 'succeeded' } : { kind: 'advanced', position };
  });
}

/**
 * For a job cancelled or failed while `job.owner` held it (or that it took for this): rebuilds
 * the hour it was on when a span of it was re-priced, and lets the job go, in one locking
 * transaction. False when another instance holds it.
 */
export async function rebuildStoppedHour(knex: Knex, job: LeasedJob, timing: JobTiming): Promise<boolean> {
  const changes = { hour_repriced: 0, lease_owner: null, lease_expires_at: null };
  return lockingWriteTransaction(knex, async (transaction) => {
    const stopped: { statuses: Array<'cancelled' | 'failed'> } = { statuses: ['cancelled', 'failed'] };
    if (!(await fencedRepricingUpdate(transaction.db, transaction.run, job, changes, { ...timing, ...stopped }))) return false;
    if (job.position.hourRepriced && job.position.hourNs !== null)
      await rebuildHourIn(transaction, job.record.applicationId, job.position.hourNs);
    return true;
  });
}
