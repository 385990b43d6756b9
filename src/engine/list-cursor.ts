// The `cursor` parameter of the engine's lists: which page a request reads (a page number, or
// the position a cursor resumes from), with the rules of src/request/paging-cursor.ts.
import type { IncomingMessage } from 'node:http';
import type { SortColumn } from '../storage/keyset.js';
import { listPosition as positionOf, type ListPosition } from '../request/paging-cursor.js';

export { nextCursor } from '../request/paging-cursor.js';

export interface CursorRead {
  query: { cursor?: string };
  incoming: IncomingMessage;
}

/** Whether the caller named `page` itself (the document's default fills it in otherwise). */
export function sentPage(incoming: IncomingMessage): boolean {
  return new URL(incoming.url ?? '/', 'http://localhost').searchParams.has('page');
}

/** The page an engine list request reads; `bindingParts` decide the list, the application first. */
export function listPosition(
  request: CursorRead,
  operation: string,
  bindingParts: unknown[],
  order: SortColumn[],
  page: { page: number; limit: number },
): ListPosition {
  return positionOf({ cursor: request.query.cursor, pageSent: sentPage(request.incoming) }, operation, bindingParts, order, page);
}
