// Exclusion between writers of one organization or application that holds on every node of a
// cluster: the writer increments the row's write_guard (migration 20261127000100_write_guards)
// rather than reading it FOR UPDATE. Within one database the update takes the row's exclusive
// lock, as FOR UPDATE did; across Galera nodes, where locks are not replicated, two transactions
// that wrote the same row cannot both commit (the loser is retried whole; docs/multi-instance.md).
import type { Knex } from 'knex';

/** Writes the guard of the active (not deleted) row `id` of `table`; false when there is none. */
export async function writeGuard(trx: Knex.Transaction, table: 'organizations' | 'applications', id: string): Promise<boolean> {
  return (await trx(table).where({ id }).whereNull('deleted_at').increment('write_guard', 1)) > 0;
}
