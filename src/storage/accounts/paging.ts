// What the account repositories share: a page window for lists, counting a list's total, and
// the write transaction every change of an organization, member, application or key runs in.
import type { Knex } from 'knex';
import { retryOnLockConflict } from '../transactions.js';

export { readPage, type PageWindow } from '../paging.js';

export interface Paged<T> {
  items: T[];
  total: number;
}

/** Number of rows a list query matches over all pages. */
export async function totalOf(query: Knex.QueryBuilder): Promise<number> {
  const row = (await query.clone().clearSelect().clearOrder().count({ total: '*' }).first()) as { total: number | string } | undefined;
  return Number(row?.total ?? 0);
}

/**
 * Runs `work` in one transaction, retried whole when the database aborts it for a lock conflict
 * (a MariaDB deadlock between two writers of the same organization, SQLite's busy lock).
 */
export function writeTransaction<T>(knex: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return retryOnLockConflict(() => knex.transaction(work));
}
