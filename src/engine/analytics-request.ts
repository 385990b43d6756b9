// The checks of a POST /engine/analytics body that its schema cannot express (openapi/engine.yaml,
// AnalyticsRequest), each a 422 at its place, gathered with the window's and the filter's into
// one answer; and the defaults the document states.
import type { components } from '../generated/engine.js';
import { RequestValidationError, type ValidationIssue } from '../errors.js';
import { resolveField, type ResolvedField } from '../filter/fields.js';
import { MEASURE_COLUMNS, TRACE_GROUP_FIELDS, type AnalyticsQuery, type StoredMeasure } from '../storage/spans/span-store.js';
import { resolveGranularity } from '../traces/analytics.js';
import { engineRequest, requiredWindow, type EngineRead } from './engine-request.js';

type AnalyticsRequestBody = components['schemas']['AnalyticsRequest'];
type Granularity = components['schemas']['AnalyticsResponse']['granularity'];

export interface AnalyticsRead {
  headers: EngineRead['headers'];
  query: { start_time: string; end_time: string };
  body: AnalyticsRequestBody;
  scope: EngineRead['scope'];
}

export interface ParsedAnalytics {
  query: AnalyticsQuery;
  /** The group_by fields as the caller named them (the answer's keys). */
  groupBy: string[];
  granularity: Granularity;
  fns: string[];
}

function groupIssue(grain: AnalyticsQuery['grain'], field: string, index: number, seen: Set<string>): ValidationIssue | undefined {
  const loc = ['body', 'group_by', index];
  if (seen.has(field)) return { loc, msg: `${field} is already a group_by field`, type: 'value_error' };
  if (grain === 'traces') {
    if ((TRACE_GROUP_FIELDS as readonly string[]).includes(field)) return undefined;
    return { loc, msg: `at grain traces, group_by takes the root fields ${TRACE_GROUP_FIELDS.join(', ')}`, type: 'value_error' };
  }
  const resolution = resolveField(field);
  if (!resolution.ok) return { loc, msg: `unknown field: ${field}`, type: 'value_error' };
  if (resolution.field.kind === 'number') return { loc, msg: `${field} holds numbers; group_by takes text fields`, type: 'value_error' };
  return undefined;
}

function measureIssue(
  grain: AnalyticsQuery['grain'],
  measure: AnalyticsRequestBody['measures'][number],
  index: number,
): ValidationIssue | undefined {
  const loc = ['body', 'measures', index, 'field'];
  if (measure.fn === 'count') return measure.field === undefined ? undefined : { loc, msg: 'count takes no field', type: 'value_error' };
  if (measure.field === undefined) return { loc, msg: `${measure.fn} needs a field`, type: 'missing' };
  const fields = Object.keys(MEASURE_COLUMNS[grain]);
  if (!fields.includes(measure.field))
    return { loc, msg: `at grain ${grain}, the measure fields are ${fields.join(', ')}`, type: 'value_error' };
  return undefined;
}

/** What a group_by field validation accepted reads, resolved once here (storage never resolves names). */
function resolvedGroupField(field: string): ResolvedField {
  const resolution = resolveField(field);
  if (!resolution.ok) throw new Error(`group_by field ${field} passed validation unresolved`);
  return resolution.field;
}

const isPercentile = (fn: string): boolean => /^p\d\d$/.test(fn);

/**
 * The measure groups are ranked by must exist and, with a group_by, not be a percentile. When the
 * caller sent no order_by, the default (the first measure) is theirs only through `measures`, so
 * a percentile there is refused at the measure, with the order_by that would rank.
 */
function orderIssue(body: AnalyticsRequestBody, grouped: boolean, index: number): ValidationIssue | undefined {
  const ordered = body.measures[index];
  if (ordered === undefined) return { loc: ['body', 'order_by', 'measure'], msg: `no measure at index ${index}`, type: 'value_error' };
  // Without group_by there is one group: nothing to rank.
  if (!grouped || !isPercentile(ordered.fn)) return undefined;
  if (body.order_by !== undefined)
    return {
      loc: ['body', 'order_by', 'measure'],
      msg: `measure ${index} is ${ordered.fn}; groups are ranked by count, sum, avg, min or max, not by a percentile`,
      type: 'value_error',
    };
  const ranking = body.measures.findIndex((measure) => !isPercentile(measure.fn));
  const advice =
    ranking >= 0
      ? `send order_by: {"measure": ${ranking}} (or another count, sum, avg, min or max measure)`
      : 'add a count, sum, avg, min or max measure and name it in order_by';
  return {
    loc: ['body', 'measures', index],
    msg: `without order_by, groups are ranked by the first measure, and ${ordered.fn} is a percentile, which cannot rank groups; ${advice}`,
    type: 'value_error',
  };
}

/** Reads and checks an analytics request; the document has already checked types, ranges and presence. */
export function analyticsRequest(request: AnalyticsRead): ParsedAnalytics {
  const { body } = request;
  const grain = body.grain ?? 'spans';
  const issues: ValidationIssue[] = [];
  let parsed: ReturnType<typeof engineRequest> | undefined;
  try {
    // Trace-level fields (trace.duration_ms, ...) read the trace summary: usable at trace grain only.
    parsed = engineRequest({ headers: request.headers, query: request.query, body: { filter: body.filter }, scope: request.scope }, grain);
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    issues.push(...error.issues);
  }
  const groupBy = body.group_by ?? [];
  const seen = new Set<string>();
  groupBy.forEach((field, index) => {
    const issue = groupIssue(grain, field, index, seen);
    if (issue) issues.push(issue);
    seen.add(field);
  });
  body.measures.forEach((measure, index) => {
    const issue = measureIssue(grain, measure, index);
    if (issue) issues.push(issue);
  });
  const orderBy = { measure: body.order_by?.measure ?? 0, direction: body.order_by?.direction ?? 'desc' };
  const issue = orderIssue(body, groupBy.length > 0, orderBy.measure);
  if (issue) issues.push(issue);
  let resolved: ReturnType<typeof resolveGranularity>;
  if (parsed) {
    const window = requiredWindow(parsed);
    resolved = resolveGranularity(body.granularity ?? 'auto', window.startNs, window.endNs);
    if (!resolved)
      issues.push({
        loc: ['body', 'granularity'],
        msg: 'the window needs more than 300 buckets of this granularity',
        type: 'too_many_buckets',
      });
  }
  if (issues.length > 0 || !parsed || !resolved) throw new RequestValidationError(issues);
  return {
    query: {
      applicationId: parsed.applicationId,
      ...requiredWindow(parsed),
      filter: parsed.filter,
      indexedSlots: parsed.indexedSlots,
      grain,
      groupBy: groupBy.map(resolvedGroupField),
      measures: body.measures.map((measure): StoredMeasure =>
        measure.fn === 'count' ? { fn: 'count' } : { fn: measure.fn, field: measure.field as string },
      ),
      orderBy,
      rowLimit: body.row_limit ?? 10,
      widthNs: resolved.widthNs,
    },
    groupBy,
    granularity: resolved.granularity,
    fns: body.measures.map((measure) => measure.fn),
  };
}
