// The stored form of one span (table `spans`), shared by ingestion and the engine queries.

export interface SpanRow {
  application_id: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  /** Unix nanoseconds as a decimal string: exact, whatever the driver. */
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  duration_ms: number;
  span_name: string;
  span_kind: string;
  service_name: string | null;
  unit: string | null;
  parent_unit: string | null;
  cost: number | null;
  billing_resource_type: string | null;
  billing_resource_name: string | null;
  billing_service_id: string | null;
  billing_service_name: string | null;
  billing_sku_id: string | null;
  billing_sku_name: string | null;
  billing_region: string | null;
  usage_amount: number | null;
  usage_unit: string | null;
  /** The model and provider of an LLM call and its token counts (GenAI / OpenInference conventions, ingest/genai-usage.ts). */
  model: string | null;
  provider: string | null;
  /** Whole numbers from 0 to 10^12 (BIGINT columns). */
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_creation_tokens: number | null;
  total_tokens: number | null;
  /**
   * Where `cost` came from (ingest/computed-cost.ts): `reported` (vendor.cost) or `computed` (an
   * organization's price entry or the default price book), null when there is no cost. A computed
   * cost names the model and provider texts of the entry that priced it (the book's ids, or the
   * organization entry's own texts), the book's version or the organization entry's id, and its
   * currency (`USD` for the book); an LLM call left unpriced says why.
   */
  cost_source: 'reported' | 'computed' | null;
  price_model: string | null;
  price_provider: string | null;
  price_book: string | null;
  unpriced_reason: 'no_model' | 'no_usage' | 'unknown_model' | 'no_price_in_force' | 'invalid_usage' | null;
  price_entry_id: string | null;
  price_currency: string | null;
  /** JSON text of the flat dotted-key attribute maps, or null. */
  resource_attributes: string | null;
  span_attributes: string | null;
  /** The OTLP status code by its enum name (`STATUS_CODE_ERROR`); null for spans stored before it was kept. */
  status_code: string | null;
  status_message: string | null;
  /** The instrumentation scope (the tracer's name and version). */
  scope_name: string | null;
  scope_version: string | null;
  /** JSON text of the span's events and links (arrays; see span-mapping.ts), or null when it has none. */
  events: string | null;
  links: string | null;
  dropped_attributes_count: number | null;
  dropped_events_count: number | null;
  dropped_links_count: number | null;
  /** Epoch milliseconds at which the service stored the span. */
  received_at: number;
  /** The application's indexed attribute slots (indexed-slots.ts): a kept string value, or null. */
  indexed_value_1: string | null;
  indexed_value_2: string | null;
  indexed_value_3: string | null;
}

/** The model, provider, token and price fields of a span that records no LLM call (a reported cost sets cost_source). */
export const NO_LLM_CALL: Pick<
  SpanRow,
  | 'model'
  | 'provider'
  | 'input_tokens'
  | 'output_tokens'
  | 'cache_read_tokens'
  | 'cache_creation_tokens'
  | 'total_tokens'
  | (typeof SPAN_PRICING_COLUMNS)[number]
> = {
  model: null,
  provider: null,
  input_tokens: null,
  output_tokens: null,
  cache_read_tokens: null,
  cache_creation_tokens: null,
  total_tokens: null,
  cost_source: null,
  price_model: null,
  price_provider: null,
  price_book: null,
  unpriced_reason: null,
  price_entry_id: null,
  price_currency: null,
};

/** The free-text columns (TEXT on MariaDB/MySQL): bounded in bytes at ingestion, text to filters. */
export const SPAN_TEXT_COLUMNS = [
  'span_name',
  'service_name',
  'unit',
  'parent_unit',
  'billing_resource_type',
  'billing_resource_name',
  'billing_service_id',
  'billing_service_name',
  'billing_sku_id',
  'billing_sku_name',
  'billing_region',
  'usage_unit',
  'status_message',
  'scope_name',
  'scope_version',
  'model',
  'provider',
] as const satisfies ReadonlyArray<keyof SpanRow>;

/** The numeric columns (doubles). */
export const SPAN_NUMBER_COLUMNS = ['duration_ms', 'cost', 'usage_amount'] as const satisfies ReadonlyArray<keyof SpanRow>;

/** The token counts (whole numbers, BIGINT). */
export const SPAN_TOKEN_COLUMNS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'total_tokens',
] as const satisfies ReadonlyArray<keyof SpanRow>;

/** A cost's provenance (short texts: an enum, an id of the price book or of a price entry, a currency code). */
export const SPAN_PRICING_COLUMNS = [
  'cost_source',
  'price_model',
  'price_provider',
  'price_book',
  'unpriced_reason',
  'price_entry_id',
  'price_currency',
] as const satisfies ReadonlyArray<keyof SpanRow>;

/** Every column of a stored span, in the order the writers send them. */
export const SPAN_ROW_COLUMNS = [
  'application_id',
  'trace_id',
  'span_id',
  'parent_span_id',
  'start_time_unix_nano',
  'end_time_unix_nano',
  'span_kind',
  'status_code',
  ...SPAN_TEXT_COLUMNS,
  ...SPAN_NUMBER_COLUMNS,
  ...SPAN_TOKEN_COLUMNS,
  ...SPAN_PRICING_COLUMNS,
  'resource_attributes',
  'span_attributes',
  'events',
  'links',
  'dropped_attributes_count',
  'dropped_events_count',
  'dropped_links_count',
  'received_at',
  'indexed_value_1',
  'indexed_value_2',
  'indexed_value_3',
] as const satisfies ReadonlyArray<keyof SpanRow>;

// Every field of SpanRow is a column: this fails to compile when one is left out above.
type MissingColumn = Exclude<keyof SpanRow, (typeof SPAN_ROW_COLUMNS)[number]>;
const everyFieldIsAColumn: [MissingColumn] extends [never] ? true : MissingColumn = true;
void everyFieldIsAColumn;

/** The items by key, each group in the items' order, the groups in the order their keys first appear. */
export function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
