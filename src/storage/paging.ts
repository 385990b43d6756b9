// The one paging vocabulary of every list of both APIs: a page request (1-based page, limit), its
// window of rows, and a page of items with the total over all pages. Also the one place a page
// number becomes the rows before it. The documents bound a page by 2^53 − 1 (exact as a double),
// but page × limit can still pass what a double holds exactly and what the databases take
// (SQLite's signed 64-bit OFFSET; Knex reads an offset of 1e21 or more, printed as `1e+21`, as 1).
// No table holds 2^53 rows: a page starting past that is empty, and the database is not asked
// for its rows.
import type { Knex } from 'knex';

/** Page `page` (1-based) of `limit` items. */
export interface PageRequest {
  page: number;
  limit: number;
}

/** The items of one page, and how many there are over all pages. */
export interface Page<T> {
  items: T[];
  total: number;
}

export interface PageWindow {
  limit: number;
  /** The rows before the page; null when the page starts past every row a table can hold. */
  offset: number | null;
}

/** The window of page `page` (1-based) of `limit` rows. */
export function pageWindow(page: number, limit: number): PageWindow {
  const offset = (page - 1) * limit;
  // A product of safe integers that is itself a safe integer is exact.
  return { limit, offset: Number.isSafeInteger(page) && Number.isSafeInteger(offset) ? offset : null };
}

/** The statement that reads the rows of a window (one that starts within the rows) from a query in list order. */
export function windowQuery(query: Knex.QueryBuilder, window: { limit: number; offset: number }): Knex.QueryBuilder {
  return query.limit(window.limit).offset(window.offset);
}

/** The statement that counts the rows of a list query over all pages, as `total`. */
export function countQuery(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.count({ total: '*' });
}

/**
 * The rows of the window from a query in list order; none, without a read, past every row, and
 * past `total` where the caller counted the rows first.
 */
export async function readPage<T>(query: Knex.QueryBuilder, window: PageWindow, total?: number): Promise<T[]> {
  if (window.offset === null || (total !== undefined && window.offset >= total)) return [];
  return (await windowQuery(query, { limit: window.limit, offset: window.offset })) as T[];
}

/** The items of the window from a list already in memory. */
export function slicePage<T>(items: T[], window: PageWindow): T[] {
  return window.offset === null ? [] : items.slice(window.offset, window.offset + window.limit);
}

/** Number of rows a list query matches over all pages. */
export async function totalOf(query: Knex.QueryBuilder): Promise<number> {
  const row = (await countQuery(query.clone().clearSelect().clearOrder()).first()) as { total: number | string } | undefined;
  return Number(row?.total ?? 0);
}

/**
 * The items of one page and the total over all pages, read side by side: COUNT(*) over
 * `counted()` (by default `base()`; a caller may count the same rows in a smaller index), and the
 * page of `base()` read by `page`.
 */
export async function pageAndTotal<T>(
  base: () => Knex.QueryBuilder,
  page: (query: Knex.QueryBuilder, window: PageWindow) => Promise<T[]>,
  request: PageRequest,
  counted: () => Knex.QueryBuilder = base,
): Promise<Page<T>> {
  const [items, totals] = await Promise.all([
    page(base(), pageWindow(request.page, request.limit)),
    countQuery(counted()) as Promise<Array<{ total: unknown }>>,
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

/** A page request that may resume from a cursor's position instead of counting rows from the start. */
export interface ListRequest extends PageRequest {
  /** The sort key of the last row of the previous page (keyset.ts); the page is read after it. */
  after?: string[];
}

/** A page, and the sort key of its last row when more rows follow (null on the last page). */
export interface ListPage<T> extends Page<T> {
  nextKey: string[] | null;
}

/** The window that reads one row past a page, so that the page knows whether another follows. */
export function lookAheadWindow(window: PageWindow): PageWindow {
  return { ...window, limit: window.limit + 1 };
}

/** A page read through lookAheadWindow(): its items and, when a row followed, the key of its last item. */
export function withNextKey<T>(rows: T[], limit: number, keyOf: (row: T) => string[]): { items: T[]; nextKey: string[] | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextKey: rows.length > limit && last !== undefined ? keyOf(last) : null };
}

/** A page of a list read in memory-free order: its window (by page number) or the key a cursor resumes after. */
export interface WindowedListRequest {
  limit: number;
  window: PageWindow;
  after?: string[];
}
