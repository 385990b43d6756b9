// The engine's response objects in their wire shape (the generated schema types), with the
// nanosecond times as exact JSON integers and stored attribute maps embedded as their JSON text.
// Handlers hand these to exactJson(); nothing here touches the database.
import type { components } from '../generated/engine.js';
import { JsonInteger, RawJson } from '../json/exact-json.js';
import type { StoredSpan, StoredTraceOverview, StoredTraceSummary } from '../storage/spans/span-store.js';

type Schemas = components['schemas'];

/** A schema type whose `*_unix_nano` fields are written as exact digits. */
type Exact<T> = {
  [K in keyof T]: K extends `${string}_unix_nano`
    ? JsonInteger
    : K extends 'resource_attributes' | 'span_attributes'
      ? RawJson | Record<string, unknown> | null
      : K extends 'events' | 'links'
        ? RawJson | unknown[] | null
        : T[K];
};

export type WireSpanRecord = Exact<Schemas['SpanRecord']>;
export type WireLiveSpan = Exact<Schemas['LiveSpan']>;
export type WireTraceSummary = Exact<Schemas['TraceSummary']>;
export type WireTraceOverview = Omit<Exact<Schemas['TraceOverview']>, 'root_start_time_unix_nano'> & {
  root_start_time_unix_nano: JsonInteger | null;
};

/** A stored JSON column (attribute map, events, links) embedded as its text, exact. */
function embedded<T>(stored: string | T | null | undefined): RawJson | T | null {
  if (stored === null || stored === undefined) return null;
  if (typeof stored !== 'string') return stored; // a driver that parses JSON columns itself
  return new RawJson(stored);
}

const attributes = embedded<Record<string, unknown>>;

/** A status code read back: one of the enum names (the column holds nothing else), or null. */
function statusCode(stored: string | null): Schemas['StatusCode'] | null {
  return stored as Schemas['StatusCode'] | null;
}

export function spanRecord(span: StoredSpan): WireSpanRecord {
  return {
    trace_id: span.trace_id,
    span_id: span.span_id,
    span_start_time_unix_nano: new JsonInteger(span.start_time_unix_nano),
    span_end_time_unix_nano: new JsonInteger(span.end_time_unix_nano),
    duration_ms: span.duration_ms,
    parent_span_id: span.parent_span_id,
    span_name: span.span_name,
    span_kind: span.span_kind as Schemas['SpanKind'],
    service_name: span.service_name,
    unit: span.unit,
    parent_unit: span.parent_unit,
    resource_attributes: attributes(span.resource_attributes),
    span_attributes: attributes(span.span_attributes),
    cost: span.cost,
    billing: {
      resource_type: span.billing_resource_type,
      resource_name: span.billing_resource_name,
      service_id: span.billing_service_id,
      service_name: span.billing_service_name,
      sku_id: span.billing_sku_id,
      sku_name: span.billing_sku_name,
      region: span.billing_region,
    },
    usage: { amount: span.usage_amount, unit: span.usage_unit },
    model: span.model,
    provider: span.provider,
    tokens: {
      input: span.input_tokens,
      output: span.output_tokens,
      cache_read: span.cache_read_tokens,
      cache_creation: span.cache_creation_tokens,
      total: span.total_tokens,
    },
    cost_source: span.cost_source,
    pricing: {
      book: span.price_book,
      provider: span.price_provider,
      model: span.price_model,
      unpriced_reason: span.unpriced_reason,
      entry_id: span.price_entry_id,
      currency: span.price_currency,
    },
    status_code: statusCode(span.status_code),
    status_message: span.status_message,
    scope_name: span.scope_name,
    scope_version: span.scope_version,
    events: embedded<unknown[]>(span.events),
    links: embedded<unknown[]>(span.links),
    dropped_attributes_count: span.dropped_attributes_count,
    dropped_events_count: span.dropped_events_count,
    dropped_links_count: span.dropped_links_count,
  };
}

export function liveSpan(span: StoredSpan): WireLiveSpan {
  return {
    trace_id: span.trace_id,
    span_id: span.span_id,
    span_name: span.span_name,
    span_kind: span.span_kind as Schemas['SpanKind'],
    span_start_time_unix_nano: new JsonInteger(span.start_time_unix_nano),
    span_end_time_unix_nano: new JsonInteger(span.end_time_unix_nano),
    parent_span_id: span.parent_span_id,
    service_name: span.service_name,
    resource_attributes: attributes(span.resource_attributes),
    span_attributes: attributes(span.span_attributes),
    status_code: statusCode(span.status_code),
    status_message: span.status_message,
  };
}

export function traceSummary(trace: StoredTraceSummary): WireTraceSummary {
  return {
    trace_id: trace.trace_id,
    span_name: trace.span_name,
    duration_ms: trace.duration_ms,
    spans_count: trace.spans_count,
    total_cost: trace.total_cost,
    error_count: trace.error_count,
    min_start_time_unix_nano: new JsonInteger(trace.min_start_time_unix_nano),
    service_name: trace.service_name,
    unit: trace.unit,
    parent_unit: trace.parent_unit,
  };
}

export function traceOverview(trace: StoredTraceOverview): WireTraceOverview {
  return {
    root_span_id: trace.root_span_id,
    root_start_time_unix_nano: trace.root_start_time_unix_nano === null ? null : new JsonInteger(trace.root_start_time_unix_nano),
    span_name: trace.span_name,
    service_name: trace.service_name,
    unit: trace.unit,
    parent_unit: trace.parent_unit,
    min_start_time_unix_nano: new JsonInteger(trace.min_start_time_unix_nano),
    max_end_time_unix_nano: new JsonInteger(trace.max_end_time_unix_nano),
    duration_ms: trace.duration_ms,
    spans_count: trace.spans_count,
    total_cost: trace.total_cost,
    error_count: trace.error_count,
  };
}
