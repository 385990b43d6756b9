// The audit trail of management changes (docs/audit-log.md). A change is declared by the domain
// function that makes it, inside its own write transaction (`recordChange(trx, ...)`), so the
// event and the change commit together or not at all. Who made it and through which request
// (actor, operation, request id, caller address) is set once per request by the management API
// (src/management/audited.ts) as an async-local context: domain signatures stay as they are. A
// change made outside any request (a script, a test) is recorded with the actor `system`.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { insertAuditEvent, type AuditActorType, type AuditFields, type AuditResourceType } from '../storage/audit/audit-events.js';

export interface AuditActor {
  type: AuditActorType;
  id: string | null;
}

/** Who is changing things, and through which request. */
export interface AuditContext {
  actor: AuditActor;
  operationId: string;
  requestId: string | null;
  callerAddress: string | null;
}

/** What a domain function changed: the resource, its organization, and its fields before and after. */
export interface AuditedChange {
  /** Null only for a change that belongs to no organization (a user's own profile). */
  organizationId: string | null;
  resourceType: AuditResourceType;
  resourceId: string;
  /** The fields before the change; null for a creation. */
  before: AuditFields | null;
  /** The fields after the change; null for a deletion. */
  after: AuditFields | null;
  /** When the change happened (epoch milliseconds): the time the domain function stamped on it. */
  at: number;
}

/** The request's context plus what the management API reads back once the handler returned. */
interface AuditScope extends AuditContext {
  recorded: number;
}

const SYSTEM: AuditContext = { actor: { type: 'system', id: null }, operationId: 'system', requestId: null, callerAddress: null };

/** Never part of an event, whatever a caller passes: the key's secret and anything derived from it. */
const SECRET_FIELDS = new Set(['secret', 'api_secret', 'secret_hash', 'client_secret', 'password', 'access_token']);

const scopes = new AsyncLocalStorage<AuditScope>();

/**
 * Runs `work` with `context` as the author of every change it records; resolves with its result
 * and how many events it recorded (a transaction retried after a lock conflict counts again).
 */
export async function withAuditContext<T>(context: AuditContext, work: () => Promise<T>): Promise<{ result: T; recorded: number }> {
  const scope: AuditScope = { ...context, recorded: 0 };
  const result = await scopes.run(scope, work);
  return { result, recorded: scope.recorded };
}

function withoutSecrets(fields: AuditFields | null): AuditFields | null {
  if (fields === null) return null;
  return Object.fromEntries(Object.entries(fields).filter(([name]) => !SECRET_FIELDS.has(name)));
}

/** For an update, only the fields whose value changed, on both sides; a creation or deletion keeps every field. */
function changedFields(before: AuditFields | null, after: AuditFields | null): { before: AuditFields | null; after: AuditFields | null } {
  if (before === null || after === null) return { before, after };
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]),
  );
  return {
    before: Object.fromEntries(names.map((name) => [name, before[name] ?? null])),
    after: Object.fromEntries(names.map((name) => [name, after[name] ?? null])),
  };
}

/** Records `change` with `trx`, the transaction that made it: if this insert fails, the change rolls back with it. */
export async function recordChange(trx: Knex.Transaction, change: AuditedChange): Promise<void> {
  const scope = scopes.getStore();
  const context = scope ?? SYSTEM;
  const { before, after } = changedFields(withoutSecrets(change.before), withoutSecrets(change.after));
  await insertAuditEvent(trx, {
    occurredAt: change.at,
    organizationId: change.organizationId,
    actorType: context.actor.type,
    actorId: context.actor.id,
    operationId: context.operationId,
    resourceType: change.resourceType,
    resourceId: change.resourceId,
    requestId: context.requestId,
    callerAddress: context.callerAddress,
    outcome: 'success',
    before,
    after,
  });
  if (scope) scope.recorded += 1;
}

/**
 * A token exchange refused for a wrong secret of an existing key: no change, one `failure` event
 * in the key's organization. One insert on its own: a new row under a fresh random key, with no
 * other unique key and no foreign key, which no other transaction can lock or conflict with.
 */
export async function recordRefusedTokenExchange(
  knex: Knex,
  key: { apiKey: string; organizationId: string },
  now = Date.now(),
): Promise<void> {
  const context = scopes.getStore() ?? SYSTEM;
  await insertAuditEvent(knex, {
    occurredAt: now,
    organizationId: key.organizationId,
    // The caller claimed to be this key: the actor is the key, the outcome says the claim failed.
    actorType: 'api_key',
    actorId: key.apiKey,
    operationId: context.operationId,
    resourceType: 'api_key',
    resourceId: key.apiKey,
    requestId: context.requestId,
    callerAddress: context.callerAddress,
    outcome: 'failure',
    before: null,
    after: null,
  });
}
