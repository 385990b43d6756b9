// What the middleware chain records on a request (Koa's `ctx.state`), typed once for every layer
// that reads it, and the accessor for the caller (of ctx.state, or of a handler's request).
import type { Logger } from 'pino';
import type { AuthFailure } from '../auth/authenticate.js';
import type { Principal, RequestScope } from '../auth/principal.js';
import type { ServiceError } from '../errors.js';

declare module 'koa' {
  interface DefaultState {
    /** The request's id (the caller's X-Request-Id when sane), set by src/http/request-context.ts. */
    requestId?: string;
    /** The logger that carries the request id. */
    log?: Logger;
    /** The document's operationId once routed; for the access log and metrics. */
    operationId?: string;
    /** The name of a route outside the documents (`healthz`, `metrics`, ...), for metrics. */
    route?: string;
    /** The authenticated caller, once a security handler has run. */
    principal?: Principal;
    /** The one authentication of the request, shared by every security scheme it lists. */
    authentication?: Promise<unknown>;
    /** Why authentication refused the request, for the access log only. */
    authFailure?: AuthFailure;
    /** What the authorization step resolved the request to touch. */
    scope?: RequestScope;
    /** Why the body could not be read; answered once the operation (and its error shape) is known. */
    bodyFailure?: ServiceError;
  }
}

/** The authenticated caller; its absence past authentication is a bug, not a 401. */
export function principalOf(request: { principal?: Principal }): Principal {
  const principal = request.principal;
  if (!principal) throw new Error('no authenticated principal on this request');
  return principal;
}
