// The export jobs' housekeeping, run by the worker before it takes jobs (src/jobs/exporter.ts):
// results past their expiry become `expired`; jobs of deleted applications that were still to
// run are cancelled; the parts of failed, cancelled and expired jobs are deleted in bounded
// statements; job records are purged a week after they ended. Every statement is safe beside the
// same pass of other instances: each changes or deletes only rows still meeting its condition.
import type { Knex } from 'knex';
import { fragment } from '../sql/dialect.js';
import { dialectFor } from '../sql/index.js';
import { ACTIVE_STATES, DEAD_STATES, EXPORTS } from './export-jobs.js';
import { EXPORT_PARTS } from './export-parts.js';

/** How long a job's record is kept after its result expired (or after it failed or was cancelled and would have expired). */
export const EXPORT_RECORD_KEEP_MS = 7 * 86_400_000;

/** Parts one DELETE removes at most (up to PART_MAX_BYTES each). */
const PARTS_PER_DELETE = 16;

/** Parts one pass deletes at most: the rest waits for the next pass. */
const PARTS_PER_PASS = 1024;

export interface HousekeepingCounts {
  expired: number;
  cancelled: number;
  partsDeleted: number;
  purged: number;
}

/** Jobs each step changes at most in one statement: the rest waits for the next pass. */
const JOBS_PER_STEP = 100;

/**
 * Changes (or deletes, `change` undefined) the jobs `select` finds, by id and only while `select`
 * still holds for them. The ids are read first: a pass with nothing to do sends no write, which on
 * SQLite would take the one writer's lock every second.
 */
async function step(
  knex: Knex,
  select: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
  change?: Record<string, unknown>,
): Promise<number> {
  const ids = ((await select(knex(EXPORTS)).limit(JOBS_PER_STEP).select('id')) as Array<{ id: string }>).map((row) => row.id);
  if (ids.length === 0) return 0;
  const still = select(knex(EXPORTS)).whereIn('id', ids);
  return change ? still.update(change) : still.del();
}

/** One round of housekeeping at `now`, results kept `retentionMs` after they succeed. */
export async function exportHousekeeping(knex: Knex, now: number, retentionMs: number): Promise<HousekeepingCounts> {
  const expired = await step(knex, (jobs) => jobs.where('state', 'succeeded').where('expires_at', '<=', now), { state: 'expired' });
  const cancelled = await step(
    knex,
    (jobs) => jobs.whereIn('state', ACTIVE_STATES).whereIn('application_id', knex('applications').whereNotNull('deleted_at').select('id')),
    { state: 'cancelled', finished_at: now, lease_owner: null, lease_expires_at: null },
  );
  const partsDeleted = await deleteDeadParts(knex);
  const keepBefore = now - EXPORT_RECORD_KEEP_MS;
  const purged = await step(knex, (jobs) =>
    jobs
      .where((ended) =>
        ended
          .where((gone) => gone.where('state', 'expired').where('expires_at', '<=', keepBefore))
          .orWhere((stopped) => stopped.whereIn('state', ['failed', 'cancelled']).where('finished_at', '<=', keepBefore - retentionMs)),
      )
      .whereNotExists((parts) => parts.select(knex.raw('1')).from(EXPORT_PARTS).whereRaw(`${EXPORT_PARTS}.export_id = ${EXPORTS}.id`)),
  );
  return { expired, cancelled, partsDeleted, purged };
}

/** Deletes the parts of failed, cancelled and expired jobs, PARTS_PER_DELETE a statement, up to PARTS_PER_PASS. */
async function deleteDeadParts(knex: Knex): Promise<number> {
  const dialect = dialectFor(knex);
  let deleted = 0;
  while (deleted < PARTS_PER_PASS) {
    const dead = (await knex({ e: EXPORTS })
      .whereIn('e.state', DEAD_STATES)
      .whereExists((parts) => parts.select(knex.raw('1')).from({ p: EXPORT_PARTS }).whereRaw('p.export_id = e.id'))
      .first('e.id')) as { id: string } | undefined;
    if (!dead) break;
    const where = fragment('export_id = ?', dead.id);
    for (;;) {
      const result = await dialect.deleteFirstRows(knex, EXPORT_PARTS, where, ['export_id', 'part'], PARTS_PER_DELETE);
      const count = affected(result);
      deleted += count;
      if (count < PARTS_PER_DELETE || deleted >= PARTS_PER_PASS) break;
    }
  }
  return deleted;
}

/** The rows a raw DELETE removed: better-sqlite3's `changes`, mysql2's `affectedRows`. */
function affected(result: unknown): number {
  const first = Array.isArray(result) ? result[0] : result;
  const counts = first as { changes?: number; affectedRows?: number } | undefined;
  return Number(counts?.changes ?? counts?.affectedRows ?? 0);
}
