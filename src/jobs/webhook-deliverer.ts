// The webhook deliverer (src/webhooks/README.md): every WEBHOOK_DELIVERY_INTERVAL_SECONDS, one
// pass sends the due deliveries, WEBHOOK_DELIVERY_CONCURRENCY at a time, until none is due. Each
// is claimed under a lease first (one instance sends it at a time), its destination resolved and
// checked, and POSTed signed with the endpoint's secrets (src/webhooks/post.ts); the attempt and
// the delivery's next state (succeeded, retried later, or failed past the schedule) are written
// only while the lease is still this process's. Off the request path: a receiver that hangs
// holds one slot for at most the timeout, never a request.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WebhookConfig } from '../config.js';
import { PeriodicPasses } from './periodic-passes.js';
import {
  claimDelivery,
  finishAttempt,
  releaseDelivery,
  type ClaimedDelivery,
  type DeliveryOutcome,
} from '../storage/webhooks/webhook-deliveries.js';
import { activeWebhookEndpoint } from '../storage/webhooks/webhook-endpoints.js';
import { DestinationRefused, resolveDestination, systemResolver, type Resolver } from '../webhooks/destinations.js';
import { postWebhook, type AttemptOutcome } from '../webhooks/post.js';
import { nextAttemptAt } from '../webhooks/retry-schedule.js';
import { signatureHeader } from '../webhooks/signature.js';

/** How long a delivery stays with the instance sending it beyond the POST's own timeout. */
export const LEASE_MARGIN_MS = 30_000;

/** The most error text an attempt keeps. */
const ERROR_TEXT_MAX = 1000;

export interface WebhookDelivererDeps {
  knex: Knex;
  logger: Logger;
  config: WebhookConfig;
  /** How host names are resolved (tests point a name at an address of their choosing). */
  resolve?: Resolver;
}

export class WebhookDeliverer extends PeriodicPasses {
  /** This process's name on the leases it takes: a restarted process is another owner. */
  readonly owner = `${hostname().slice(0, 30)}:${process.pid}:${randomBytes(6).toString('hex')}`;
  /** Aborts the attempts in flight when the deliverer stops. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: WebhookDelivererDeps) {
    super(deps.config.intervalSeconds);
  }

  override async stop(): Promise<void> {
    this.stopping.abort();
    await super.stop();
  }

  /** One pass; resolves with the attempts it made. */
  protected async pass(): Promise<number> {
    const counter = { attempts: 0 };
    const workers = Array.from({ length: this.deps.config.concurrency }, () => this.worker(counter));
    const results = await Promise.allSettled(workers);
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) {
      this.deps.logger.error({ err: failure.reason, attempts: counter.attempts }, 'webhook delivery pass failed');
      throw failure.reason;
    }
    return counter.attempts;
  }

  /** Claims and sends deliveries one after the other until none is due or the deliverer stops. */
  private async worker(counter: { attempts: number }): Promise<void> {
    const { knex, config } = this.deps;
    while (!this.stopped) {
      const claimed = await claimDelivery(knex, this.owner, Date.now(), config.timeoutMs + LEASE_MARGIN_MS);
      if (!claimed) return;
      if (await this.deliver(claimed)) counter.attempts += 1;
    }
  }

  /** One attempt of a claimed delivery; false when none was made (endpoint gone, or stopping). */
  private async deliver(claimed: ClaimedDelivery): Promise<boolean> {
    const { knex, config, logger } = this.deps;
    const endpoint = await activeWebhookEndpoint(knex, claimed.endpointId);
    if (!endpoint) {
      await finishAttempt(knex, claimed, null, { state: 'failed' }, Date.now());
      return false;
    }
    const at = Date.now();
    let outcome: AttemptOutcome;
    try {
      const destination = await resolveDestination(endpoint.url, config.allowedHosts, this.deps.resolve ?? systemResolver);
      const timestamp = Math.floor(at / 1000);
      const secrets = [endpoint.secret];
      if (endpoint.previous_secret !== null && (endpoint.previous_secret_expires_at ?? 0) > at) secrets.push(endpoint.previous_secret);
      outcome = await postWebhook(destination, {
        headers: {
          'user-agent': 'spanledger-webhooks',
          'webhook-id': claimed.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, claimed.eventId, timestamp, claimed.payload),
        },
        body: claimed.payload,
        timeoutMs: config.timeoutMs,
        signal: this.stopping.signal,
      });
    } catch (error) {
      if (!(error instanceof DestinationRefused)) throw error;
      outcome = { statusCode: null, error: error.message, durationMs: Date.now() - at };
    }
    if (this.stopping.signal.aborted && outcome.error !== null) {
      // Cut short by the stop: not the receiver's failure. Due again at once, here after a restart or elsewhere.
      await releaseDelivery(knex, claimed, Date.now());
      return false;
    }
    const now = Date.now();
    let next: DeliveryOutcome;
    if (outcome.error === null) next = { state: 'succeeded' };
    else {
      const retryAt = nextAttemptAt(config.retryScheduleSeconds, claimed.attempt, now);
      next = retryAt === null ? { state: 'failed' } : { state: 'pending', nextAttemptAt: retryAt };
    }
    const attempt = {
      at,
      status_code: outcome.statusCode,
      error: outcome.error?.slice(0, ERROR_TEXT_MAX) ?? null,
      duration_ms: outcome.durationMs,
    };
    if (!(await finishAttempt(knex, claimed, attempt, next, now))) {
      logger.warn({ delivery_id: claimed.id }, 'webhook delivery was taken over during its attempt; its outcome is not recorded');
    } else if (next.state === 'failed') {
      logger.warn({ delivery_id: claimed.id, endpoint_id: claimed.endpointId, attempts: claimed.attempt }, 'webhook delivery failed');
    }
    return true;
  }
}
