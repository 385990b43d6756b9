// The parts every engine read shares: the application named by X-Vendor-App-Id (authorization
// has already checked that the caller may read it), the time window, the page and the filter.
// Every problem the document's schema cannot express is gathered into one 422.
import type { components } from '../generated/engine.js';
import type { BodyReply } from '../operations/handler.js';
import { exactJson, JSON_CONTENT_TYPE } from '../json/exact-json.js';
import { RequestValidationError, type ValidationIssue } from '../errors.js';
import type { FilterNode } from '../filter/ast.js';
import { validateFilter } from '../filter/validate.js';
import { timeWindow, type TimeWindow } from '../request/time-window.js';
import type { RequestScope } from '../auth/principal.js';
import { readySlots } from '../storage/accounts/indexed-attributes.js';
import type { IndexedSlot } from '../storage/spans/span-store.js';

/** What the engine's reads (querySpans, listTraces, getTraceMetrics, listLiveSpans) have in common. */
export interface EngineRead {
  headers: { 'x-vendor-app-id': string };
  query: { start_time?: string; end_time?: string; page?: number; limit?: number };
  body: components['schemas']['EngineQueryRequest'] | undefined;
  /** What authorization resolved: the application, with its indexed attribute slots. */
  scope: RequestScope | undefined;
}

export interface EngineRequest {
  applicationId: string;
  window: TimeWindow;
  filter: FilterNode | null;
  page: number;
  limit: number;
  /** The application's ready indexed attribute slots, which its filters may read instead of the JSON. */
  indexedSlots: IndexedSlot[];
}

/**
 * The ready slots of the application the request reads, as authorization read it with the
 * application; none when the scope is of another application (never another tenant's keys).
 */
function indexedSlotsOf(scope: RequestScope | undefined, applicationId: string): IndexedSlot[] {
  if (!scope?.indexedAttributes || scope.applicationId !== applicationId) return [];
  return readySlots(scope.indexedAttributes);
}

/**
 * Reads and checks an engine request; the document has already checked types, ranges and
 * presence. `reads` says whether the operation reads traces (listTraces, getTraceMetrics),
 * where the filter may use the trace-level fields, or spans.
 */
export function engineRequest(request: EngineRead, reads: 'spans' | 'traces' = 'spans'): EngineRequest {
  const { query } = request;
  const issues: ValidationIssue[] = [];
  let window: TimeWindow = { startNs: undefined, endNs: undefined };
  try {
    window = timeWindow(query);
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    issues.push(...error.issues);
  }
  const filter = validateFilter(request.body?.filter, { traceFields: reads === 'traces' });
  if (!filter.ok) issues.push(...filter.issues);
  if (issues.length > 0) throw new RequestValidationError(issues);
  const applicationId = request.headers['x-vendor-app-id'];
  return {
    applicationId,
    indexedSlots: indexedSlotsOf(request.scope, applicationId),
    window,
    filter: filter.ok ? filter.filter : null,
    page: query.page ?? 1,
    limit: query.limit ?? 20,
  };
}

/** The engine's required window (querySpans, listTraces, getTraceMetrics): the document requires both bounds. */
export function requiredWindow({ window }: EngineRequest): { startNs: bigint; endNs: bigint } {
  if (window.startNs === undefined || window.endNs === undefined) throw new Error('start_time and end_time are required by the document');
  return { startNs: window.startNs, endNs: window.endNs };
}

/** A 200 whose JSON keeps 19-digit integers exact. */
export function exactJsonReply(body: unknown): BodyReply {
  return { status: 200, body: exactJson(body), headers: { 'Content-Type': JSON_CONTENT_TYPE } };
}
