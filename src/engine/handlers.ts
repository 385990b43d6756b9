// The engine API's handler map, keyed by operationId of openapi/engine.yaml.
// Operations whose feature has not landed have no entry and answer 501.
import type { HandlerMap } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { exportTraces } from './export-traces.js';
import { getTraceMetrics } from './get-trace-metrics.js';
import { listLiveSpans } from './list-live-spans.js';
import { listTraces } from './list-traces.js';
import { querySpans } from './query-spans.js';
import { streamLiveSpans } from './stream-live-spans.js';

export function engineHandlers(deps: ServiceDeps): HandlerMap {
  return {
    exportTraces: exportTraces(deps),
    querySpans: querySpans(deps),
    listTraces: listTraces(deps),
    getTraceMetrics: getTraceMetrics(deps),
    listLiveSpans: listLiveSpans(deps),
    streamLiveSpans: streamLiveSpans(deps),
  };
}
