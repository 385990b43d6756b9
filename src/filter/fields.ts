// The filter's field vocabulary: the fixed fields of the engine document (openapi/engine.yaml,
// FilterField), which of them hold numbers, the attribute paths, and resolving a field name to
// what it reads. Which column or attribute expression a resolved field becomes is the
// compiler's business (src/storage/spans/filter-targets.ts).
import type { components } from '../generated/engine.js';

/** The fixed fields, in the order of the document's FilterField enum (test/filter/fields.test.ts). */
export const FILTER_FIELDS = [
  'trace_id',
  'span_id',
  'span_kind',
  'span_name',
  'service_name',
  'unit',
  'parent_unit',
  'duration_ms',
  'cost',
  'billing.resource_type',
  'billing.resource_name',
  'billing.service_id',
  'billing.service_name',
  'billing.sku_id',
  'billing.sku_name',
  'billing.region',
  'usage.amount',
  'usage.unit',
  'status_code',
  'status_message',
  'scope_name',
  'model',
  'provider',
  'tokens.input',
  'tokens.output',
  'tokens.cache_read',
  'tokens.cache_creation',
  'tokens.total',
  'cost_source',
  'pricing.model',
  'pricing.provider',
  'pricing.unpriced_reason',
  'pricing.entry_id',
  'pricing.currency',
] as const satisfies readonly components['schemas']['FilterField'][];
// The generated FilterField is `(enum) | string`, which TypeScript widens to string: no
// compile-time check can catch a name missing here, so the test against the document does.
export type FixedField = (typeof FILTER_FIELDS)[number];

/** The fixed fields that hold numbers; every other fixed field holds text. */
export const NUMBER_FIELDS = [
  'duration_ms',
  'cost',
  'usage.amount',
  'tokens.input',
  'tokens.output',
  'tokens.cache_read',
  'tokens.cache_creation',
  'tokens.total',
] as const satisfies readonly FixedField[];
export type NumberField = (typeof NUMBER_FIELDS)[number];
export type TextField = Exclude<FixedField, NumberField>;

/** The fixed fields that hold text, in the document's order. */
export const TEXT_FIELDS = FILTER_FIELDS.filter((field): field is TextField => !(NUMBER_FIELDS as readonly string[]).includes(field));

/**
 * The trace-level fields, in the order of the document's TraceFilterField enum: numbers of the
 * summary of the span's trace, usable only where traces are read (validate.ts, traceFields).
 */
export const TRACE_FIELDS = [
  'trace.duration_ms',
  'trace.total_cost',
  'trace.spans_count',
  'trace.error_count',
] as const satisfies readonly components['schemas']['TraceFilterField'][];
export type TraceField = (typeof TRACE_FIELDS)[number];

// Every trace field of the document is listed: this fails to compile when one is left out above.
type MissingTraceField = Exclude<components['schemas']['TraceFilterField'], TraceField>;
const everyTraceFieldListed: [MissingTraceField] extends [never] ? true : MissingTraceField = true;
void everyTraceFieldListed;

/** The attribute maps a field `<source>.<key>` reads. */
const ATTRIBUTE_SOURCES = ['span_attributes', 'resource_attributes'] as const;
export type AttributeSource = (typeof ATTRIBUTE_SOURCES)[number];

const ATTRIBUTE_PATH = /^[A-Za-z0-9_.]+$/;

/** What a valid field reads: a fixed field holding text or numbers, or one attribute. */
export type ResolvedField =
  | { kind: 'text'; name: TextField }
  | { kind: 'number'; name: NumberField }
  /** A number of the span's trace summary. */
  | { kind: 'trace'; name: TraceField }
  /** One attribute, named by its whole flat dotted key (`http.response.status_code`). */
  | { kind: 'attribute'; source: AttributeSource; key: string };

export type FieldResolution = { ok: true; field: ResolvedField } | { ok: false; reason: 'unknown' | 'bad_path' };

export function resolveField(field: string): FieldResolution {
  if ((NUMBER_FIELDS as readonly string[]).includes(field)) return { ok: true, field: { kind: 'number', name: field as NumberField } };
  if ((TEXT_FIELDS as readonly string[]).includes(field)) return { ok: true, field: { kind: 'text', name: field as TextField } };
  if ((TRACE_FIELDS as readonly string[]).includes(field)) return { ok: true, field: { kind: 'trace', name: field as TraceField } };
  const source = ATTRIBUTE_SOURCES.find((candidate) => field.startsWith(`${candidate}.`));
  if (!source) return { ok: false, reason: 'unknown' };
  const key = field.slice(source.length + 1);
  return ATTRIBUTE_PATH.test(key) ? { ok: true, field: { kind: 'attribute', source, key } } : { ok: false, reason: 'bad_path' };
}
