// POST /engine/query's read: a page of the window's spans matching a filter, newest first, and
// their total. A page and its total are two statements run side by side: COUNT(*) over the
// window, and the page. Spans are read in list order from spans_newest_first, which is also
// their window's index, so a page stops early without sorting the window. (COUNT(*) OVER () in
// one statement was tried: it materialises every matching row, 7 s for a day of 1M spans.)
import type { Knex } from 'knex';
import type { FilterNode } from '../../filter/ast.js';
import { pageAndTotal, readPage, type Page, type PageRequest } from '../paging.js';
import { dialectFor } from '../sql/index.js';
import { compileFilter } from './filter-sql.js';
import { normaliseSpan, selectSpanColumns, type StoredSpan } from './stored-span.js';
import { betweenNanos } from './time-bounds.js';

/** The spans (or traces) of one application in `[startNs, endNs)` that match the filter. */
export interface WindowFilter {
  applicationId: string;
  startNs: bigint;
  endNs: bigint;
  filter: FilterNode | null;
}

/** The spans of the window that match the filter (a builder over `spans s`). */
export function matchingSpans(knex: Knex, query: WindowFilter): Knex.QueryBuilder {
  const dialect = dialectFor(knex);
  const where = compileFilter(query.filter, { dialect, column: (name) => `s.${name}` });
  return knex({ s: 'spans' })
    .where('s.application_id', query.applicationId)
    .modify(betweenNanos(dialect, 's.start_time_unix_nano', query.startNs, query.endNs))
    .modify((builder) => {
      if (where) builder.where(where);
    });
}

/** The stored spans of `matching` (a matchingSpans() builder), newest first: the list a page is read from. */
export function spanPageQuery(knex: Knex, matching: Knex.QueryBuilder): Knex.QueryBuilder {
  return selectSpanColumns(knex, matching, 's').orderBy([
    { column: 's.start_time_unix_nano', order: 'desc' },
    { column: 's.trace_id' },
    { column: 's.span_id' },
  ]);
}

/** POST /engine/query: spans of the window matching the filter, newest first. */
export async function findSpans(knex: Knex, query: WindowFilter & PageRequest): Promise<Page<StoredSpan>> {
  return pageAndTotal(
    () => matchingSpans(knex, query),
    async (builder, window) => {
      const rows = await readPage<Record<string, unknown>>(spanPageQuery(knex, builder), window);
      return rows.map(normaliseSpan);
    },
    query,
  );
}
