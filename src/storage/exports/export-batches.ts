// The transactions of an export job's worker (src/exports/README.md): each batch's bytes appended
// as parts of the file together with the job's position, counters and lease, after the check of
// the organization's bytes kept; the last batch, with the file's closing bytes, also marks the
// job succeeded. The records were read and encoded before the transaction: it holds no read of
// spans, only the job's row, the organization's guard and the new parts.
import type { Knex } from 'knex';
import { fencedJobUpdate } from '../jobs/leases.js';
import { bulkWriteTransaction } from '../transactions.js';
import { ACTIVE_STATES, EXPORTS, EXPORT_TABLE, KEPT_STATES, exportLeaseOf, type ExportPosition, type LeasedExport } from './export-jobs.js';
import { appendParts, partsOf } from './export-parts.js';

/** One batch of the file as the worker encoded it. */
export interface BatchWrite {
  bytes: Uint8Array;
  rows: number;
  /** The sort key of the batch's last record (the previous one when it holds none). */
  after: string[] | null;
  /** The format's state after the batch, as JSON text. */
  formatState: string | null;
  /** Whether the batch ends the file (its bytes end with the format's tail): the job succeeds with it. */
  last: boolean;
}

export interface BatchLimits {
  /** EXPORT_MAX_BYTES_PER_ORGANIZATION. */
  maxBytes: number;
  /** How long a result is kept after it succeeds, in milliseconds (EXPORT_RETENTION_HOURS). */
  retentionMs: number;
}

export type BatchOutcome =
  /** Another instance holds the job now, or it was cancelled: nothing was written. */
  | { kind: 'lost' }
  /** The batch would have taken the organization past its bytes kept: the job failed instead. */
  | { kind: 'byte_limit' }
  | { kind: 'written'; position: ExportPosition }
  | { kind: 'succeeded' };

/**
 * Writes one batch of `job`'s file in one transaction: the organization's write guard first (so
 * that the batches of its jobs, on any instance, and its creations take turns, and the bytes
 * kept read next are exact), then either the job failed with `byte_limit` when the batch would
 * take the organization past `limits.maxBytes`, or the job's row (position, counters, lease; with
 * the last batch its success and expiry) fenced by the lease, and the batch's parts.
 */
export async function writeBatch(
  knex: Knex,
  job: LeasedExport,
  write: BatchWrite,
  limits: BatchLimits,
  timing: { now: number; leaseMs: number },
): Promise<BatchOutcome> {
  const { record, position } = job;
  return bulkWriteTransaction(knex, async ({ db, run }): Promise<BatchOutcome> => {
    await run(db('organizations').where({ id: record.organizationId }).increment('write_guard', 1));
    const [kept] = await run<Array<{ n: number | string | null }>>(
      db(EXPORTS).where('organization_id', record.organizationId).whereIn('state', KEPT_STATES).sum({ n: 'bytes_written' }),
    );
    const keptBytes = Number(kept?.n ?? 0);
    if (keptBytes + write.bytes.length > limits.maxBytes) {
      const failed = {
        state: 'failed',
        error_code: 'byte_limit',
        error_message: `the organization's exports would keep more than ${limits.maxBytes} bytes (EXPORT_MAX_BYTES_PER_ORGANIZATION): ${keptBytes} kept, this export's next batch ${write.bytes.length}; narrow the window or the filter, choose fewer columns, or wait for results to expire`,
        finished_at: timing.now,
        lease_owner: null,
        lease_expires_at: null,
      };
      const fenced = await fencedJobUpdate(db, run, EXPORT_TABLE, exportLeaseOf(job), failed, { ...timing, states: ACTIVE_STATES });
      return fenced ? { kind: 'byte_limit' } : { kind: 'lost' };
    }
    const parts = partsOf(write.bytes, position.parts, record.bytes);
    const next: ExportPosition = { after: write.after, parts: position.parts + parts.length, formatState: write.formatState };
    const changes: Record<string, unknown> = {
      after_key: next.after === null ? null : JSON.stringify(next.after),
      parts_written: next.parts,
      format_state: next.formatState,
      rows_written: record.rows + write.rows,
      bytes_written: record.bytes + write.bytes.length,
      ...(write.last
        ? {
            state: 'succeeded',
            finished_at: timing.now,
            expires_at: timing.now + limits.retentionMs,
            lease_owner: null,
            lease_expires_at: null,
          }
        : {}),
    };
    if (!(await fencedJobUpdate(db, run, EXPORT_TABLE, exportLeaseOf(job), changes, timing))) return { kind: 'lost' };
    await appendParts(db, run, record.id, parts);
    return write.last ? { kind: 'succeeded' } : { kind: 'written', position: next };
  });
}
