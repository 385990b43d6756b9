// GET /traces/live (listLiveSpans): the application's most recently received spans, newest
// first by receive sequence; start_time/end_time are optional and filter by span start.
import type { operations } from '../generated/engine.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { LIVE_ORDER } from '../storage/spans/span-store.js';
import { engineRequest, exactJsonReply } from './engine-request.js';
import { listPosition, nextCursor } from './list-cursor.js';
import { liveSpan } from './wire.js';

export function listLiveSpans({ spans }: ServiceDeps): OperationHandler<operations['listLiveSpans']> {
  return async (request) => {
    const parsed = engineRequest(request);
    const bound = [parsed.applicationId, parsed.window.startNs ?? null, parsed.window.endNs ?? null];
    const position = listPosition(request, 'listLiveSpans', bound, LIVE_ORDER, parsed);
    const { page, limit } = position.request;
    const { items, total, nextKey } = await spans.recentSpans({
      applicationId: parsed.applicationId,
      ...parsed.window,
      ...position.request,
    });
    return exactJsonReply({ data: items.map(liveSpan), pagination: { page, limit, total }, next_cursor: nextCursor(position, nextKey) });
  };
}
