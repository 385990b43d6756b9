// The FOCUS 1.3 columns of an organization's spend export (exportOrganizationFocus): each column
// with its FOCUS data type, nullability and feature level, and how its value comes from one row
// of the daily spend read (src/storage/spend/spend-reads.ts) or is a constant. docs/focus-export.md
// gives the reasons; the export's operation description carries the same table. FOCUS columns
// come first, then the `x_` extension columns (FOCUS's column ordering rule).
import type { DailySpendRow } from '../storage/spend/spend-reads.js';

export const FOCUS_VERSION = '1.3';

export type FocusDataType = 'String' | 'Decimal' | 'DateTime' | 'JSON';
export type FocusFeatureLevel = 'Mandatory' | 'Conditional' | 'Recommended' | 'Extension';
export type FocusValue = string | number | Record<string, string> | null;

/** One exported row's sources: the daily spend row and what the request knows around it. */
export interface FocusRowSource {
  row: DailySpendRow;
  organization: { id: string; name: string };
  application: { id: string; name: string };
  period: { startNs: bigint; endNs: bigint };
}

export interface FocusColumn {
  name: string;
  type: FocusDataType;
  nullable: boolean;
  level: FocusFeatureLevel;
  value: (source: FocusRowSource) => FocusValue;
}

const DAY_NS = 86_400_000_000_000n;
const NS_PER_MS = 1_000_000n;

/** The currency of a row without a cost: the reported cost's (README of src/storage/spend/). */
const NO_COST_CURRENCY = 'USD';

/** What OpenTelemetry SDKs name a service that set no `service.name`. */
const UNKNOWN_SERVICE = 'unknown_service';

/** Provider-defined tag keys carry this prefix (FOCUS Tags: a provider-specified prefix per tag scheme). */
export const TAG_PREFIX = 'spanledger/';

const utc = (ns: bigint): string => new Date(Number(ns / NS_PER_MS)).toISOString().replace('.000Z', 'Z');

const serviceName = ({ row }: FocusRowSource): string => row.dimensions.service_name ?? UNKNOWN_SERVICE;

/** The entity that made the charged service available: the LLM provider, else the service itself. */
const serviceProvider = (source: FocusRowSource): string => source.row.dimensions.provider ?? serviceName(source);

const isLlm = ({ row }: FocusRowSource): boolean => row.dimensions.model !== null;

/** The cost in the billing currency: a row of spans without a cost costs nothing. */
const cost = ({ row }: FocusRowSource): number => (row.currency === null ? 0 : row.cost);

/** Tokens for LLM calls (as FOCUS's AI billing examples count them), otherwise the spans as requests. */
const quantity = (source: FocusRowSource): number => (isLlm(source) ? source.row.tokens.total_tokens : source.row.spans);
const unit = (source: FocusRowSource): string => (isLlm(source) ? 'Tokens' : 'Requests');

function description(source: FocusRowSource): string {
  const { model, provider, billing_sku_id: sku } = source.row.dimensions;
  const what =
    model === null
      ? `Spans of ${serviceName(source)}`
      : `LLM calls to ${model}${provider === null ? '' : ` (${provider})`} from ${serviceName(source)}`;
  return sku === null ? what : `${what}, SKU ${sku}`;
}

function tags({ row }: FocusRowSource): Record<string, string> | null {
  const values: Array<[string, string | null]> = [
    ['model', row.dimensions.model],
    ['provider', row.dimensions.provider],
    ['resource_type', row.dimensions.billing_resource_type],
  ];
  const set = values.flatMap(([key, value]) => (value === null ? [] : [[`${TAG_PREFIX}${key}`, value] as const]));
  return set.length === 0 ? null : Object.fromEntries(set);
}

const string = (
  name: string,
  level: FocusFeatureLevel,
  value: (source: FocusRowSource) => string | null,
  nullable = false,
): FocusColumn => ({
  name,
  type: 'String',
  nullable,
  level,
  value,
});
const decimal = (name: string, level: FocusFeatureLevel, value: (source: FocusRowSource) => number): FocusColumn => ({
  name,
  type: 'Decimal',
  nullable: false,
  level,
  value,
});
const dateTime = (name: string, value: (source: FocusRowSource) => string): FocusColumn => ({
  name,
  type: 'DateTime',
  nullable: false,
  level: 'Mandatory',
  value,
});

/** Every exported column, in order. */
export const FOCUS_COLUMNS: readonly FocusColumn[] = [
  // Our cost is list price times usage (or a reported cost): no discounts, negotiated terms or commitments apply.
  decimal('BilledCost', 'Mandatory', cost),
  string('BillingAccountId', 'Mandatory', (source) => source.organization.id),
  string('BillingAccountName', 'Mandatory', (source) => source.organization.name),
  string('BillingCurrency', 'Mandatory', ({ row }) => row.currency ?? NO_COST_CURRENCY),
  dateTime('BillingPeriodEnd', (source) => utc(source.period.endNs)),
  dateTime('BillingPeriodStart', (source) => utc(source.period.startNs)),
  string('ChargeCategory', 'Mandatory', () => 'Usage'),
  string('ChargeClass', 'Mandatory', () => null, true),
  string('ChargeDescription', 'Mandatory', description, true),
  string('ChargeFrequency', 'Recommended', () => 'Usage-Based'),
  dateTime('ChargePeriodEnd', ({ row }) => utc(row.dayStartNs + DAY_NS)),
  dateTime('ChargePeriodStart', ({ row }) => utc(row.dayStartNs)),
  decimal('ConsumedQuantity', 'Conditional', quantity),
  string('ConsumedUnit', 'Conditional', unit),
  decimal('ContractedCost', 'Mandatory', cost),
  decimal('EffectiveCost', 'Mandatory', cost),
  string('HostProviderName', 'Mandatory', serviceProvider),
  string('InvoiceIssuerName', 'Mandatory', serviceProvider),
  decimal('ListCost', 'Mandatory', cost),
  decimal('PricingQuantity', 'Mandatory', quantity),
  string('PricingUnit', 'Mandatory', unit),
  string('ProviderName', 'Mandatory', serviceProvider),
  string('PublisherName', 'Mandatory', serviceProvider),
  string('ServiceCategory', 'Mandatory', (source) => (isLlm(source) ? 'AI and Machine Learning' : 'Other')),
  string('ServiceName', 'Mandatory', serviceName),
  string('ServiceProviderName', 'Mandatory', serviceProvider),
  string('SkuId', 'Conditional', ({ row }) => row.dimensions.billing_sku_id ?? row.dimensions.model, true),
  string('SubAccountId', 'Conditional', (source) => source.application.id),
  string('SubAccountName', 'Conditional', (source) => source.application.name),
  { name: 'Tags', type: 'JSON', nullable: true, level: 'Conditional', value: tags },
  string('x_ApplicationId', 'Extension', (source) => source.application.id),
  string('x_Model', 'Extension', ({ row }) => row.dimensions.model, true),
  string('x_Provider', 'Extension', ({ row }) => row.dimensions.provider, true),
  string('x_ResourceType', 'Extension', ({ row }) => row.dimensions.billing_resource_type, true),
  decimal('x_SpanCount', 'Extension', ({ row }) => row.spans),
  decimal('x_TraceCount', 'Extension', ({ row }) => row.traces),
  decimal('x_PricedSpanCount', 'Extension', ({ row }) => row.spansWithCost),
  decimal('x_UnpricedSpanCount', 'Extension', ({ row }) => row.unpricedSpans),
  decimal('x_UnpricedTokens', 'Extension', ({ row }) => row.unpricedTokens),
  decimal('x_InputTokens', 'Extension', ({ row }) => row.tokens.input_tokens),
  decimal('x_OutputTokens', 'Extension', ({ row }) => row.tokens.output_tokens),
  decimal('x_CacheReadTokens', 'Extension', ({ row }) => row.tokens.cache_read_tokens),
  decimal('x_CacheCreationTokens', 'Extension', ({ row }) => row.tokens.cache_creation_tokens),
  decimal('x_TotalTokens', 'Extension', ({ row }) => row.tokens.total_tokens),
];

/** One row's values, column for column with FOCUS_COLUMNS. */
export function focusValues(source: FocusRowSource): FocusValue[] {
  return FOCUS_COLUMNS.map((column) => column.value(source));
}
