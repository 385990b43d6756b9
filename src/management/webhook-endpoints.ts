// Webhook endpoint operations (openapi/management.yaml, "Webhooks"): createWebhookEndpoint,
// listWebhookEndpoints, getWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint,
// rotateWebhookEndpointSecret, sendTestWebhookEvent and listWebhookDeliveries.
import * as endpoints from '../accounts/webhook-endpoints.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import { DELIVERY_ORDER, listDeliveries, type DeliveryRecord } from '../storage/webhooks/webhook-deliveries.js';
import {
  findWebhookEndpoint,
  listWebhookEndpoints as listEndpointRows,
  WEBHOOK_ENDPOINT_ORDER,
  type WebhookEndpointChanges,
  type WebhookEndpointRecord,
} from '../storage/webhooks/webhook-endpoints.js';
import { toIso, toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];
type EventType = Schemas['WebhookEventType'];

function endpointBody(endpoint: WebhookEndpointRecord, now: number): Schemas['WebhookEndpoint'] {
  const graceEnds = endpoint.previous_secret_expires_at;
  return {
    id: endpoint.id,
    organization_id: endpoint.organization_id,
    url: endpoint.url,
    description: endpoint.description,
    event_types: endpoint.event_types as EventType[],
    enabled: endpoint.enabled,
    previous_secret_expires_at: graceEnds !== null && graceEnds > now ? toIsoRequired(graceEnds) : null,
    created_at: toIsoRequired(endpoint.created_at),
    updated_at: toIsoRequired(endpoint.updated_at),
  };
}

function deliveryBody(delivery: DeliveryRecord): Schemas['WebhookDelivery'] {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpoint_id,
    event: delivery.event as Schemas['WebhookEvent'],
    state: delivery.state,
    attempts: delivery.attempts.map((attempt) => ({
      at: toIsoRequired(attempt.at),
      status_code: attempt.status_code,
      error: attempt.error,
      duration_ms: attempt.duration_ms,
    })),
    next_attempt_at: toIso(delivery.next_attempt_at),
    created_at: toIsoRequired(delivery.created_at),
    finished_at: toIso(delivery.finished_at),
  };
}

export function listWebhookEndpoints({ knex }: ServiceDeps): OperationHandler<operations['listWebhookEndpoints']> {
  return async (request) => {
    const page = pageRequest(request, WEBHOOK_ENDPOINT_ORDER, [request.params.org_id]);
    const found = await listEndpointRows(knex, request.params.org_id, page);
    const now = Date.now();
    const body: Schemas['WebhookEndpointList'] = {
      data: found.items.map((endpoint) => endpointBody(endpoint, now)),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function createWebhookEndpoint({ knex, config }: ServiceDeps): OperationHandler<operations['createWebhookEndpoint']> {
  return async (request) => {
    const { url, description, event_types, enabled } = request.body;
    const endpoint = await endpoints.createWebhookEndpoint(
      knex,
      request.params.org_id,
      { url, description: description ?? null, event_types, enabled: enabled ?? true },
      config.webhooks.allowedHosts,
    );
    return { status: 201, body: { ...endpointBody(endpoint, endpoint.created_at), secret: endpoint.secret } };
  };
}

export function getWebhookEndpoint({ knex }: ServiceDeps): OperationHandler<operations['getWebhookEndpoint']> {
  return async (request) => {
    const endpoint = await findWebhookEndpoint(knex, request.params.org_id, request.params.endpoint_id);
    if (!endpoint) throw new NotFoundError(endpoints.WEBHOOK_ENDPOINT_NOT_FOUND);
    return { status: 200, body: endpointBody(endpoint, Date.now()) };
  };
}

export function updateWebhookEndpoint({ knex, config }: ServiceDeps): OperationHandler<operations['updateWebhookEndpoint']> {
  return async (request) => {
    const { org_id: organizationId, endpoint_id: id } = request.params;
    const changes: WebhookEndpointChanges = {};
    const sent = request.body;
    if (sent.url !== undefined) changes.url = sent.url;
    if (sent.description !== undefined) changes.description = sent.description;
    if (sent.event_types !== undefined) changes.event_types = sent.event_types;
    if (sent.enabled !== undefined) changes.enabled = sent.enabled;
    const endpoint = await endpoints.updateWebhookEndpoint(knex, organizationId, id, changes, config.webhooks.allowedHosts);
    return { status: 200, body: endpointBody(endpoint, Date.now()) };
  };
}

export function deleteWebhookEndpoint({ knex }: ServiceDeps): OperationHandler<operations['deleteWebhookEndpoint']> {
  return async (request) => {
    await endpoints.deleteWebhookEndpoint(knex, request.params.org_id, request.params.endpoint_id);
    return { status: 204 };
  };
}

export function rotateWebhookEndpointSecret({ knex }: ServiceDeps): OperationHandler<operations['rotateWebhookEndpointSecret']> {
  return async (request) => {
    const now = Date.now();
    const { endpoint } = await endpoints.rotateWebhookEndpointSecret(knex, request.params.org_id, request.params.endpoint_id, now);
    return { status: 200, body: { ...endpointBody(endpoint, now), secret: endpoint.secret } };
  };
}

export function sendTestWebhookEvent({ knex }: ServiceDeps): OperationHandler<operations['sendTestWebhookEvent']> {
  return async (request) => {
    const event = await endpoints.sendTestEvent(knex, request.params.org_id, request.params.endpoint_id);
    return { status: 202, body: event as Schemas['WebhookEvent'] };
  };
}

export function listWebhookDeliveries({ knex }: ServiceDeps): OperationHandler<operations['listWebhookDeliveries']> {
  return async (request) => {
    const { org_id: organizationId, endpoint_id: id } = request.params;
    if (!(await findWebhookEndpoint(knex, organizationId, id))) throw new NotFoundError(endpoints.WEBHOOK_ENDPOINT_NOT_FOUND);
    const page = pageRequest(request, DELIVERY_ORDER, [organizationId, id]);
    const found = await listDeliveries(knex, id, page);
    const body: Schemas['WebhookDeliveryList'] = {
      data: found.items.map(deliveryBody),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}
