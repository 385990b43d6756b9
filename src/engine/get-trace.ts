// GET /traces/{trace_id} (getTrace): one trace of the application, its summary and its spans in
// start order, a page at a time by cursor. Found by id whatever its window or root.
import type { operations } from '../generated/engine.js';
import { NotFoundError } from '../errors.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { TRACE_SPAN_ORDER } from '../storage/spans/span-store.js';
import { exactJsonReply } from './engine-request.js';
import { listPosition, nextCursor } from './list-cursor.js';
import { spanRecord, traceOverview } from './wire.js';

/** The document's default page size of a trace's spans (TraceSpanLimit). */
const DEFAULT_LIMIT = 1000;

export function getTrace({ spans }: ServiceDeps): OperationHandler<operations['getTrace']> {
  return async (request) => {
    const applicationId = request.headers['x-vendor-app-id'];
    // Trace ids are stored in lower case (src/ingest/span-mapping.ts); the document accepts either.
    const traceId = request.params.trace_id.toLowerCase();
    const limit = request.query.limit ?? DEFAULT_LIMIT;
    const position = listPosition(request, 'getTrace', [applicationId, traceId, limit], TRACE_SPAN_ORDER, { page: 1, limit });
    const found = await spans.trace({ applicationId, traceId, limit, after: position.request.after });
    if (!found) throw new NotFoundError('Trace not found');
    return exactJsonReply({
      trace_id: traceId,
      summary: traceOverview(found.overview),
      data: found.spans.map(spanRecord),
      next_cursor: nextCursor(position, found.nextKey),
    });
  };
}
