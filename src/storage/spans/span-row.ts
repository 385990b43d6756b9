// The stored form of one span (table `spans`), shared by ingestion and the engine queries.

export const BILLING_FIELDS = ['resource_type', 'resource_name', 'service_id', 'service_name', 'sku_id', 'sku_name', 'region'] as const;
export type BillingField = (typeof BILLING_FIELDS)[number];

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
  /** JSON text of the flat dotted-key attribute maps, or null. */
  resource_attributes: string | null;
  span_attributes: string | null;
  /** Epoch milliseconds at which the service stored the span. */
  received_at: number;
}
