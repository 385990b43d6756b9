// Ingestion of one decoded OTLP export request for an application: check the daily span quota,
// map the spans (priced with its organization's price entries), store the good ones durably with
// the request's usage in the same transaction, report the rejected ones. Resolves only once the
// spans are committed.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { NotFoundError, QuotaExceededError, UnavailableError } from '../errors.js';
import { writtenSlots, type IndexedAttributesState } from '../storage/accounts/indexed-attributes.js';
import { activeIndexedAttributes } from '../storage/accounts/resources.js';
import { StaleSlotKeysError, type SpanStore } from '../storage/spans/span-store.js';
import { isDatabaseUnavailable } from '../storage/unavailable.js';
import { hourStart, NO_API_KEY, recordUsage, zeroCounts, type UsageDelta } from '../storage/usage/usage-counts.js';
import { checkDailyQuota } from './daily-quota.js';
import type { IngestActivity } from './ingest-activity.js';
import type { ExportBody } from './export-body.js';
import type { PartialSuccess } from './otlp-request.js';
import { toSpanRows } from './span-mapping.js';
import type { OrganizationPriceSource } from '../pricing/price-entry-cache.js';

/** The application spans are stored for, with its indexed attribute slots as authorization read them. */
export interface IngestTarget {
  applicationId: string;
  /** The application's organization, whose price entries price its LLM calls. */
  organizationId: string;
  indexedAttributes: IndexedAttributesState;
  /** When indexedAttributes was read (epoch milliseconds). */
  readAt: number;
  /** The application's daily span quota as authorization read it (null: none). */
  dailySpanQuota: number | null;
}

/**
 * How long the slots read at authorization may be used to store spans: the span writer neither
 * inserts nor commits a row with keys older than this (StaleSlotKeysError). A slot's backfill
 * starts only once a change is older than the settle time (src/jobs/slot-backfiller.ts,
 * INDEXING_SETTLE_SECONDS), which exceeds this plus the commit itself and the clock differences
 * between instances: every span stored with the keys from before a change is committed before
 * the backfill starts, whatever its seq.
 */
export const SLOT_KEYS_MAX_AGE_MS = 30_000;

/** What the usage of one export request is counted from (docs/usage-and-quotas.md). */
export interface ExportMeter {
  /** The API key that sent the request; undefined for a dashboard user's token. */
  apiKey: string | undefined;
  /** The body as received (compressed, for a gzip body) and as decoded. */
  bytesReceived: number;
  bytesDecompressed: number;
  /** When the request was received, epoch milliseconds (the service's clock): its hour and quota day. */
  now: number;
}

function usageOf(applicationId: string, meter: ExportMeter): UsageDelta {
  return {
    ...zeroCounts(),
    application_id: applicationId,
    api_key: meter.apiKey ?? NO_API_KEY,
    hour_start: hourStart(meter.now),
    bytes_received: meter.bytesReceived,
    bytes_decompressed: meter.bytesDecompressed,
  };
}

/** Lets the request through the application's daily span quota, or counts it refused and refuses it. */
async function admit(knex: Knex, usage: UsageDelta, quota: number | null, now: number): Promise<void> {
  try {
    await checkDailyQuota(knex, usage.application_id, quota, now);
  } catch (error) {
    if (error instanceof QuotaExceededError) await recordUsage(knex, { ...usage, requests_refused: 1 });
    throw error;
  }
}

/** The target of an authorized export: the application authorization resolved, as it read it. */
export function ingestTarget(scope: Partial<IngestTarget> | undefined): IngestTarget {
  const applicationId = scope?.applicationId;
  if (
    !applicationId ||
    !scope.organizationId ||
    !scope.indexedAttributes ||
    scope.readAt === undefined ||
    scope.dailySpanQuota === undefined
  )
    throw new Error('trace export authorized without an application');
  return {
    applicationId,
    organizationId: scope.organizationId,
    indexedAttributes: scope.indexedAttributes,
    readAt: scope.readAt,
    dailySpanQuota: scope.dailySpanQuota,
  };
}

/** The application's slots as of now: as read at authorization while fresh (the usual case), else read again. */
async function freshTarget(knex: Knex, target: IngestTarget): Promise<IngestTarget> {
  if (Date.now() - target.readAt <= SLOT_KEYS_MAX_AGE_MS) return target;
  const readAt = Date.now();
  const indexedAttributes = await activeIndexedAttributes(knex, target.applicationId);
  if (!indexedAttributes) throw new NotFoundError('Application not found');
  return { ...target, indexedAttributes, readAt };
}

/** Maps and stores the spans with the application's current slots; a store slowed past the keys' age maps them again. */
async function store(
  knex: Knex,
  spans: SpanStore,
  priceSource: OrganizationPriceSource,
  target: IngestTarget,
  body: ExportBody,
  usage: UsageDelta | undefined,
): Promise<PartialSuccess | undefined> {
  // One look-up for the whole request (a read of the entries at most every few seconds).
  const prices = await priceSource.pricesOf(target.organizationId);
  for (let current = target; ;) {
    current = await freshTarget(knex, current);
    const slots = writtenSlots(current.indexedAttributes);
    // The decoded spans are let go of once mapped: only the rows stay for the write (export-body.ts).
    const { rows, partialSuccess } = toSpanRows(body.take(), current.applicationId, Date.now(), slots, prices);
    try {
      const counted = usage && { ...usage, requests: 1, spans_rejected: partialSuccess?.rejectedSpans ?? 0 };
      await spans.store(rows, { slotKeysValidUntil: current.readAt + SLOT_KEYS_MAX_AGE_MS, traceSlots: slots, usage: counted });
      return partialSuccess;
    } catch (error) {
      if (!(error instanceof StaleSlotKeysError)) throw error;
    }
  }
}

export interface IngestOptions {
  /** Counts the request's usage and applies the daily span quota. */
  meter?: ExportMeter;
  /** The process's ingestion, which the store is counted in. */
  activity?: Pick<IngestActivity, 'during'>;
}

/**
 * Stores the request's valid spans (a span already stored is kept as it is) and returns the
 * partial success to report, if any span was rejected. Any failure to store is a 503 with
 * Retry-After: exporters retry it, and the retry stores each span once. Never a 500, which
 * exporters would not retry and so would drop the spans. With a meter, the daily span quota
 * applies (QuotaExceededError: 429) and the request's usage is counted with its spans.
 */
export async function ingestTraces(
  knex: Knex,
  spans: SpanStore,
  prices: OrganizationPriceSource,
  target: IngestTarget,
  body: ExportBody,
  log: Logger,
  { meter, activity }: IngestOptions = {},
): Promise<PartialSuccess | undefined> {
  let partialSuccess: PartialSuccess | undefined;
  const usage = meter && usageOf(target.applicationId, meter);
  try {
    if (usage && meter) await admit(knex, usage, target.dailySpanQuota, meter.now);
    const storing = () => store(knex, spans, prices, target, body, usage);
    partialSuccess = await (activity ? activity.during(storing) : storing());
  } catch (error) {
    // The application was deleted while the request was read: no 503 that an exporter would retry.
    // A used-up quota is its own answer (429), which exporters retry when it says.
    if (error instanceof NotFoundError || error instanceof QuotaExceededError) throw error;
    // Knex puts the whole statement, span data included, into its messages: log the start only.
    const { name, code, message } = error as { name?: string; code?: string; message?: string };
    const cause = { name, code, message: String(message).slice(0, 500) };
    if (isDatabaseUnavailable(error)) log.warn({ cause }, 'spans not stored: database unavailable');
    else log.error({ cause }, 'spans not stored');
    throw new UnavailableError('database unavailable, retry later');
  }
  return partialSuccess;
}
