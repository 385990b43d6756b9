// The audit_events table (docs/audit-log.md): the one insert (inside the transaction of the change
// it records), the organization's list newest first by keyset, and the purge of events past
// retention in bounded batches. Nothing here updates an event.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { readListRows, type SortColumn } from '../keyset.js';
import { withNextKey, type WindowedListRequest } from '../paging.js';
import { retryOnLockConflict } from '../transactions.js';

export type AuditActorType = 'user' | 'api_key' | 'system';
export type AuditOutcome = 'success' | 'failure';
export type AuditResourceType =
  'organization' | 'member' | 'application' | 'api_key' | 'price_entry' | 'user' | 'repricing_job' | 'webhook_endpoint' | 'budget';

/** Fields of a resource as an event shows them; values are JSON. */
export type AuditFields = Record<string, unknown>;

export interface AuditEventRecord {
  id: string;
  occurredAt: number;
  organizationId: string | null;
  actorType: AuditActorType;
  actorId: string | null;
  operationId: string;
  resourceType: AuditResourceType;
  resourceId: string;
  requestId: string | null;
  callerAddress: string | null;
  outcome: AuditOutcome;
  before: AuditFields | null;
  after: AuditFields | null;
}

interface AuditEventRow {
  id: string;
  occurred_at: number | string;
  organization_id: string | null;
  actor_type: AuditActorType;
  actor_id: string | null;
  operation_id: string;
  resource_type: AuditResourceType;
  resource_id: string;
  request_id: string | null;
  caller_address: string | null;
  outcome: AuditOutcome;
  changes: string;
}

const COLUMNS = [
  'e.id',
  'e.occurred_at',
  'e.organization_id',
  'e.actor_type',
  'e.actor_id',
  'e.operation_id',
  'e.resource_type',
  'e.resource_id',
  'e.request_id',
  'e.caller_address',
  'e.outcome',
  'e.changes',
];

const BASE36_TIME_DIGITS = 9; // epoch milliseconds in base 36 until the year 5188
let lastMs = -1;
let sequence = 0;

/**
 * `ae_` + the time (base 36) + a per-process sequence within the millisecond + random: ids sort
 * like the events of one process were recorded, and nodes need no shared counter (no
 * AUTO_INCREMENT); across nodes, events of one millisecond are ordered by their random part.
 */
export function newAuditEventId(nowMs: number): string {
  sequence = nowMs === lastMs ? sequence + 1 : 0;
  lastMs = nowMs;
  const time = Math.max(0, Math.trunc(nowMs)).toString(36).padStart(BASE36_TIME_DIGITS, '0');
  const seq = Math.min(sequence, 36 ** 4 - 1)
    .toString(36)
    .padStart(4, '0');
  return `ae_${time}${seq}${randomBytes(9).toString('hex')}`;
}

function fromRow(row: AuditEventRow): AuditEventRecord {
  const changes = JSON.parse(row.changes) as { before: AuditFields | null; after: AuditFields | null };
  return {
    id: row.id,
    occurredAt: Number(row.occurred_at),
    organizationId: row.organization_id,
    actorType: row.actor_type,
    actorId: row.actor_id,
    operationId: row.operation_id,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    requestId: row.request_id,
    callerAddress: row.caller_address,
    outcome: row.outcome,
    before: changes.before,
    after: changes.after,
  };
}

/** Writes one event with `db` (the change's own transaction, so that both commit or neither does). */
export async function insertAuditEvent(db: Knex | Knex.Transaction, event: Omit<AuditEventRecord, 'id'>): Promise<AuditEventRecord> {
  const stored: AuditEventRecord = { id: newAuditEventId(event.occurredAt), ...event };
  await db('audit_events').insert({
    id: stored.id,
    occurred_at: stored.occurredAt,
    organization_id: stored.organizationId,
    actor_type: stored.actorType,
    actor_id: stored.actorId,
    operation_id: stored.operationId,
    resource_type: stored.resourceType,
    resource_id: stored.resourceId,
    request_id: stored.requestId,
    caller_address: stored.callerAddress,
    outcome: stored.outcome,
    changes: JSON.stringify({ before: stored.before, after: stored.after }),
  });
  return stored;
}

/** What the organization's list may be narrowed to; every field is optional. */
export interface AuditEventFilter {
  organizationId: string;
  /** Epoch milliseconds, inclusive. */
  startMs?: number;
  /** Epoch milliseconds, exclusive. */
  endMs?: number;
  actorId?: string;
  resourceType?: AuditResourceType;
  resourceId?: string;
  operationId?: string;
}

/** The list order as a keyset: newest first, ties by id (also newest first; see newAuditEventId). */
export const AUDIT_EVENT_ORDER: SortColumn[] = [
  { column: 'e.occurred_at', order: 'desc', integer: true },
  { column: 'e.id', order: 'desc', integer: false },
];

/** One page of the organization's events, and the key a cursor resumes after. No total: the log only grows. */
export async function listAuditEvents(
  knex: Knex,
  filter: AuditEventFilter,
  page: WindowedListRequest,
): Promise<{ items: AuditEventRecord[]; nextKey: string[] | null }> {
  const query = knex('audit_events as e').where('e.organization_id', filter.organizationId);
  if (filter.startMs !== undefined) query.where('e.occurred_at', '>=', filter.startMs);
  if (filter.endMs !== undefined) query.where('e.occurred_at', '<', filter.endMs);
  if (filter.actorId !== undefined) query.where('e.actor_id', filter.actorId);
  if (filter.resourceType !== undefined) query.where('e.resource_type', filter.resourceType);
  if (filter.resourceId !== undefined) query.where('e.resource_id', filter.resourceId);
  if (filter.operationId !== undefined) query.where('e.operation_id', filter.operationId);
  const ordered = query.select(COLUMNS).orderBy(AUDIT_EVENT_ORDER.map(({ column, order }) => ({ column, order })));
  const rows = await readListRows<AuditEventRow>(knex, ordered, AUDIT_EVENT_ORDER, page);
  return withNextKey(rows.map(fromRow), page.limit, (event) => [String(event.occurredAt), event.id]);
}

/**
 * Deletes up to `limit` of the oldest events that occurred before `beforeMs`; resolves with how
 * many it deleted and whether a full batch was found (more may be left). Safe beside other
 * instances doing the same: an id another purger took first is simply not deleted twice, and a
 * batch that lost a lock conflict to one (on Galera a certification conflict) is read again.
 */
export function purgeAuditBatch(knex: Knex, beforeMs: number, limit: number): Promise<{ deleted: number; full: boolean }> {
  return retryOnLockConflict(() => purgeOldestEvents(knex, beforeMs, limit));
}

async function purgeOldestEvents(knex: Knex, beforeMs: number, limit: number): Promise<{ deleted: number; full: boolean }> {
  const ids: string[] = await knex('audit_events').where('occurred_at', '<', beforeMs).orderBy('occurred_at').limit(limit).pluck('id');
  if (ids.length === 0) return { deleted: 0, full: false };
  const deleted = await knex('audit_events').whereIn('id', ids).where('occurred_at', '<', beforeMs).del();
  return { deleted, full: ids.length === limit };
}
