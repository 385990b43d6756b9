// GET /traces/{trace_id}'s reads: one trace's summary (table `traces`, any trace, rooted or not)
// and its spans in start order, a page at a time after a keyset position. Both read in one
// snapshot, so a page and the summary beside it agree.
import type { Knex } from 'knex';
import { bigintAsText } from '../../database.js';
import { afterKey, type SortColumn } from '../../keyset.js';
import { dialectFor } from '../../sql/index.js';
import { normaliseSpan, selectSpanColumns, asNumber, type StoredSpan } from '../stored-span.js';
import type { Summary } from './trace-summaries.js';

/** A trace's summary as stored (trace-summaries.ts), times as exact decimal text. */
export type StoredTraceOverview = Omit<Summary, 'application_id' | 'trace_id' | 'root_key'>;

/** The order of a trace's spans: start time, then span_id. */
export const TRACE_SPAN_ORDER: SortColumn[] = [
  { column: 's.start_time_unix_nano', order: 'asc', integer: true },
  { column: 's.span_id', order: 'asc', integer: false },
];

export interface TraceDetailRequest {
  applicationId: string;
  traceId: string;
  limit: number;
  /** The sort key of the last span of the previous page. */
  after?: string[];
}

export interface TraceDetail {
  overview: StoredTraceOverview;
  spans: StoredSpan[];
  /** The sort key of the page's last span when more follow. */
  nextKey: string[] | null;
}

function overviewQuery(knex: Knex, applicationId: string, traceId: string): Knex.QueryBuilder {
  return knex('traces')
    .where({ application_id: applicationId, trace_id: traceId })
    .select('root_span_id', 'span_name', 'service_name', 'unit', 'parent_unit', 'duration_ms', 'spans_count', 'total_cost', 'error_count')
    .select({
      root_start_time_unix_nano: bigintAsText(knex, 'root_start_time_unix_nano'),
      min_start_time_unix_nano: bigintAsText(knex, 'min_start_time_unix_nano'),
      max_end_time_unix_nano: bigintAsText(knex, 'max_end_time_unix_nano'),
    })
    .first();
}

/** The page's spans (one more than `limit`, to know whether another page follows), through spans_identity. */
export function traceSpansQuery(knex: Knex, request: TraceDetailRequest): Knex.QueryBuilder {
  const query = selectSpanColumns(knex, knex({ s: 'spans' }), 's')
    .where('s.application_id', request.applicationId)
    .where('s.trace_id', request.traceId)
    .orderBy([
      { column: 's.start_time_unix_nano', order: 'asc' },
      { column: 's.span_id', order: 'asc' },
    ])
    .limit(request.limit + 1);
  return request.after ? query.modify(afterKey(dialectFor(knex), TRACE_SPAN_ORDER, request.after)) : query;
}

/** One trace's summary and a page of its spans; undefined when the application holds no span of it. */
export async function findTraceDetail(knex: Knex, request: TraceDetailRequest): Promise<TraceDetail | undefined> {
  return knex.transaction(async (trx) => {
    const row = (await overviewQuery(trx, request.applicationId, request.traceId)) as Record<string, unknown> | undefined;
    // A summary row holding no span yet is a concurrent writer's placeholder (trace-summaries.ts, lockQuery).
    if (!row || asNumber(row.spans_count) < 1) return undefined;
    const rows = (await traceSpansQuery(trx, request)) as Array<Record<string, unknown>>;
    const spans = rows.slice(0, request.limit).map(normaliseSpan);
    const last = spans[spans.length - 1];
    const overview: StoredTraceOverview = {
      ...(row as unknown as StoredTraceOverview),
      root_start_time_unix_nano: row.root_start_time_unix_nano === null ? null : String(row.root_start_time_unix_nano),
      min_start_time_unix_nano: String(row.min_start_time_unix_nano),
      max_end_time_unix_nano: String(row.max_end_time_unix_nano),
      duration_ms: asNumber(row.duration_ms),
      spans_count: asNumber(row.spans_count),
      total_cost: asNumber(row.total_cost),
      error_count: asNumber(row.error_count),
    };
    return { overview, spans, nextKey: rows.length > request.limit && last ? [last.start_time_unix_nano, last.span_id] : null };
  }, dialectFor(knex).snapshot);
}
