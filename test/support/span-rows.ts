// Builds stored span rows for tests that seed the database directly.
import { NO_LLM_CALL, type SpanRow } from '../../src/storage/spans/span-row.js';

export function spanRow(overrides: Partial<SpanRow> & Pick<SpanRow, 'trace_id' | 'span_id'>): SpanRow {
  const start = overrides.start_time_unix_nano ?? '1763800000123456789';
  const end = overrides.end_time_unix_nano ?? (BigInt(start) + 5_000_000n).toString();
  return {
    application_id: 'app_test',
    parent_span_id: null,
    start_time_unix_nano: start,
    end_time_unix_nano: end,
    duration_ms: Number(BigInt(end) - BigInt(start)) / 1e6,
    span_name: 'GET /checkout',
    span_kind: 'SPAN_KIND_INTERNAL',
    service_name: 'checkout',
    unit: null,
    parent_unit: null,
    cost: null,
    billing_resource_type: null,
    billing_resource_name: null,
    billing_service_id: null,
    billing_service_name: null,
    billing_sku_id: null,
    billing_sku_name: null,
    billing_region: null,
    usage_amount: null,
    usage_unit: null,
    ...NO_LLM_CALL,
    resource_attributes: null,
    span_attributes: null,
    status_code: 'STATUS_CODE_UNSET',
    status_message: null,
    scope_name: null,
    scope_version: null,
    events: null,
    links: null,
    dropped_attributes_count: 0,
    dropped_events_count: 0,
    dropped_links_count: 0,
    received_at: Date.now(),
    indexed_value_1: null,
    indexed_value_2: null,
    indexed_value_3: null,
    ...overrides,
  };
}

let costSpans = 0;

/** A span of the application starting at `at` (RFC 3339) with a cost: reported (USD), or computed in `currency`; ids unique in the process. */
export function costSpan(applicationId: string, at: string, cost: number, currency?: string): SpanRow {
  costSpans += 1;
  const id = `c${costSpans.toString(16)}`;
  return spanRow({
    application_id: applicationId,
    trace_id: id.padStart(32, '0'),
    span_id: id.padStart(16, '0'),
    start_time_unix_nano: (BigInt(Date.parse(at)) * 1_000_000n).toString(),
    cost,
    cost_source: currency === undefined ? 'reported' : 'computed',
    price_currency: currency ?? null,
  });
}
