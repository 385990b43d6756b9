// The engine API's handler map, keyed by the generated operations of openapi/engine.yaml: every
// operation the document declares has its handler (checked at compile time below).
import type { operations } from '../generated/engine.js';
import type { HandlerMap } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { createExportLink, downloadExport, downloadExportByLink } from './export-file.js';
import { cancelExport, createExport, getExport, listExports } from './exports.js';
import { exportTraces } from './export-traces.js';
import { getAnalytics } from './get-analytics.js';
import { getTrace } from './get-trace.js';
import { getTraceMetrics } from './get-trace-metrics.js';
import { listLiveSpans } from './list-live-spans.js';
import { listTraces } from './list-traces.js';
import { querySpans } from './query-spans.js';
import { streamLiveSpans } from './stream-live-spans.js';

export type EngineHandlers = HandlerMap<operations>;

export function engineHandlers(deps: ServiceDeps): EngineHandlers {
  return {
    exportTraces: exportTraces(deps),
    querySpans: querySpans(deps),
    listTraces: listTraces(deps),
    getTrace: getTrace(deps),
    getTraceMetrics: getTraceMetrics(deps),
    getAnalytics: getAnalytics(deps),
    listLiveSpans: listLiveSpans(deps),
    streamLiveSpans: streamLiveSpans(deps),
    createExport: createExport(deps),
    listExports: listExports(deps),
    getExport: getExport(deps),
    cancelExport: cancelExport(deps),
    downloadExport: downloadExport(deps),
    createExportLink: createExportLink(deps),
    downloadExportByLink: downloadExportByLink(deps),
  } satisfies Required<EngineHandlers>;
}
