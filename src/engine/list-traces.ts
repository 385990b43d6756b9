// POST /traces (listTraces): a page of trace summaries, one per trace whose root starts in the
// window; the filter tests the root (search_child_spans=false) or any span of the trace (true);
// `sort` and `order` choose the list's order, never its traces.
import type { operations } from '../generated/engine.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { traceOrder, type TraceSort } from '../storage/spans/span-store.js';
import { engineRequest, exactJsonReply, requiredWindow } from './engine-request.js';
import { listPosition, nextCursor } from './list-cursor.js';
import { traceSummary } from './wire.js';

export function listTraces({ spans }: ServiceDeps): OperationHandler<operations['listTraces']> {
  return async (request) => {
    const parsed = engineRequest(request, 'traces');
    const window = requiredWindow(parsed);
    // Coerced to a boolean by the document's schema (false when absent).
    const searchChildSpans = request.query.search_child_spans === true;
    // Enums of the document, their defaults filled in by validation; start_time desc is the list's first order.
    const sort: TraceSort = { by: request.query.sort ?? 'start_time', order: request.query.order ?? 'desc' };
    const bound: unknown[] = [parsed.applicationId, window.startNs, window.endNs, request.body?.filter ?? null, searchChildSpans];
    // The default order binds as before sorts existed, so that cursors issued then still read on.
    if (sort.by !== 'start_time' || sort.order !== 'desc') bound.push(sort);
    const position = listPosition(request, 'listTraces', bound, traceOrder(sort), parsed);
    const { page, limit } = position.request;
    const { items, total, nextKey } = await spans.tracePage({
      applicationId: parsed.applicationId,
      ...window,
      filter: parsed.filter,
      indexedSlots: parsed.indexedSlots,
      searchChildSpans,
      sort,
      ...position.request,
    });
    return exactJsonReply({
      data: items.map(traceSummary),
      pagination: { page, limit, total },
      next_cursor: nextCursor(position, nextKey),
    });
  };
}
