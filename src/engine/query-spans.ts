// POST /engine/query (querySpans): a page of the window's spans matching the filter, newest first.
import type { operations } from '../generated/engine.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { SPAN_ORDER } from '../storage/spans/span-store.js';
import { engineRequest, exactJsonReply, requiredWindow } from './engine-request.js';
import { listPosition, nextCursor } from './list-cursor.js';
import { spanRecord } from './wire.js';

export function querySpans({ spans }: ServiceDeps): OperationHandler<operations['querySpans']> {
  return async (request) => {
    const parsed = engineRequest(request);
    const window = requiredWindow(parsed);
    const bound = [parsed.applicationId, window.startNs, window.endNs, request.body?.filter ?? null];
    const position = listPosition(request, 'querySpans', bound, SPAN_ORDER, parsed);
    const { page, limit } = position.request;
    const { items, total, nextKey } = await spans.spanPage({
      applicationId: parsed.applicationId,
      ...window,
      filter: parsed.filter,
      indexedSlots: parsed.indexedSlots,
      ...position.request,
    });
    return exactJsonReply({ data: items.map(spanRecord), total, page, limit, next_cursor: nextCursor(position, nextKey) });
  };
}
