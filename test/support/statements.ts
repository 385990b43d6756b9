// The SQL a service's pool sends while some work runs (Knex's 'query' event): for tests that show
// which statements answer a request or how many a write sends.
import type { Knex } from 'knex';

/** The SQL of every statement sent through `knex` while `work` runs. */
export async function statementsDuring(knex: Knex, work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => seen.push(query.sql);
  knex.on('query', listener);
  try {
    await work();
  } finally {
    knex.off('query', listener);
  }
  return seen;
}
