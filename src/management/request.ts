// What every management handler reads off a request that authentication and authorization have
// already passed: the calling user, the scope the request acts in, and the page it asks for.
import type { Principal, RequestScope, UserPrincipal } from '../auth/principal.js';
import { principalOf } from '../operations/request-state.js';
import { PermissionDeniedError } from '../errors.js';
import type { components } from '../generated/management.js';
import { pageWindow, type PageWindow } from '../storage/paging.js';

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

export interface PageRequest {
  page: number;
  limit: number;
  window: PageWindow;
}

/** `page` and `limit` arrive validated and defaulted by the document; the fallbacks only guard. */
export function pageRequest(query: { page?: number; limit?: number } | undefined): PageRequest {
  const page = query?.page ?? 1;
  const limit = query?.limit ?? 20;
  return { page, limit, window: pageWindow(page, limit) };
}

export function pagination({ page, limit }: PageRequest, total: number): components['schemas']['Pagination'] {
  return { page, limit, total };
}
