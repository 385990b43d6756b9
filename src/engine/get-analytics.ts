// POST /engine/analytics (getAnalytics): measures of the window's matching spans or traces per
// group and time bucket, the top groups listed and the rest folded into `other`.
import type { operations } from '../generated/engine.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { analyticsPlan, analyticsResponse } from '../traces/analytics.js';
import { analyticsRequest } from './analytics-request.js';
import { exactJsonReply } from './engine-request.js';

export function getAnalytics({ spans }: ServiceDeps): OperationHandler<operations['getAnalytics']> {
  return async (request) => {
    const { query, groupBy, granularity, fns } = analyticsRequest(request);
    const rows = await spans.analytics(query, analyticsPlan(query));
    return exactJsonReply(
      analyticsResponse(rows, {
        grain: query.grain,
        granularity,
        widthNs: query.widthNs,
        startNs: query.startNs,
        groupBy,
        fns,
      }),
    );
  };
}
