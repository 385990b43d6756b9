// Step 2 of the filter compiler, the dialect-neutral half: which stored column or which
// attribute a resolved field (src/filter/fields.ts) reads, and how an eq/neq value on the enum
// columns is stored. Only names from this table ever become SQL identifiers; an attribute key
// is user text and is only ever bound (inside a JSON path).
import type { SlotColumn } from './indexed-slots.js';
import type { SPAN_NUMBER_COLUMNS, SPAN_PRICING_COLUMNS, SPAN_TEXT_COLUMNS, SPAN_TOKEN_COLUMNS } from './span-row.js';
import type { AttributeSource, FixedField, ResolvedField, TraceField } from '../../filter/fields.js';
import { spelledOutSpanKind, spelledOutStatusCode } from '../../span-enums.js';

/** The columns of table `spans` that a filter can read. */
export type FilterColumn =
  | 'trace_id'
  | 'span_id'
  | 'span_kind'
  | 'status_code'
  | (typeof SPAN_TEXT_COLUMNS)[number]
  | (typeof SPAN_NUMBER_COLUMNS)[number]
  | (typeof SPAN_TOKEN_COLUMNS)[number]
  | Exclude<(typeof SPAN_PRICING_COLUMNS)[number], 'price_book'>
  | AttributeSource
  /** An indexed attribute slot: only ever read for a ready slot's key (filter-sql.ts, slotLookup). */
  | SlotColumn;

/** The columns of table `traces` (the per-trace summary) that a trace-level field reads. */
export type TraceSummaryColumn = 'duration_ms' | 'total_cost' | 'spans_count' | 'error_count';

export type FieldTarget =
  | { kind: 'text'; column: FilterColumn }
  | { kind: 'number'; column: FilterColumn }
  /** A number of the span's trace summary: only reads of traces can compile it. */
  | { kind: 'trace'; column: TraceSummaryColumn }
  /** One attribute, named by its whole flat dotted key (`http.response.status_code`). */
  | { kind: 'attribute'; source: AttributeSource; key: string };

// service_name, unit and parent_unit are the resource attribute service.name and the span
// attributes vendor.unit / vendor.parent_unit, kept as columns by ingestion.
const COLUMN_OF_FIELD: Record<FixedField, FilterColumn> = {
  trace_id: 'trace_id',
  span_id: 'span_id',
  span_kind: 'span_kind',
  span_name: 'span_name',
  service_name: 'service_name',
  unit: 'unit',
  parent_unit: 'parent_unit',
  'billing.resource_type': 'billing_resource_type',
  'billing.resource_name': 'billing_resource_name',
  'billing.service_id': 'billing_service_id',
  'billing.service_name': 'billing_service_name',
  'billing.sku_id': 'billing_sku_id',
  'billing.sku_name': 'billing_sku_name',
  'billing.region': 'billing_region',
  'usage.unit': 'usage_unit',
  status_code: 'status_code',
  status_message: 'status_message',
  scope_name: 'scope_name',
  duration_ms: 'duration_ms',
  cost: 'cost',
  'usage.amount': 'usage_amount',
  model: 'model',
  provider: 'provider',
  'tokens.input': 'input_tokens',
  'tokens.output': 'output_tokens',
  'tokens.cache_read': 'cache_read_tokens',
  'tokens.cache_creation': 'cache_creation_tokens',
  'tokens.total': 'total_tokens',
  cost_source: 'cost_source',
  'pricing.model': 'price_model',
  'pricing.provider': 'price_provider',
  'pricing.unpriced_reason': 'unpriced_reason',
  'pricing.entry_id': 'price_entry_id',
  'pricing.currency': 'price_currency',
};

const SUMMARY_COLUMN_OF_FIELD: Record<TraceField, TraceSummaryColumn> = {
  'trace.duration_ms': 'duration_ms',
  'trace.total_cost': 'total_cost',
  'trace.spans_count': 'spans_count',
  'trace.error_count': 'error_count',
};

/** The target of a resolved field: its column, or its attribute source and key. */
export function targetOfResolved(field: ResolvedField): FieldTarget {
  if (field.kind === 'attribute') return field;
  if (field.kind === 'trace') return { kind: 'trace', column: SUMMARY_COLUMN_OF_FIELD[field.name] };
  if (field.kind === 'number') return { kind: 'number', column: COLUMN_OF_FIELD[field.name] };
  return { kind: 'text', column: COLUMN_OF_FIELD[field.name] };
}

/** `SERVER` → `SPAN_KIND_SERVER` (eq/neq only); any other value is compared as given. */
export const storedSpanKind = spelledOutSpanKind;

/** The value an eq/neq condition on this column compares with: short enum names spelled out. */
export function storedEnumValue(column: FilterColumn, value: string): string {
  if (column === 'span_kind') return spelledOutSpanKind(value);
  if (column === 'status_code') return spelledOutStatusCode(value);
  return value;
}
