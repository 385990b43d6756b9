// The filterable fields of the contract and the kind of value each holds.
// Which column or attribute expression a field maps to is the compiler's business.

export type FieldKind = 'text' | 'number' | 'attribute';

export const TEXT_FIELDS = [
  'trace_id',
  'span_id',
  'span_kind',
  'span_name',
  'service_name',
  'unit',
  'parent_unit',
  'billing.resource_type',
  'billing.resource_name',
  'billing.service_id',
  'billing.service_name',
  'billing.sku_id',
  'billing.sku_name',
  'billing.region',
  'usage.unit',
  'status_code',
  'status_message',
  'scope_name',
] as const;

export const NUMBER_FIELDS = ['duration_ms', 'cost', 'usage.amount'] as const;

export const ATTRIBUTE_PREFIXES = ['span_attributes.', 'resource_attributes.'] as const;

const ATTRIBUTE_PATH = /^[A-Za-z0-9_.]+$/;

export type FieldLookup =
  | { ok: true; kind: FieldKind }
  | { ok: false; reason: 'unknown' | 'bad_path' };

export function lookUpField(field: string): FieldLookup {
  if ((TEXT_FIELDS as readonly string[]).includes(field)) return { ok: true, kind: 'text' };
  if ((NUMBER_FIELDS as readonly string[]).includes(field)) return { ok: true, kind: 'number' };
  const prefix = ATTRIBUTE_PREFIXES.find((candidate) => field.startsWith(candidate));
  if (!prefix) return { ok: false, reason: 'unknown' };
  return ATTRIBUTE_PATH.test(field.slice(prefix.length)) ? { ok: true, kind: 'attribute' } : { ok: false, reason: 'bad_path' };
}
