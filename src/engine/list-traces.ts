// POST /traces (listTraces): a page of trace summaries, one per trace whose root starts in the
// window; the filter tests the root (search_child_spans=false) or any span of the trace (true).
import type { operations } from '../generated/engine.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { TRACE_ORDER } from '../storage/spans/span-store.js';
import { engineRequest, exactJsonReply, requiredWindow } from './engine-request.js';
import { listPosition, nextCursor } from './list-cursor.js';
import { traceSummary } from './wire.js';

export function listTraces({ spans }: ServiceDeps): OperationHandler<operations['listTraces']> {
  return async (request) => {
    const parsed = engineRequest(request, 'traces');
    const window = requiredWindow(parsed);
    // Coerced to a boolean by the document's schema (false when absent).
    const searchChildSpans = request.query.search_child_spans === true;
    const bound = [parsed.applicationId, window.startNs, window.endNs, request.body?.filter ?? null, searchChildSpans];
    const position = listPosition(request, 'listTraces', bound, TRACE_ORDER, parsed);
    const { page, limit } = position.request;
    const { items, total, nextKey } = await spans.tracePage({
      applicationId: parsed.applicationId,
      ...window,
      filter: parsed.filter,
      indexedSlots: parsed.indexedSlots,
      searchChildSpans,
      ...position.request,
    });
    return exactJsonReply({
      data: items.map(traceSummary),
      pagination: { page, limit, total },
      next_cursor: nextCursor(position, nextKey),
    });
  };
}
