// The `cursor` parameter of the engine's lists: which page a request reads (a page number, or
// the position a cursor resumes from) and the `next_cursor` of its answer. A cursor is bound to
// the operation and to everything that decides the list (src/storage/paging-cursor.ts); sent
// with another query, malformed, or together with `page`, it is a 422 at ["query", "cursor"].
import type { IncomingMessage } from 'node:http';
import { RequestValidationError } from '../errors.js';
import { decodeCursor, encodeCursor, queryBinding } from '../storage/paging-cursor.js';
import { isKeyPart, type SortColumn } from '../storage/keyset.js';
import type { ListRequest } from '../storage/paging.js';

export interface CursorRead {
  query: { cursor?: string };
  incoming: IncomingMessage;
}

/** The page a list request reads, and the binding its next_cursor carries. */
export interface ListPosition {
  request: ListRequest;
  binding: string;
}

function cursorIssue(msg: string): RequestValidationError {
  return new RequestValidationError([{ loc: ['query', 'cursor'], msg, type: 'value_error.cursor' }]);
}

/** Whether the caller named `page` itself (the document's default fills it in otherwise). */
function sentPage(incoming: IncomingMessage): boolean {
  return new URL(incoming.url ?? '/', 'http://localhost').searchParams.has('page');
}

/**
 * The page to read: `page` as sent, or the position of `cursor`. `bindingParts` are every part
 * of the request that decides the list, the application first; `order` is the list's keyset.
 */
export function listPosition(request: CursorRead, operation: string, bindingParts: unknown[], order: SortColumn[], page: { page: number; limit: number }): ListPosition {
  const binding = queryBinding([operation, ...bindingParts, page.limit]);
  const cursor = request.query.cursor;
  if (cursor === undefined) return { request: page, binding };
  if (sentPage(request.incoming)) throw cursorIssue('Send either cursor or page, not both: a cursor names its own page');
  const decoded = decodeCursor(cursor, operation, binding, order.length);
  if (!decoded.ok) throw cursorIssue(decoded.msg);
  const { key, page: cursorPage } = decoded.position;
  if (!key.every((part, index) => isKeyPart(order[index] as SortColumn, part))) throw cursorIssue('Malformed cursor: send back a next_cursor exactly as a list returned it');
  return { request: { page: cursorPage, limit: page.limit, after: key }, binding };
}

/** The next_cursor of a page: null on the last page. */
export function nextCursor(operation: string, position: ListPosition, nextKey: string[] | null): string | null {
  if (nextKey === null) return null;
  return encodeCursor(operation, position.binding, { key: nextKey, page: position.request.page + 1 });
}
