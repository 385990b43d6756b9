// The one place the management API gives every operation its audit context (who, which
// operation, which request, from where: src/accounts/audit-trail.ts), so that each change a
// domain function records inside its transaction carries it. A write that succeeded without
// recording any event is a bug in that write: it is logged loudly (its change has committed).
import { withAuditContext, type AuditContext } from '../accounts/audit-trail.js';
import type { OperationHandler, OperationRequest } from '../operations/handler.js';
import type { ManagementHandlers } from './handlers.js';

/**
 * Operations that write without changing a resource: a successful token exchange records nothing,
 * nor does a test event (it changes no endpoint; its delivery is listed with the endpoint's).
 */
const NOT_CHANGES = new Set(['createAccessToken', 'sendTestWebhookEvent']);

const READ_METHODS = new Set(['GET', 'HEAD']);

function auditContext(request: OperationRequest<unknown>): AuditContext {
  const principal = request.principal;
  const actor =
    principal === undefined
      ? { type: 'system' as const, id: null }
      : principal.kind === 'user'
        ? { type: 'user' as const, id: principal.userId }
        : { type: 'api_key' as const, id: principal.apiKey };
  return { actor, operationId: request.operationId, requestId: request.requestId ?? null, callerAddress: request.callerAddress ?? null };
}

function audited(handler: OperationHandler<unknown>): OperationHandler<unknown> {
  return async (request) => {
    const { result, recorded } = await withAuditContext(auditContext(request), () => handler(request));
    const isChange = !READ_METHODS.has(request.incoming.method ?? 'GET') && !NOT_CHANGES.has(request.operationId);
    if (isChange && recorded === 0)
      request.log?.error({ operation: request.operationId }, 'a management write committed without an audit event');
    return result;
  };
}

/** The same handlers, each run in its request's audit context. */
export function withAuditTrail(handlers: ManagementHandlers): ManagementHandlers {
  return Object.fromEntries(
    Object.entries(handlers).map(([operationId, handler]) => [operationId, audited(handler as OperationHandler<unknown>)]),
  ) as ManagementHandlers;
}
