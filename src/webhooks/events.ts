// The events webhooks carry and their envelope (openapi/management.yaml, `WebhookEvent`):
// `{id, type, created_at, organization_id, data}`, serialized once when the event is stored so
// that every attempt to every endpoint sends the same bytes under the same `webhook-id`.
export const WEBHOOK_EVENT_TYPES = ['budget.threshold_crossed', 'webhook.test'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The type a test event has; an endpoint always receives the test events sent to it. */
export const TEST_EVENT_TYPE: WebhookEventType = 'webhook.test';

export interface WebhookEnvelope {
  id: string;
  type: WebhookEventType;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

export function envelopeBody(envelope: WebhookEnvelope): string {
  return JSON.stringify(envelope);
}
