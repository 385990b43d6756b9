// POST /engine/metrics (getTraceMetrics): statistics over exactly the traces that
// POST /traces?search_child_spans=true lists for the same window and filter.
import type { operations } from '../generated/engine.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { engineRequest, exactJsonReply, requiredWindow } from './engine-request.js';
import { metricsPlan, traceMetrics } from '../traces/trace-metrics.js';

export function getTraceMetrics({ spans }: ServiceDeps): OperationHandler<operations['getTraceMetrics']> {
  return async (request) => {
    const parsed = engineRequest(request, 'traces');
    const read = {
      applicationId: parsed.applicationId,
      ...requiredWindow(parsed),
      filter: parsed.filter,
      indexedSlots: parsed.indexedSlots,
    };
    const ranks = await spans.metrics(read, metricsPlan(read));
    return exactJsonReply(traceMetrics(ranks));
  };
}
