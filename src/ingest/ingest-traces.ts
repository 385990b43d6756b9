// Ingestion of one decoded OTLP export request for an application: map the spans, store the good
// ones durably, report the rejected ones. Resolves only once the spans are committed.
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { UnavailableError } from '../errors.js';
import { storeSpans } from '../storage/spans/span-writer.js';
import { isDatabaseUnavailable } from '../storage/unavailable.js';
import type { DecodedExportRequest, PartialSuccess } from './otlp-request.js';
import { toSpanRows } from './span-mapping.js';

/**
 * Stores the request's valid spans (a span already stored is kept as it is) and returns the
 * partial success to report, if any span was rejected. Any failure to store is a 503 with
 * Retry-After: exporters retry it, and the retry stores each span once. Never a 500, which
 * exporters would not retry and so would drop the spans.
 */
export async function ingestTraces(knex: Knex, applicationId: string, request: DecodedExportRequest, log: Logger): Promise<PartialSuccess | undefined> {
  const { rows, partialSuccess } = toSpanRows(request, applicationId, Date.now());
  try {
    await storeSpans(knex, rows);
  } catch (error) {
    // Knex puts the whole statement, span data included, into its messages: log the start only.
    const { name, code, message } = error as { name?: string; code?: string; message?: string };
    const cause = { name, code, message: String(message).slice(0, 500) };
    if (isDatabaseUnavailable(error)) log.warn({ cause }, 'spans not stored: database unavailable');
    else log.error({ cause }, 'spans not stored');
    throw new UnavailableError('database unavailable, retry later');
  }
  return partialSuccess;
}
