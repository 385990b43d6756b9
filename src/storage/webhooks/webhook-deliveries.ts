// The webhook outbox (src/webhooks/README.md): events, one delivery per event and endpoint, and
// the attempts of each. emitEvent writes an event and its deliveries in the caller's transaction;
// the deliverer (src/jobs/webhook-deliverer.ts) claims a due delivery under a lease with one
// conditional UPDATE, so of several instances exactly one sends it, and writes the attempt and the
// delivery's next state only while it still holds that lease (a fenced UPDATE).
import type { Knex } from 'knex';
import { newId } from '../accounts/ids.js';
import { readKeysetList, type SortColumn } from '../keyset.js';
import type { ListPage, WindowedListRequest } from '../paging.js';
import { retryOnLockConflict } from '../transactions.js';
import { envelopeBody, TEST_EVENT_TYPE, type WebhookEnvelope, type WebhookEventType } from '../../webhooks/events.js';
import { toIsoRequired } from '../time.js';
import { webhookEndpointsOf } from './webhook-endpoints.js';

export const DELIVERY_STATES = ['pending', 'delivering', 'succeeded', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface AttemptRecord {
  attempt: number;
  at: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryRecord {
  id: string;
  endpoint_id: string;
  event: WebhookEnvelope;
  state: DeliveryState;
  attempts: AttemptRecord[];
  next_attempt_at: number | null;
  created_at: number;
  finished_at: number | null;
}

export interface EmittedEvent {
  envelope: WebhookEnvelope;
  /** The deliveries written, one per endpoint that receives the event. */
  deliveryIds: string[];
}

async function insertEvent(
  trx: Knex.Transaction,
  organizationId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
  now: number,
  endpointIds: string[],
): Promise<EmittedEvent> {
  const envelope: WebhookEnvelope = { id: newId('evt'), type, created_at: toIsoRequired(now), organization_id: organizationId, data };
  await trx('webhook_events').insert({
    id: envelope.id,
    organization_id: organizationId,
    type,
    payload: envelopeBody(envelope),
    created_at: now,
  });
  const deliveries = endpointIds.map((endpointId) => ({
    id: newId('whd'),
    event_id: envelope.id,
    endpoint_id: endpointId,
    state: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    created_at: now,
  }));
  if (deliveries.length > 0) await trx('webhook_deliveries').insert(deliveries);
  return { envelope, deliveryIds: deliveries.map((delivery) => delivery.id) };
}

/**
 * Stores an event of the organization and one pending delivery to each of its enabled endpoints
 * subscribed to `type`, in the caller's transaction: the event is sent if and only if the
 * caller's change commits. The deliverer sends it within WEBHOOK_DELIVERY_INTERVAL_SECONDS.
 */
export async function emitEvent(
  trx: Knex.Transaction,
  event: { organizationId: string; type: WebhookEventType; data: Record<string, unknown> },
  now = Date.now(),
): Promise<EmittedEvent> {
  const endpoints = (await webhookEndpointsOf(trx, event.organizationId)).filter(
    (endpoint) => endpoint.enabled && endpoint.event_types.includes(event.type),
  );
  return insertEvent(
    trx,
    event.organizationId,
    event.type,
    event.data,
    now,
    endpoints.map((endpoint) => endpoint.id),
  );
}

/** A `webhook.test` event to one endpoint only, whatever it subscribes to and whether it is enabled. */
export async function emitTestEvent(
  trx: Knex.Transaction,
  organizationId: string,
  endpointId: string,
  now = Date.now(),
): Promise<{ envelope: WebhookEnvelope; deliveryId: string }> {
  const data = { endpoint_id: endpointId, message: 'A test event sent from the management API (sendTestWebhookEvent).' };
  const emitted = await insertEvent(trx, organizationId, TEST_EVENT_TYPE, data, now, [endpointId]);
  return { envelope: emitted.envelope, deliveryId: emitted.deliveryIds[0] };
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  state: DeliveryState;
  next_attempt_at: number | string | null;
  created_at: number | string;
  finished_at: number | string | null;
  payload: string;
}

const orNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

/** The list order as a keyset: newest first, ties by id descending. */
export const DELIVERY_ORDER: SortColumn[] = [
  { column: 'd.created_at', order: 'desc', integer: true },
  { column: 'd.id', order: 'desc', integer: false },
];

async function attemptsOf(knex: Knex, deliveryIds: string[]): Promise<Map<string, AttemptRecord[]>> {
  const byDelivery = new Map<string, AttemptRecord[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const rows = (await knex('webhook_attempts')
    .whereIn('delivery_id', deliveryIds)
    .orderBy([{ column: 'delivery_id' }, { column: 'attempt' }])
    .select('delivery_id', 'attempt', 'at', 'status_code', 'error', 'duration_ms')) as Array<Record<string, string | number | null>>;
  for (const row of rows) {
    byDelivery.get(String(row.delivery_id))?.push({
      attempt: Number(row.attempt),
      at: Number(row.at),
      status_code: orNull(row.status_code),
      error: row.error === null ? null : String(row.error),
      duration_ms: Number(row.duration_ms),
    });
  }
  return byDelivery;
}

/** The endpoint's deliveries, newest first, each with its event and attempts. */
export async function listDeliveries(knex: Knex, endpointId: string, page: WindowedListRequest): Promise<ListPage<DeliveryRecord>> {
  const found = await readKeysetList<DeliveryRow, Omit<DeliveryRecord, 'attempts'>>(
    knex,
    knex('webhook_deliveries as d').join('webhook_events as ev', 'ev.id', 'd.event_id').where('d.endpoint_id', endpointId),
    {
      columns: ['d.id', 'd.endpoint_id', 'd.state', 'd.next_attempt_at', 'd.created_at', 'd.finished_at', 'ev.payload'],
      order: DELIVERY_ORDER,
      toItem: (row) => ({
        id: row.id,
        endpoint_id: row.endpoint_id,
        event: JSON.parse(row.payload) as WebhookEnvelope,
        state: row.state,
        next_attempt_at: orNull(row.next_attempt_at),
        created_at: Number(row.created_at),
        finished_at: orNull(row.finished_at),
      }),
      keyOf: (item) => [String(item.created_at), item.id],
    },
    page,
  );
  const attempts = await attemptsOf(
    knex,
    found.items.map((item) => item.id),
  );
  return { ...found, items: found.items.map((item) => ({ ...item, attempts: attempts.get(item.id) ?? [] })) };
}

/** A delivery an instance holds the lease of, with what it sends. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  payload: string;
  /** The number the attempt about to be made gets (1 for the first). */
  attempt: number;
  owner: string;
}

/** Due: pending and its time has come, or being delivered by an instance whose lease ran out (it crashed). */
function due(query: Knex.QueryBuilder, now: number): Knex.QueryBuilder {
  return query.where((either) =>
    either
      .where((pending) => pending.where('state', 'pending').where('next_attempt_at', '<=', now))
      .orWhere((stale) => stale.where('state', 'delivering').where('lease_expires_at', '<=', now)),
  );
}

/**
 * Takes one due delivery for `owner` until `now + leaseMs`: candidates oldest due first, each taken
 * by one conditional UPDATE (of several instances taking it at once exactly one does). Undefined
 * when none is due or every candidate was taken by another first.
 */
export async function claimDelivery(knex: Knex, owner: string, now: number, leaseMs: number): Promise<ClaimedDelivery | undefined> {
  const candidates = (await due(knex('webhook_deliveries'), now).orderBy('next_attempt_at').limit(10).pluck('id')) as string[];
  for (const id of candidates) {
    const taken = await retryOnLockConflict(() =>
      due(knex('webhook_deliveries').where({ id }), now).update({
        state: 'delivering',
        lease_owner: owner,
        lease_expires_at: now + leaseMs,
      }),
    );
    if (taken !== 1) continue;
    const row = (await knex('webhook_deliveries as d')
      .join('webhook_events as ev', 'ev.id', 'd.event_id')
      .where({ 'd.id': id, 'd.lease_owner': owner })
      .first('d.endpoint_id', 'd.event_id', 'd.attempt_count', 'ev.payload')) as
      { endpoint_id: string; event_id: string; attempt_count: number | string; payload: string } | undefined;
    if (!row) continue;
    return { id, endpointId: row.endpoint_id, eventId: row.event_id, payload: row.payload, attempt: Number(row.attempt_count) + 1, owner };
  }
  return undefined;
}

export type DeliveryOutcome = { state: 'succeeded' } | { state: 'pending'; nextAttemptAt: number } | { state: 'failed' };

/**
 * Records the attempt and the delivery's next state, when `claimed.owner` still holds the lease
 * (the fence): false when another instance took the delivery over meanwhile (nothing written).
 */
export async function finishAttempt(
  knex: Knex,
  claimed: ClaimedDelivery,
  attempt: Omit<AttemptRecord, 'attempt'> | null,
  outcome: DeliveryOutcome,
  now: number,
): Promise<boolean> {
  return retryOnLockConflict(() =>
    knex.transaction(async (trx) => {
      const finished = outcome.state !== 'pending';
      const updated = await trx('webhook_deliveries')
        .where({ id: claimed.id, lease_owner: claimed.owner, state: 'delivering' })
        .update({
          state: outcome.state,
          attempt_count: attempt === null ? claimed.attempt - 1 : claimed.attempt,
          next_attempt_at: outcome.state === 'pending' ? outcome.nextAttemptAt : null,
          finished_at: finished ? now : null,
          lease_owner: null,
          lease_expires_at: null,
        });
      if (updated !== 1) return false;
      if (attempt !== null) await trx('webhook_attempts').insert({ delivery_id: claimed.id, attempt: claimed.attempt, ...attempt });
      return true;
    }),
  );
}

/** Lets a delivery go without an attempt (the deliverer stops): due again at once, here or elsewhere. */
export async function releaseDelivery(knex: Knex, claimed: ClaimedDelivery, now: number): Promise<void> {
  await knex('webhook_deliveries')
    .where({ id: claimed.id, lease_owner: claimed.owner, state: 'delivering' })
    .update({ state: 'pending', next_attempt_at: now, lease_owner: null, lease_expires_at: null });
}

/**
 * Deletes up to `limit` of the oldest events created before `beforeMs`, with their deliveries and
 * attempts, in one transaction (BatchPurger's batch). Deleting by key rows still past retention,
 * two instances taking the same batch delete each row once.
 */
export function purgeWebhookBatch(knex: Knex, beforeMs: number, limit: number): Promise<{ deleted: number; full: boolean }> {
  return retryOnLockConflict(() =>
    knex.transaction(async (trx) => {
      const ids = (await trx('webhook_events')
        .where('created_at', '<', beforeMs)
        .orderBy('created_at')
        .limit(limit)
        .pluck('id')) as string[];
      if (ids.length === 0) return { deleted: 0, full: false };
      const deliveryIds = (await trx('webhook_deliveries').whereIn('event_id', ids).pluck('id')) as string[];
      if (deliveryIds.length > 0) {
        await trx('webhook_attempts').whereIn('delivery_id', deliveryIds).del();
        await trx('webhook_deliveries').whereIn('id', deliveryIds).del();
      }
      const deleted = await trx('webhook_events').whereIn('id', ids).del();
      return { deleted, full: ids.length === limit };
    }),
  );
}
