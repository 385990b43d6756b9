// The opaque cursor of every list (`cursor` in, `next_cursor` out): base64url of a small
// versioned JSON holding the keyset position (the last row's sort key, as exact text), the page
// number it leads to, the operation, and a hash of the query it belongs to. Not a secret: the
// application is always the one the request names (and the caller may read), so a forged cursor
// can only move within what the caller may already list; the hash catches a cursor sent with
// another query, where the position would mean nothing. Storage receives only the decoded
// position (a ListRequest whose `after` key parts isKeyPart has checked).
import { createHash } from 'node:crypto';
import { RequestValidationError } from '../errors.js';
import { isKeyPart, type SortColumn } from '../storage/keyset.js';
import type { ListRequest } from '../storage/paging.js';

const VERSION = 1;

/** Where a cursor resumes: strictly after `key` in list order, as page `page`. */
export interface CursorPosition {
  key: string[];
  page: number;
}

interface CursorBody {
  v: number;
  o: string;
  p: number;
  k: string[];
  h: string;
}

/** The hash that binds a cursor to a query: every part that decides the list (application, filter, window, limit, ...). */
export function queryBinding(parts: unknown[]): string {
  const text = JSON.stringify(parts, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

export function encodeCursor(operation: string, binding: string, position: CursorPosition): string {
  const body: CursorBody = { v: VERSION, o: operation, p: position.page, k: position.key, h: binding };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

function isCursorBody(value: unknown, keyLength: number): value is CursorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return (
    body.v === VERSION &&
    typeof body.o === 'string' &&
    typeof body.h === 'string' &&
    typeof body.p === 'number' &&
    Number.isSafeInteger(body.p) &&
    body.p >= 2 &&
    Array.isArray(body.k) &&
    body.k.length === keyLength &&
    body.k.every((part) => typeof part === 'string' && part.length <= 256)
  );
}

/** Why a cursor is refused, as the caller reads it; or the position it holds. */
export type DecodedCursor = { ok: true; position: CursorPosition } | { ok: false; msg: string };

/** Reads a cursor of `operation` sent with the query whose binding is `binding`; `keyLength` parts of sort key. */
export function decodeCursor(text: string, operation: string, binding: string, keyLength: number): DecodedCursor {
  let body: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    body = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, msg: 'Malformed cursor: send back a next_cursor exactly as a list returned it' };
  }
  if (!isCursorBody(body, keyLength)) return { ok: false, msg: 'Malformed cursor: send back a next_cursor exactly as a list returned it' };
  if (body.o !== operation) return { ok: false, msg: `This cursor belongs to another operation (${body.o}), not ${operation}` };
  if (body.h !== binding)
    return {
      ok: false,
      msg: 'This cursor belongs to another query: send it with the same application, filter, window, sort and limit as the request that returned it',
    };
  return { ok: true, position: { key: body.k, page: body.p } };
}

/** The page a list request reads (a page number, or a cursor's position), and the binding its next_cursor carries. */
export interface ListPosition {
  operation: string;
  request: ListRequest;
  binding: string;
}

function cursorIssue(msg: string): RequestValidationError {
  return new RequestValidationError([{ loc: ['query', 'cursor'], msg, type: 'value_error.cursor' }]);
}

/**
 * The page to read: `page` as sent, or the position of `cursor` (a 422 at ["query", "cursor"]
 * when it is malformed, of another operation or query, or sent with `page`). `bindingParts` are
 * every part of the request that decides the list; `order` is the list's keyset.
 */
export function listPosition(
  sent: { cursor: string | undefined; pageSent: boolean },
  operation: string,
  bindingParts: unknown[],
  order: SortColumn[],
  page: { page: number; limit: number },
): ListPosition {
  const binding = queryBinding([operation, ...bindingParts, page.limit]);
  if (sent.cursor === undefined) return { operation, request: { page: page.page, limit: page.limit }, binding };
  if (sent.pageSent) throw cursorIssue('Send either cursor or page, not both: a cursor names its own page');
  const decoded = decodeCursor(sent.cursor, operation, binding, order.length);
  if (!decoded.ok) throw cursorIssue(decoded.msg);
  const { key, page: cursorPage } = decoded.position;
  if (!key.every((part, index) => isKeyPart(order[index] as SortColumn, part)))
    throw cursorIssue('Malformed cursor: send back a next_cursor exactly as a list returned it');
  return { operation, request: { page: cursorPage, limit: page.limit, after: key }, binding };
}

/** The next_cursor of a page read at `position`: null on the last page. */
export function nextCursor(position: ListPosition, nextKey: string[] | null): string | null {
  if (nextKey === null) return null;
  return encodeCursor(position.operation, position.binding, { key: nextKey, page: position.request.page + 1 });
}
