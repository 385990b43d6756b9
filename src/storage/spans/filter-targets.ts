// Step 2 of the filter compiler, the dialect-neutral half: which stored column or which
// attribute each filterable field reads. Only names from this table ever become SQL identifiers;
// an attribute key is user text and is only ever bound (inside a JSON path).
import { SPAN_NUMBER_COLUMNS, SPAN_TEXT_COLUMNS } from './span-row.js';
import { lookUpField } from '../../filter/fields.js';

/** The columns of table `spans` that a filter can read. */
export const FILTER_COLUMNS = ['trace_id', 'span_id', 'span_kind', 'status_code', ...SPAN_TEXT_COLUMNS, ...SPAN_NUMBER_COLUMNS, 'span_attributes', 'resource_attributes'] as const;
export type FilterColumn = (typeof FILTER_COLUMNS)[number];

export type AttributeSource = 'span_attributes' | 'resource_attributes';

export type FieldTarget =
  | { kind: 'text'; column: FilterColumn }
  | { kind: 'number'; column: FilterColumn }
  /** One attribute, named by its whole flat dotted key (`http.response.status_code`). */
  | { kind: 'attribute'; source: AttributeSource; key: string };

// service_name, unit and parent_unit are the resource attribute service.name and the span
// attributes vendor.unit / vendor.parent_unit, kept as columns by ingestion.
const COLUMN_OF_FIELD: Record<string, FilterColumn> = {
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
};

/** The target of a field that step 1 (validate.ts) accepted; throws on any other. */
export function targetOf(field: string): FieldTarget {
  const lookup = lookUpField(field);
  if (!lookup.ok) throw new Error(`not a filterable field: ${field}`);
  if (lookup.kind === 'attribute') {
    const source: AttributeSource = field.startsWith('span_attributes.') ? 'span_attributes' : 'resource_attributes';
    return { kind: 'attribute', source, key: field.slice(source.length + 1) };
  }
  const column = COLUMN_OF_FIELD[field];
  if (!column) throw new Error(`no column for field ${field}`);
  return { kind: lookup.kind, column };
}

/** The OTLP span kinds; filters may name them without the `SPAN_KIND_` prefix. */
export const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;

/** `SERVER` → `SPAN_KIND_SERVER` (eq/neq only); any other value is compared as given. */
export function storedSpanKind(value: string): string {
  return (SPAN_KINDS as readonly string[]).includes(value) ? `SPAN_KIND_${value}` : value;
}

/** The OTLP status codes; filters may name them without the `STATUS_CODE_` prefix. */
export const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;

/** `ERROR` → `STATUS_CODE_ERROR` (eq/neq only); any other value is compared as given. */
export function storedStatusCode(value: string): string {
  return (STATUS_CODES as readonly string[]).includes(value) ? `STATUS_CODE_${value}` : value;
}

/** The value an eq/neq condition on this column compares with: short enum names spelled out. */
export function storedEnumValue(column: FilterColumn, value: string): string {
  if (column === 'span_kind') return storedSpanKind(value);
  if (column === 'status_code') return storedStatusCode(value);
  return value;
}
