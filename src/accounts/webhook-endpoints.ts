// Webhook endpoint rules (openapi/management.yaml, "Webhooks"): a URL that passes the destination
// checks (src/webhooks/destinations.ts), a secret shown only in the answers of create and rotate,
// and a rotation after which the previous secret also signs for ROTATION_GRACE_MS. Every change
// writes the organization's guard first and records its audit event in the same transaction.
import type { Knex } from 'knex';
import { NotFoundError, RequestValidationError } from '../errors.js';
import { newId } from '../storage/accounts/ids.js';
import { guardActiveOrganization } from '../storage/accounts/organizations.js';
import { emitTestEvent } from '../storage/webhooks/webhook-deliveries.js';
import {
  findWebhookEndpoint,
  insertWebhookEndpoint,
  replaceWebhookSecret,
  softDeleteWebhookEndpoint,
  updateWebhookEndpointRow,
  type WebhookEndpointChanges,
  type WebhookEndpointRecord,
} from '../storage/webhooks/webhook-endpoints.js';
import { toIso } from '../storage/time.js';
import { writeTransaction } from '../storage/transactions.js';
import { urlProblem } from '../webhooks/destinations.js';
import type { WebhookEnvelope } from '../webhooks/events.js';
import { newWebhookSecret } from '../webhooks/signature.js';
import { webhookEndpointFields } from './audit-fields.js';
import { recordChange } from './audit-trail.js';
import { ORGANIZATION_NOT_FOUND } from './organizations.js';

export const WEBHOOK_ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';

/** How long the previous secret keeps signing after a rotation: receivers switch within a day. */
export const ROTATION_GRACE_MS = 24 * 3600 * 1000;

export type WebhookEndpointInput = Pick<WebhookEndpointRecord, 'url' | 'description' | 'event_types' | 'enabled'>;

function checkUrl(url: string | undefined, allowedHosts: readonly string[]): void {
  if (url === undefined) return;
  const problem = urlProblem(url, allowedHosts);
  if (problem) throw new RequestValidationError([{ loc: ['body', 'url'], msg: problem, type: 'value_error' }]);
}

const unique = (types: string[]): string[] => [...new Set(types)];

async function guardOrganization(trx: Knex.Transaction, organizationId: string): Promise<void> {
  if (!(await guardActiveOrganization(trx, organizationId))) throw new NotFoundError(ORGANIZATION_NOT_FOUND);
}

async function existingEndpoint(trx: Knex.Transaction, organizationId: string, id: string): Promise<WebhookEndpointRecord> {
  const endpoint = await findWebhookEndpoint(trx, organizationId, id);
  if (!endpoint) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
  return endpoint;
}

export async function createWebhookEndpoint(
  knex: Knex,
  organizationId: string,
  input: WebhookEndpointInput,
  allowedHosts: readonly string[],
  now = Date.now(),
): Promise<WebhookEndpointRecord> {
  checkUrl(input.url, allowedHosts);
  const endpoint: WebhookEndpointRecord = {
    id: newId('whe'),
    organization_id: organizationId,
    ...input,
    event_types: unique(input.event_types),
    secret: newWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
  };
  await writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    await insertWebhookEndpoint(trx, endpoint);
    await recordChange(trx, {
      organizationId,
      resourceType: 'webhook_endpoint',
      resourceId: endpoint.id,
      before: null,
      after: webhookEndpointFields(endpoint),
      at: now,
    });
  });
  return endpoint;
}

export async function updateWebhookEndpoint(
  knex: Knex,
  organizationId: string,
  id: string,
  changes: WebhookEndpointChanges,
  allowedHosts: readonly string[],
  now = Date.now(),
): Promise<WebhookEndpointRecord> {
  checkUrl(changes.url, allowedHosts);
  const written = changes.event_types === undefined ? changes : { ...changes, event_types: unique(changes.event_types) };
  return writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const before = await existingEndpoint(trx, organizationId, id);
    if ((await updateWebhookEndpointRow(trx, organizationId, id, written, now)) === 0) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
    const after = await existingEndpoint(trx, organizationId, id);
    await recordChange(trx, {
      organizationId,
      resourceType: 'webhook_endpoint',
      resourceId: id,
      before: webhookEndpointFields(before),
      after: webhookEndpointFields(after),
      at: now,
    });
    return after;
  });
}

export async function deleteWebhookEndpoint(knex: Knex, organizationId: string, id: string, now = Date.now()): Promise<void> {
  await writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const before = await existingEndpoint(trx, organizationId, id);
    if ((await softDeleteWebhookEndpoint(trx, organizationId, id, now)) === 0) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
    await recordChange(trx, {
      organizationId,
      resourceType: 'webhook_endpoint',
      resourceId: id,
      before: webhookEndpointFields(before),
      after: null,
      at: now,
    });
  });
}

/** A new secret; the previous one keeps signing (beside it) until ROTATION_GRACE_MS from now. */
export async function rotateWebhookEndpointSecret(
  knex: Knex,
  organizationId: string,
  id: string,
  now = Date.now(),
): Promise<{ endpoint: WebhookEndpointRecord; previousSecretExpiresAt: number }> {
  const secret = newWebhookSecret();
  const previousSecretExpiresAt = now + ROTATION_GRACE_MS;
  return writeTransaction(knex, async (trx) => {
    await guardOrganization(trx, organizationId);
    const before = await existingEndpoint(trx, organizationId, id);
    if ((await replaceWebhookSecret(trx, organizationId, id, secret, previousSecretExpiresAt, now)) === 0)
      throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
    // The secrets never show: only that one was replaced, and until when the previous one signs.
    await recordChange(trx, {
      organizationId,
      resourceType: 'webhook_endpoint',
      resourceId: id,
      before: { previous_secret_expires_at: toIso(before.previous_secret_expires_at) },
      after: { previous_secret_expires_at: toIso(previousSecretExpiresAt), secret_rotated_at: toIso(now) },
      at: now,
    });
    return { endpoint: await existingEndpoint(trx, organizationId, id), previousSecretExpiresAt };
  });
}

/** A `webhook.test` event to the endpoint alone, enabled or not, whatever it subscribes to. */
export async function sendTestEvent(knex: Knex, organizationId: string, id: string, now = Date.now()): Promise<WebhookEnvelope> {
  return writeTransaction(knex, async (trx) => {
    await existingEndpoint(trx, organizationId, id);
    const { envelope } = await emitTestEvent(trx, organizationId, id, now);
    // Audited as the writes are: who made the service send a request to the endpoint's URL.
    await recordChange(trx, {
      organizationId,
      resourceType: 'webhook_endpoint',
      resourceId: id,
      before: {},
      after: { test_event_id: envelope.id },
      at: now,
    });
    return envelope;
  });
}
