// The list every jobs table answers (re-pricing jobs, export jobs): an application's jobs, newest
// first (created_at, then id, both descending), by page or by keyset.
import type { Knex } from 'knex';
import { readKeysetList, type SortColumn } from '../keyset.js';
import type { ListPage, WindowedListRequest } from '../paging.js';

/** The list order as a keyset over the table's alias: newest first, ties by id descending (created_at is epoch milliseconds). */
export function newestFirst(alias: string): SortColumn[] {
  return [
    { column: `${alias}.created_at`, order: 'desc', integer: true },
    { column: `${alias}.id`, order: 'desc', integer: false },
  ];
}

/** How a jobs table is read: its name, the alias its columns are selected under, and a row as a job. */
export interface JobList<Row, Job> {
  table: string;
  alias: string;
  columns: Array<string | Record<string, Knex.Raw>>;
  toItem: (row: Row) => Job;
}

/** A page of the application's jobs, newest first. */
export async function listApplicationJobs<Row, Job extends { id: string; createdAt: number }>(
  knex: Knex,
  list: JobList<Row, Job>,
  applicationId: string,
  page: WindowedListRequest,
): Promise<ListPage<Job>> {
  return readKeysetList(
    knex,
    knex({ [list.alias]: list.table }).where(`${list.alias}.application_id`, applicationId),
    {
      columns: list.columns as string[],
      order: newestFirst(list.alias),
      toItem: list.toItem,
      keyOf: (job) => [String(job.createdAt), job.id],
    },
    page,
  );
}
