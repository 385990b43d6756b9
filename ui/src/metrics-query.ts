// What the metrics view keeps in its URL besides the shared state of ui/src/view-query.ts:
//   group=<field>   what the cost chart groups by: a preset (service, model, provider, SKU...) or
//                   any text field or attribute path (openapi/engine.yaml, FilterField); default
//                   service_name.
// and the window it asks for: a quick range is aligned to whole minutes, which lets the engine
// answer cost charts from its per-minute roll-ups (docs/analytics.md, "When the roll-ups answer").
import type { TimeWindow } from './view-query';

export interface GroupPreset {
  label: string;
  field: string;
}

export const GROUP_PRESETS: GroupPreset[] = [
  { label: 'Service', field: 'service_name' },
  // Read at ingestion from the GenAI and OpenInference attributes; spans stored before engine API
  // 1.7.0 have neither and are grouped by an attribute path typed in instead.
  { label: 'Model', field: 'model' },
  { label: 'Provider', field: 'provider' },
  { label: 'Billing SKU', field: 'billing.sku_name' },
  { label: 'Billing SKU id', field: 'billing.sku_id' },
  { label: 'Billing service', field: 'billing.service_name' },
  { label: 'Unit', field: 'unit' },
];

export const DEFAULT_GROUP = 'service_name';

/** The text fields a span-grain group may use (FilterField without the numeric ones). */
const TEXT_FIELDS = new Set([
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
  'model',
  'provider',
]);
const ATTRIBUTE_PATH = /^(span_attributes|resource_attributes)\.[A-Za-z0-9_.]+$/;

/** Whether the engine accepts `field` as a span-grain `group_by` field. */
export function isGroupField(field: string): boolean {
  return TEXT_FIELDS.has(field) || (ATTRIBUTE_PATH.test(field) && field.length <= 512);
}

export function readGroupField(query: Record<string, string>): string {
  const field = query.group?.trim();
  return field && isGroupField(field) ? field : DEFAULT_GROUP;
}

export function groupQuery(field: string): Record<string, string | undefined> {
  return { group: field === DEFAULT_GROUP ? undefined : field };
}

/** The preset naming `field`, if one does. */
export function presetOf(field: string): GroupPreset | undefined {
  return GROUP_PRESETS.find((preset) => preset.field === field);
}

/** A quick range ending at the next whole minute (an absolute range is asked for as given). */
export function alignedWindow(window: TimeWindow): TimeWindow {
  if (window.quick === undefined) return window;
  const end = Math.ceil(window.end.getTime() / 60_000) * 60_000;
  return { ...window, start: new Date(end - (window.end.getTime() - window.start.getTime())), end: new Date(end) };
}
