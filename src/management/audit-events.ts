// listAuditEvents: an organization's audit log for its owners, newest first, by cursor only
// (docs/audit-log.md). Events are written by the changes themselves (src/accounts/audit-trail.ts).
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { RequestValidationError } from '../errors.js';
import {
  AUDIT_EVENT_ORDER,
  listAuditEvents as listAuditEventRows,
  type AuditEventFilter,
  type AuditEventRecord,
} from '../storage/audit/audit-events.js';
import { listPosition, nextCursor } from '../request/paging-cursor.js';
import { rfc3339ToCeilingMillis, rfc3339ToNanos } from '../request/time-window.js';
import { pageWindow } from '../storage/paging.js';
import { toIsoRequired } from '../storage/time.js';

type Schemas = components['schemas'];

function auditEventBody(event: AuditEventRecord): Schemas['AuditEvent'] {
  return {
    id: event.id,
    occurred_at: toIsoRequired(event.occurredAt),
    // The list reads one organization's events: never null here.
    organization_id: event.organizationId ?? '',
    operation_id: event.operationId,
    outcome: event.outcome,
    actor: { type: event.actorType, id: event.actorId },
    resource: { type: event.resourceType as Schemas['AuditResourceType'], id: event.resourceId },
    request_id: event.requestId,
    caller_address: event.callerAddress,
    before: event.before,
    after: event.after,
  };
}

function filterOf(organizationId: string, query: operations['listAuditEvents']['parameters']['query'] & object): AuditEventFilter {
  const startMs = query.start_time === undefined ? undefined : rfc3339ToCeilingMillis(query.start_time);
  const endMs = query.end_time === undefined ? undefined : rfc3339ToCeilingMillis(query.end_time);
  // Compared exactly: a window narrower than a millisecond is valid (and holds no event).
  if (
    query.start_time !== undefined &&
    query.end_time !== undefined &&
    rfc3339ToNanos(query.end_time) <= rfc3339ToNanos(query.start_time)
  ) {
    throw new RequestValidationError([
      { loc: ['query', 'end_time'], msg: 'end_time must be after start_time (the window is [start_time, end_time))', type: 'value_error' },
    ]);
  }
  return {
    organizationId,
    ...(startMs !== undefined ? { startMs } : {}),
    ...(endMs !== undefined ? { endMs } : {}),
    ...(query.actor_id !== undefined ? { actorId: query.actor_id } : {}),
    ...(query.resource_type !== undefined ? { resourceType: query.resource_type } : {}),
    ...(query.resource_id !== undefined ? { resourceId: query.resource_id } : {}),
    ...(query.operation_id !== undefined ? { operationId: query.operation_id } : {}),
  };
}

export function listAuditEvents({ knex }: ServiceDeps): OperationHandler<operations['listAuditEvents']> {
  return async (request) => {
    const query = request.query ?? {};
    const limit = query.limit ?? 20;
    const filter = filterOf(request.params.org_id, query);
    // The cursor is bound to the organization and every filter, as the other lists bind theirs.
    const position = listPosition({ cursor: query.cursor, pageSent: false }, request.operationId, [filter], AUDIT_EVENT_ORDER, {
      page: 1,
      limit,
    });
    const found = await listAuditEventRows(knex, filter, {
      limit,
      window: pageWindow(1, limit),
      ...(position.request.after ? { after: position.request.after } : {}),
    });
    const body: Schemas['AuditEventList'] = { data: found.items.map(auditEventBody), next_cursor: nextCursor(position, found.nextKey) };
    return { status: 200, body };
  };
}
