// The request a handler receives (src/operations/handler.ts), built once per request from what
// openapi-backend parsed, validated and coerced and what the middleware recorded on ctx.state;
// and the unchecked view of a request that failed validation, for the 422 refiners.
import type { Context as KoaContext } from 'koa';
import type { Context as OpenApiContext } from 'openapi-backend';
import type { OperationRequest, RejectedRequest } from '../operations/handler.js';

/** A request of any operation: its parameters and body as openapi-backend holds them, of no declared type. */
type AnyOperationRequest = Omit<OperationRequest<unknown>, 'params' | 'query' | 'headers' | 'body'> &
  Record<'params' | 'query' | 'headers' | 'body', unknown>;

/**
 * The one place the document's types are asserted: the handler runs only once the request passed
 * its operation's schema (src/api/openapi-backend.ts), and with `coerceRequests` openapi-backend
 * parses the request again from the coerced path and query (defaults applied). Headers are not
 * coerced, which the request type says (src/operations/handler.ts).
 */
export function operationRequest<Op>(request: OpenApiContext, ctx: KoaContext): OperationRequest<Op> {
  const { params, query, headers, requestBody } = request.request;
  const validated: AnyOperationRequest = {
    operationId: request.operation.operationId ?? '',
    params,
    query,
    headers,
    body: requestBody,
    principal: ctx.state.principal,
    scope: ctx.state.scope,
    log: ctx.state.log,
    requestId: ctx.state.requestId,
    callerAddress: ctx.ip || undefined,
    incoming: ctx.req,
  };
  return validated as OperationRequest<Op>;
}

export function rejectedRequest(request: OpenApiContext): RejectedRequest {
  return { operationId: request.operation?.operationId, body: request.request.requestBody };
}
