// What a data view (traces, metrics, live) keeps in its URL, so a view can be shared and reloaded:
//   app=<application id>
//   range=15m|1h|6h|24h|7d   a quick range ending now (default 24h), or
//   from=<ISO 8601>&to=<ISO 8601>   an absolute range (both; they win over `range`)
//   filter=<JSON>            the engine's filter tree (openapi/engine.yaml, FilterNode), as sent
//   children=1               search child spans (POST /traces `search_child_spans=true`)
//   sort=<column>&order=asc|desc   the trace list's order (POST /traces `sort`, `order`); absent: newest first
//   page=<n>                 the trace list's page (absent: the first)
import type { components, operations } from '../../src/generated/engine';

export type FilterNode = components['schemas']['FilterNode'];
type TraceListQuery = NonNullable<operations['listTraces']['parameters']['query']>;
export type TraceSortKey = NonNullable<TraceListQuery['sort']>;
export type SortOrder = NonNullable<TraceListQuery['order']>;

export const QUICK_RANGES = { '15m': 15 * 60_000, '1h': 3_600_000, '6h': 6 * 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type QuickRange = keyof typeof QUICK_RANGES;
export const DEFAULT_RANGE: QuickRange = '24h';

export interface TimeWindow {
  start: Date;
  end: Date;
  /** The quick range it came from, or undefined for an absolute range. */
  quick: QuickRange | undefined;
}

function isQuickRange(value: string | undefined): value is QuickRange {
  return value !== undefined && Object.hasOwn(QUICK_RANGES, value);
}

function dateOf(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The parameters the data views share (application, window, filter), as a link to another of them keeps them. */
const SHARED_VIEW_PARAMETERS = ['app', 'range', 'from', 'to', 'filter'] as const;

/** The shared part of a query, for a link to another data view; `children` too for the traces view. */
export function sharedViewQuery(query: Record<string, string>, withChildren = false): Record<string, string> {
  const names: readonly string[] = withChildren ? [...SHARED_VIEW_PARAMETERS, 'children'] : SHARED_VIEW_PARAMETERS;
  return Object.fromEntries(Object.entries(query).filter(([name]) => names.includes(name)));
}

/** The window the URL names; a quick range ends at `now`. */
export function readTimeWindow(query: Record<string, string>, now = new Date()): TimeWindow {
  const from = dateOf(query.from);
  const to = dateOf(query.to);
  if (from && to && from < to) return { start: from, end: to, quick: undefined };
  const quick = isQuickRange(query.range) ? query.range : DEFAULT_RANGE;
  return { start: new Date(now.getTime() - QUICK_RANGES[quick]), end: now, quick };
}

/** The query changes that select a quick range (and drop an absolute one). */
export function quickRangeQuery(range: QuickRange): Record<string, string | undefined> {
  return { range, from: undefined, to: undefined };
}

/** The query changes that select an absolute range. */
export function absoluteRangeQuery(start: Date, end: Date): Record<string, string | undefined> {
  return { range: undefined, from: start.toISOString(), to: end.toISOString() };
}

/** The window as the engine's `start_time`/`end_time` query parameters. */
export function windowParams(window: TimeWindow): { start_time: string; end_time: string } {
  return { start_time: window.start.toISOString(), end_time: window.end.toISOString() };
}

export interface FilterState {
  filter: FilterNode | undefined;
  /** Set when `filter=` holds something that is not JSON: the view says so instead of guessing. */
  problem: string | undefined;
}

/** The filter the URL holds. Its shape is checked by the engine, which answers a 422 naming the problem. */
export function readFilter(query: Record<string, string>): FilterState {
  if (!query.filter) return { filter: undefined, problem: undefined };
  try {
    return { filter: JSON.parse(query.filter) as FilterNode, problem: undefined };
  } catch {
    return { filter: undefined, problem: 'The filter in the address is not valid JSON' };
  }
}

/** The query change that stores a filter (undefined removes it). */
export function filterQuery(filter: FilterNode | undefined): Record<string, string | undefined> {
  return { filter: filter === undefined ? undefined : JSON.stringify(filter) };
}

export function readSearchChildren(query: Record<string, string>): boolean {
  return query.children === '1';
}

export interface TraceSort {
  sort: TraceSortKey;
  order: SortOrder;
}

/** The engine's default order, which the URL leaves out. */
export const DEFAULT_TRACE_SORT: TraceSort = { sort: 'start_time', order: 'desc' };

/**
 * The trace list's order the URL names. A hand-edited value is sent as written (the engine's 422
 * names it), as a filter is.
 */
export function readTraceSort(query: Record<string, string>): TraceSort {
  return {
    sort: (query.sort || DEFAULT_TRACE_SORT.sort) as TraceSortKey,
    order: (query.order || DEFAULT_TRACE_SORT.order) as SortOrder,
  };
}

/** The query changes that store an order (the default removes both). */
export function traceSortQuery(next: TraceSort): Record<string, string | undefined> {
  const isDefault = next.sort === DEFAULT_TRACE_SORT.sort && next.order === DEFAULT_TRACE_SORT.order;
  return isDefault ? { sort: undefined, order: undefined } : { sort: next.sort, order: next.order };
}

/** The order after a click on `column`'s header: the other direction of the current column, else highest (latest) first. */
export function nextTraceSort(current: TraceSort, column: TraceSortKey): TraceSort {
  if (current.sort === column) return { sort: column, order: current.order === 'desc' ? 'asc' : 'desc' };
  return { sort: column, order: 'desc' };
}
