// Deletes usage rows past retention (src/jobs/usage-purger.ts), oldest hours first.
import type { Knex } from 'knex';
import { retryOnLockConflict } from '../transactions.js';

/**
 * Deletes up to `limit` of the oldest hourly rows of hours that began before `beforeMs`; resolves
 * with how many it deleted and whether a full batch was found (more may be left). Rows are
 * deleted by their primary key and only while still past retention, so a batch another instance
 * deleted first is simply not deleted twice; a batch that lost a lock conflict to one (on Galera
 * a certification conflict) is read again.
 */
export function purgeUsageBatch(knex: Knex, beforeMs: number, limit: number): Promise<{ deleted: number; full: boolean }> {
  return retryOnLockConflict(() => purgeOldestHours(knex, beforeMs, limit));
}

async function purgeOldestHours(knex: Knex, beforeMs: number, limit: number): Promise<{ deleted: number; full: boolean }> {
  const keys = (await knex('usage_hourly')
    .where('hour_start', '<', beforeMs)
    .orderBy('hour_start')
    .limit(limit)
    .select('application_id', 'hour_start', 'api_key')) as Array<{ application_id: string; hour_start: number | string; api_key: string }>;
  if (keys.length === 0) return { deleted: 0, full: false };
  const deleted = await knex('usage_hourly')
    .whereIn(
      ['application_id', 'hour_start', 'api_key'],
      keys.map((key) => [key.application_id, key.hour_start, key.api_key]),
    )
    .where('hour_start', '<', beforeMs)
    .del();
  return { deleted, full: keys.length === limit };
}
