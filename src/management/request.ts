// What every management handler reads off a request that authentication and authorization have
// already passed: the calling user, the scope the request acts in, and the page it asks for.
import type { Principal, RequestScope, UserPrincipal } from '../auth/principal.js';
import { principalOf } from '../operations/request-state.js';
import { PermissionDeniedError } from '../errors.js';
import type { components } from '../generated/management.js';
import type { IncomingMessage } from 'node:http';
import type { SortColumn } from '../storage/keyset.js';
import { listPosition, type ListPosition } from '../request/paging-cursor.js';
import { pageWindow, type WindowedListRequest } from '../storage/paging.js';

export { nextCursor } from '../request/paging-cursor.js';

/** The calling dashboard user; the document's `x-principals: [user]` already turned API keys away. */
export function callingUser(request: { principal?: Principal }): UserPrincipal {
  const principal = principalOf(request);
  if (principal.kind !== 'user') throw new PermissionDeniedError('API keys cannot use this operation; it is for dashboard users');
  return principal;
}

/** The organization the request touches; set by the authorization step for every path with an id. */
export function requestScope(request: { operationId: string; scope?: RequestScope }): RequestScope {
  const { scope } = request;
  if (!scope) throw new Error(`operation ${request.operationId} ran without an authorization scope`);
  return scope;
}

export interface PageRequest extends WindowedListRequest {
  page: number;
  position: ListPosition;
}

/** Whether the caller named `page` itself (the document's default fills it in otherwise). */
function sentPage(incoming: IncomingMessage): boolean {
  return new URL(incoming.url ?? '/', 'http://localhost').searchParams.has('page');
}

/**
 * The page a list request reads: `page` and `limit` (validated and defaulted by the document; the
 * fallbacks only guard), or the position of `cursor`, bound to the operation, the caller and
 * every parameter that decides the list (`bindingParts`); see src/request/paging-cursor.ts.
 */
export function pageRequest(
  request: { operationId: string; query?: { page?: number; limit?: number; cursor?: string }; incoming: IncomingMessage },
  order: SortColumn[],
  bindingParts: unknown[],
): PageRequest {
  const page = request.query?.page ?? 1;
  const limit = request.query?.limit ?? 20;
  const position = listPosition(
    { cursor: request.query?.cursor, pageSent: sentPage(request.incoming) },
    request.operationId,
    bindingParts,
    order,
    { page, limit },
  );
  const { page: readPage, after } = position.request;
  return { page: readPage, limit, window: pageWindow(readPage, limit), ...(after ? { after } : {}), position };
}

export function pagination({ page, limit }: PageRequest, total: number): components['schemas']['Pagination'] {
  return { page, limit, total };
}
