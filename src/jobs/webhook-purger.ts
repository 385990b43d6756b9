// The webhook outbox's retention (docs/webhooks.md): every WEBHOOK_PURGE_INTERVAL_SECONDS, one pass
// deletes the events older than WEBHOOK_RETENTION_DAYS with their deliveries and attempts, oldest
// first, WEBHOOK_PURGE_BATCH_SIZE events per batch (purgeWebhookBatch; safe on several instances).
import { purgeWebhookBatch } from '../storage/webhooks/webhook-deliveries.js';
import { BatchPurger, type BatchPurgerDeps } from './batch-purger.js';

export class WebhookPurger extends BatchPurger {
  constructor(deps: BatchPurgerDeps) {
    super(deps, { rows: 'webhook_events', label: 'webhook' }, purgeWebhookBatch);
  }
}
