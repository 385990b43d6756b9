// Maps decoded OTLP spans to stored span rows, exactly as the exportTraces operation of
// openapi/engine.yaml documents it: first-class fields from the `vendor.*` span attributes, from
// the GenAI and OpenInference conventions (genai-usage.ts, with the cost an instrumentation reports
// itself), the cost computed from the organization's price entries or the default book where none
// is reported (computed-cost.ts), and from the resource's `service.name`, span kinds and status
// codes by their OTLP enum names,
// attributes kept whole, events and links as JSON arrays with their times as exact integers.
import { spanKindName, statusCodeName } from '../span-enums.js';
import { slotValue, type IndexedSlot, type SpanRow } from '../storage/spans/span-store.js';
import type { Attributes, DecodedEvent, DecodedExportRequest, DecodedLink, DecodedSpan, PartialSuccess } from './otlp-request.js';
import { hasParent, rowProblem, spanProblem } from './span-validation.js';
import { numberOf, textOf } from './derived-values.js';
import { genAiFields, instrumentationCostOf } from './genai-usage.js';
import { costFields } from './computed-cost.js';
import { NO_PRICE_ENTRIES, type OrganizationPrices } from '../pricing/price-entries.js';

/** At most this many rejection reasons are spelled out in the partial success message. */
const MAX_REASONS = 10;

/** The attributes as JSON text; no attributes at all are stored as null. */
function attributesJson(attributes: Attributes): string | null {
  const json = JSON.stringify(attributes);
  return json === '{}' ? null : json;
}

/** '' (protobuf's default for an absent string) is stored as null. */
function textOrNull(text: string): string | null {
  return text === '' ? null : text;
}

// Events and links are written as JSON text by hand: the event time goes in as its exact digits
// (JSON.stringify has no 64-bit integers), and a span without any costs no allocation.
function eventJson(event: DecodedEvent): string {
  return `{"name":${JSON.stringify(event.name)},"time_unix_nano":${event.timeUnixNano},"attributes":${attributesJson(event.attributes) ?? 'null'},"dropped_attributes_count":${event.droppedAttributesCount}}`;
}

function linkJson(link: DecodedLink): string {
  return `{"trace_id":${JSON.stringify(link.traceId)},"span_id":${JSON.stringify(link.spanId)},"trace_state":${JSON.stringify(textOrNull(link.traceState))},"attributes":${attributesJson(link.attributes) ?? 'null'},"dropped_attributes_count":${link.droppedAttributesCount}}`;
}

function listJson<T>(items: T[], write: (item: T) => string): string | null {
  return items.length === 0 ? null : `[${items.map(write).join(',')}]`;
}

interface ResourceFields {
  service_name: string | null;
  resource_attributes: string | null;
  /** The decoded resource attributes, for the indexed slots that read them. */
  attributes: Attributes;
}

/** The value each indexed slot keeps for this span (null for a slot no key uses). */
function slotValues(
  slots: readonly IndexedSlot[],
  spanAttributes: Attributes,
  resourceAttributes: Attributes,
): Pick<SpanRow, 'indexed_value_1' | 'indexed_value_2' | 'indexed_value_3'> {
  const values = { indexed_value_1: null, indexed_value_2: null, indexed_value_3: null } as Pick<
    SpanRow,
    'indexed_value_1' | 'indexed_value_2' | 'indexed_value_3'
  >;
  for (const { slot, source, key } of slots) {
    // Own properties only: a key such as `constructor` must not read Object.prototype.
    const map = source === 'span_attributes' ? spanAttributes : resourceAttributes;
    values[`indexed_value_${slot}`] = Object.hasOwn(map, key) ? slotValue(map[key]) : null;
  }
  return values;
}

function toRow(
  span: DecodedSpan,
  resource: ResourceFields,
  applicationId: string,
  receivedAt: number,
  slots: readonly IndexedSlot[],
  prices: OrganizationPrices,
): SpanRow {
  const attributes = span.attributes;
  const genAi = genAiFields(attributes);
  // A reported cost: `vendor.cost` wins over the instrumentation's own, read only without it.
  const reported = numberOf(attributes['vendor.cost']) ?? instrumentationCostOf(attributes);
  const cost = costFields(reported, genAi, span.startTimeUnixNano, prices);
  return {
    application_id: applicationId,
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_span_id: hasParent(span) ? span.parentSpanId : null,
    start_time_unix_nano: span.startTimeUnixNano,
    end_time_unix_nano: span.endTimeUnixNano,
    duration_ms: Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e6,
    span_name: span.name,
    span_kind: spanKindName(span.kind),
    service_name: resource.service_name,
    unit: textOf(attributes['vendor.unit']),
    parent_unit: textOf(attributes['vendor.parent_unit']),
    cost: cost.cost,
    // One line per billing column (spelled out: this runs for every span received).
    billing_resource_type: textOf(attributes['vendor.billing.resource_type']),
    billing_resource_name: textOf(attributes['vendor.billing.resource_name']),
    billing_service_id: textOf(attributes['vendor.billing.service_id']),
    billing_service_name: textOf(attributes['vendor.billing.service_name']),
    billing_sku_id: textOf(attributes['vendor.billing.sku_id']),
    billing_sku_name: textOf(attributes['vendor.billing.sku_name']),
    billing_region: textOf(attributes['vendor.billing.region']),
    usage_amount: numberOf(attributes['vendor.usage.amount']),
    usage_unit: textOf(attributes['vendor.usage.unit']),
    model: genAi.model,
    provider: genAi.provider,
    input_tokens: genAi.input_tokens,
    output_tokens: genAi.output_tokens,
    cache_read_tokens: genAi.cache_read_tokens,
    cache_creation_tokens: genAi.cache_creation_tokens,
    total_tokens: genAi.total_tokens,
    cost_source: cost.cost_source,
    price_model: cost.price_model,
    price_provider: cost.price_provider,
    price_book: cost.price_book,
    unpriced_reason: cost.unpriced_reason,
    price_entry_id: cost.price_entry_id,
    price_currency: cost.price_currency,
    resource_attributes: resource.resource_attributes,
    span_attributes: attributesJson(attributes),
    status_code: statusCodeName(span.statusCode),
    status_message: textOrNull(span.statusMessage),
    scope_name: textOrNull(span.scope.name),
    scope_version: textOrNull(span.scope.version),
    events: listJson(span.events, eventJson),
    links: listJson(span.links, linkJson),
    dropped_attributes_count: span.droppedAttributesCount,
    dropped_events_count: span.droppedEventsCount,
    dropped_links_count: span.droppedLinksCount,
    received_at: receivedAt,
    ...slotValues(slots, attributes, resource.attributes),
  };
}

function describe(span: DecodedSpan, problem: string): string {
  const id = span.spanId === '' ? '(no span_id)' : span.spanId.slice(0, 32);
  return `span ${id}: ${problem}`;
}

function summarize(problems: string[]): string {
  const shown = problems.slice(0, MAX_REASONS).join('; ');
  return problems.length > MAX_REASONS ? `${shown}; and ${problems.length - MAX_REASONS} more` : shown;
}

export interface MappedRequest {
  rows: SpanRow[];
  /** Present when some spans were rejected. */
  partialSuccess: PartialSuccess | undefined;
}

/**
 * The rows to store for a decoded request, and the spans rejected (with the reasons why); LLM
 * calls without a reported cost are priced by `prices`, the application's organization's entries,
 * then the default book.
 */
export function toSpanRows(
  request: DecodedExportRequest,
  applicationId: string,
  receivedAt: number,
  slots: readonly IndexedSlot[] = [],
  prices: OrganizationPrices = NO_PRICE_ENTRIES,
): MappedRequest {
  const rows: SpanRow[] = [];
  const problems: string[] = [];
  for (const { resourceAttributes, spans } of request.resourceSpans) {
    const resource = {
      service_name: textOf(resourceAttributes['service.name']),
      resource_attributes: attributesJson(resourceAttributes),
      attributes: resourceAttributes,
    };
    for (const span of spans) {
      const spanIssue = spanProblem(span);
      if (spanIssue !== undefined) {
        problems.push(describe(span, spanIssue));
        continue;
      }
      const row = toRow(span, resource, applicationId, receivedAt, slots, prices);
      const rowIssue = rowProblem(row);
      if (rowIssue !== undefined) problems.push(describe(span, rowIssue));
      else rows.push(row);
    }
  }
  return { rows, partialSuccess: problems.length > 0 ? { rejectedSpans: problems.length, errorMessage: summarize(problems) } : undefined };
}
