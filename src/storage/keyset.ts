// Keyset reads: the rows strictly after a position in a list's order, so that a page read by
// cursor starts where the previous one ended however many rows arrive meanwhile elsewhere in
// the list (no skips, no repeats). Written as an OR-chain behind a range bound on the first sort
// column rather than a row-value comparison: the list orders mix directions (newest first, then
// ids ascending), which no row value expresses, and the leading bound is what lets the list's
// index (spans_newest_first, traces_by_min_start, spans_by_receipt) seek to the position.
import type { Knex } from 'knex';
import { lookAheadWindow, readPage, totalOf, withNextKey, type ListPage, type WindowedListRequest } from './paging.js';
import type { SqlDialect } from './sql/dialect.js';
import { dialectFor } from './sql/index.js';
import { MAX_STORED_INTEGER, MIN_STORED_INTEGER } from './spans/time-bounds.js';

/** One column of a list order: a trusted qualified name, its direction, and whether it holds a 64-bit integer or a double. */
export interface SortColumn {
  column: string;
  order: 'asc' | 'desc';
  integer: boolean;
  /** A double (a cost, a duration): its key part is the number's shortest round-trip text, bound as a number. */
  double?: boolean;
}

/**
 * Whether `text` is a key part `column` can hold (integers: exact decimal text within the signed
 * 64-bit range; doubles: a finite number written as JavaScript writes it, so that it reads back
 * as the very value the row held).
 */
export function isKeyPart(column: SortColumn, text: string): boolean {
  if (column.double) return text.length > 0 && Number.isFinite(Number(text)) && String(Number(text)) === text;
  if (!column.integer) return text.length > 0;
  if (!/^-?(0|[1-9][0-9]{0,18})$/.test(text)) return false;
  const value = BigInt(text);
  return value >= MIN_STORED_INTEGER && value <= MAX_STORED_INTEGER;
}

/** The rows strictly after `key` (one part per column, checked by isKeyPart) in the order `columns`. */
export function afterKey(dialect: SqlDialect, columns: SortColumn[], key: string[]) {
  const placeholder = (column: SortColumn) => (column.integer ? dialect.exactInteger : '?');
  const beyond = (column: SortColumn) => (column.order === 'desc' ? '<' : '>');
  // A double bound as a number is compared as the double it is; as text, SQLite would convert it itself.
  const value = (column: SortColumn, text: string) => (column.double ? Number(text) : text);
  // From the last column outwards: `c_n beyond k_n`, then `c_i beyond k_i OR (c_i = k_i AND (inner))`.
  let sql = '';
  let bindings: Array<string | number> = [];
  for (let index = columns.length - 1; index >= 0; index -= 1) {
    const column = columns[index];
    const part = value(column, key[index]);
    const strictly = `${column.column} ${beyond(column)} ${placeholder(column)}`;
    if (sql === '') {
      sql = strictly;
      bindings = [part];
    } else {
      sql = `${strictly} or (${column.column} = ${placeholder(column)} and (${sql}))`;
      bindings = [part, part, ...bindings];
    }
  }
  const first = columns[0];
  const bound = `${first.column} ${first.order === 'desc' ? '<=' : '>='} ${placeholder(first)}`;
  return (query: Knex.QueryBuilder) => {
    query.whereRaw(`${bound} and (${sql})`, [value(first, key[0]), ...bindings]);
  };
}

/**
 * The rows of one page of `ordered` (a list query, selected and sorted in `order`), one more
 * than the page (see withNextKey in paging.ts): after the cursor's key, or by the page's window
 * (none past `total` when the caller counted first).
 */
export async function readListRows<T>(
  knex: Knex,
  ordered: Knex.QueryBuilder,
  order: SortColumn[],
  request: WindowedListRequest,
  total?: number,
): Promise<T[]> {
  if (request.after) return (await ordered.modify(afterKey(dialectFor(knex), order, request.after)).limit(request.limit + 1)) as T[];
  return readPage<T>(ordered, lookAheadWindow(request.window), total);
}

/** How one list reads its rows: what it selects, its order as a keyset, and how a row becomes an item and an item a key. */
export interface KeysetList<Row, Item> {
  columns: Array<string>;
  order: SortColumn[];
  toItem: (row: Row) => Item;
  keyOf: (item: Item) => string[];
}

/**
 * One page of a list query (filtered, not yet selected or sorted), its total, and the key a
 * cursor resumes after: the one read of every account list. The ORDER BY is the keyset order.
 */
export async function readKeysetList<Row, Item>(
  knex: Knex,
  query: Knex.QueryBuilder,
  list: KeysetList<Row, Item>,
  request: WindowedListRequest,
): Promise<ListPage<Item>> {
  const total = await totalOf(query);
  const ordered = query
    .clone()
    .select(list.columns)
    .orderBy(list.order.map(({ column, order }) => ({ column, order })));
  const rows = await readListRows<Row>(knex, ordered, list.order, request, total);
  const { items, nextKey } = withNextKey(rows.map(list.toItem), request.limit, list.keyOf);
  return { items, total, nextKey };
}
