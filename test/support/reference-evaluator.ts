// A plain TypeScript reading of docs/filter-semantics.md and of openapi/engine.yaml (FilterNode,
// listTraces, getTraceMetrics), written without looking at the SQL: which stored spans a filter
// matches, which traces POST /traces lists and in what order, and the metrics POST
// /engine/metrics reports. It keeps its own field and enum lists on purpose: an oracle that
// shared the source's lists would share their mistakes. The property tests compare the service
// with it on random data. `regex` asks RE2 itself (re2js), never the service's pattern parser.
import { RE2JS } from 're2js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import {
  REFERENCE_BOOK,
  REFERENCE_BOOK_VERSION,
  referenceCost,
  referenceEntryCost,
  referenceEntryMatches,
  type ReferenceOrganizationEntry,
} from './price-reference.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SHORT_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const SHORT_STATUSES = ['UNSET', 'OK', 'ERROR'];
const NUMBER_FIELDS: Record<string, keyof SpanRow> = {
  duration_ms: 'duration_ms',
  cost: 'cost',
  'usage.amount': 'usage_amount',
  'tokens.input': 'input_tokens',
  'tokens.output': 'output_tokens',
  'tokens.cache_read': 'cache_read_tokens',
  'tokens.cache_creation': 'cache_creation_tokens',
  'tokens.total': 'total_tokens',
};
const TEXT_FIELDS: Record<string, keyof SpanRow> = {
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
  model: 'model',
  provider: 'provider',
  cost_source: 'cost_source',
  'pricing.model': 'price_model',
  'pricing.provider': 'price_provider',
  'pricing.unpriced_reason': 'unpriced_reason',
  'pricing.entry_id': 'price_entry_id',
  'pricing.currency': 'price_currency',
};

/** The attributes each GenAI field reads (openapi/engine.yaml, "Model and token usage"), the one that wins first. */
const GENAI_SOURCES = {
  model: ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name'],
  provider: ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system'],
  input_tokens: ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt'],
  output_tokens: ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion'],
  cache_read_tokens: ['gen_ai.usage.cache_read.input_tokens', 'llm.token_count.prompt_details.cache_read'],
  cache_creation_tokens: ['gen_ai.usage.cache_creation.input_tokens', 'llm.token_count.prompt_details.cache_write'],
  total_tokens: ['llm.token_count.total', 'gen_ai.usage.total_tokens'],
} as const;

export type GenAiColumns = Pick<SpanRow, keyof typeof GENAI_SOURCES>;

/** Every attribute key the GenAI fields read. */
export const GENAI_KEYS: string[] = Object.values(GENAI_SOURCES).flat();

/** The winning attribute of a field: the first of its keys set to something other than JSON null. */
function winner(attributes: Record<string, Json>, keys: readonly string[]): { value: Json } | undefined {
  const key = keys.find((candidate) => Object.prototype.hasOwnProperty.call(attributes, candidate) && attributes[candidate] !== null);
  return key === undefined ? undefined : { value: attributes[key] as Json };
}

/** A whole number from 0 to 10^12, as a JSON number or as a string of digits; otherwise no count. */
function tokenCount(value: Json): number | null {
  let count: bigint;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return null;
    count = BigInt(value);
  } else if (typeof value === 'string' && /^[0-9]+$/.test(value)) count = BigInt(value);
  else return null;
  return count >= 0n && count <= 10n ** 12n ? Number(count) : null;
}

/** The GenAI columns ingestion derives from a span's attribute map (null: a span without attributes). */
export function expectedGenAiColumns(spanAttributes: string | null): GenAiColumns {
  const attributes = spanAttributes === null ? {} : (JSON.parse(spanAttributes) as Record<string, Json>);
  const text = (keys: readonly string[]) => {
    const found = winner(attributes, keys);
    return found === undefined ? null : textForm(found.value);
  };
  const count = (keys: readonly string[]) => {
    const found = winner(attributes, keys);
    return found === undefined ? undefined : tokenCount(found.value);
  };
  const input = count(GENAI_SOURCES.input_tokens);
  const output = count(GENAI_SOURCES.output_tokens);
  const sentTotal = count(GENAI_SOURCES.total_tokens);
  const directions = [input, output].filter((value) => value !== undefined);
  let total: number | null = null;
  if (sentTotal !== undefined) total = sentTotal;
  else if (directions.length > 0 && !directions.includes(null)) {
    const sum = (directions as number[]).reduce((added, value) => added + value, 0);
    total = sum > 1e12 ? null : sum;
  }
  return {
    model: text(GENAI_SOURCES.model),
    provider: text(GENAI_SOURCES.provider),
    input_tokens: input ?? null,
    output_tokens: output ?? null,
    cache_read_tokens: count(GENAI_SOURCES.cache_read_tokens) ?? null,
    cache_creation_tokens: count(GENAI_SOURCES.cache_creation_tokens) ?? null,
    total_tokens: total,
  };
}

/** The attributes an instrumentation reports its own cost in ("Computed cost"), the one that wins first. */
const INSTRUMENTATION_COST = ['gen_ai.usage.cost', 'llm.cost.total'] as const;

/**
 * The reported cost of a span: `vendor.cost`'s numeric reading, else the first instrumentation
 * cost attribute set, when its numeric reading is a number above 0. `numeric` is ingestion's
 * reading of a numeric attribute, which the document states for `vendor.cost` by reference.
 */
export function expectedReportedCost(spanAttributes: string | null, numeric: (value: Json) => number | null): number | null {
  const attributes = spanAttributes === null ? {} : (JSON.parse(spanAttributes) as Record<string, Json>);
  const vendor = Object.prototype.hasOwnProperty.call(attributes, 'vendor.cost') ? numeric(attributes['vendor.cost'] as Json) : null;
  if (vendor !== null) return vendor;
  const found = winner(attributes, INSTRUMENTATION_COST);
  const own = found === undefined ? null : numeric(found.value);
  // A 0 is an unknown cost (OpenLIT's answer for a model it cannot price), not a free call.
  return own === null || own <= 0 ? null : own;
}

export type CostColumns = Pick<
  SpanRow,
  'cost' | 'cost_source' | 'price_model' | 'price_provider' | 'price_book' | 'unpriced_reason' | 'price_entry_id' | 'price_currency'
>;

/** The organization's entry a span meets, and the span's start (epoch milliseconds). */
export interface ReferenceOrganization {
  entry: ReferenceOrganizationEntry;
  atMs: number;
}

/**
 * A span's cost and its provenance ("Computed cost" at POST /v1/traces): the reported cost wins;
 * an LLM call the organization's entry matches is priced by it when it is in force at the span's
 * start, and is otherwise left without a price in force (the book prices none of its models); an
 * LLM call of a known model (test/support/price-reference.ts) with an input or output count is
 * priced at the reference's unit prices in USD; any other model text is one the book does not
 * know, and a provider text other than the model's own is one the book ignores.
 */
export function expectedCostColumns(reportedCost: number | null, genAi: GenAiColumns, organization?: ReferenceOrganization): CostColumns {
  const none = {
    cost: null,
    cost_source: null,
    price_model: null,
    price_provider: null,
    price_book: null,
    unpriced_reason: null,
    price_entry_id: null,
    price_currency: null,
  };
  if (reportedCost !== null) return { ...none, cost: reportedCost, cost_source: 'reported' };
  if (Object.values(genAi).every((value) => value === null)) return none;
  if (genAi.model === null) return { ...none, unpriced_reason: 'no_model' };
  if (genAi.input_tokens === null && genAi.output_tokens === null) return { ...none, unpriced_reason: 'no_usage' };
  const usage = {
    input: genAi.input_tokens ?? 0,
    output: genAi.output_tokens ?? 0,
    cache_read: genAi.cache_read_tokens ?? 0,
    cache_creation: genAi.cache_creation_tokens ?? 0,
  };
  if (organization && referenceEntryMatches(organization.entry, genAi.provider, genAi.model)) {
    const { entry, atMs } = organization;
    if (atMs < entry.valid_from) return { ...none, unpriced_reason: 'no_price_in_force' };
    const cost = referenceEntryCost(entry, usage);
    if (cost === null) return { ...none, unpriced_reason: 'invalid_usage' };
    return {
      ...none,
      cost,
      cost_source: 'computed',
      price_model: entry.model,
      price_provider: entry.provider,
      price_entry_id: entry.id,
      price_currency: entry.currency,
    };
  }
  const known = REFERENCE_BOOK.get(genAi.model);
  if (known === undefined) return { ...none, unpriced_reason: 'unknown_model' };
  const entry = genAi.provider === known.provider ? known.named : known.alone;
  const cost = referenceCost(entry, usage);
  if (cost === null) return { ...none, unpriced_reason: 'invalid_usage' };
  return {
    ...none,
    cost,
    cost_source: 'computed',
    price_model: entry.model,
    price_provider: entry.provider,
    price_book: REFERENCE_BOOK_VERSION,
    price_currency: 'USD',
  };
}

/** eq/neq on span_kind and status_code also take the enum names without their prefix. */
function spelledOut(field: string, op: string, value: string): string {
  if (op !== 'eq' && op !== 'neq') return value;
  if (field === 'span_kind' && SHORT_KINDS.includes(value)) return `SPAN_KIND_${value}`;
  if (field === 'status_code' && SHORT_STATUSES.includes(value)) return `STATUS_CODE_${value}`;
  return value;
}

/** A JSON number literal (RFC 8259) is the only text with a numeric reading. */
const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

function attribute(span: SpanRow, field: string): Json | undefined {
  const source = field.startsWith('span_attributes.') ? span.span_attributes : span.resource_attributes;
  if (source === null) return undefined;
  const key = field.slice(field.indexOf('.') + 1);
  const map = JSON.parse(source) as Record<string, Json>;
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

/** `GET`, `200`, `true`, arrays and objects as their compact JSON. */
function textForm(value: Json): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function numericReading(value: Json): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && NUMBER_TEXT.test(value)) {
    const number = Number(value);
    return Number.isFinite(number) ? number : undefined;
  }
  return undefined;
}

function compareNumbers(actual: number, op: string, wanted: number): boolean {
  switch (op) {
    case 'eq':
      return actual === wanted;
    case 'neq':
      return actual !== wanted;
    case 'gt':
      return actual > wanted;
    case 'lt':
      return actual < wanted;
    case 'gte':
      return actual >= wanted;
    case 'lte':
      return actual <= wanted;
    default:
      throw new Error(`no numeric meaning for ${op}`);
  }
}

function compareText(actual: string, op: string, wanted: string): boolean {
  switch (op) {
    case 'eq':
      return actual === wanted;
    case 'neq':
      return actual !== wanted;
    case 'contains':
      return actual.includes(wanted);
    case 'starts_with':
      return actual.startsWith(wanted);
    case 'ends_with':
      return actual.endsWith(wanted);
    // RE2's own answer (re2js, the port of RE2): the regex operator's semantics are RE2's,
    // whatever engine a database runs (a JavaScript RegExp differs on `.`, `\s`, `$`).
    case 'regex':
      return RE2JS.compile(wanted).test(actual);
    default:
      throw new Error(`no text meaning for ${op}`);
  }
}

const NUMERIC_OPS = new Set(['gt', 'lt', 'gte', 'lte']);

/** A field holds a value: a non-null column, an attribute that is set and not JSON null. */
function present(span: SpanRow, field: string): boolean {
  if (field in NUMBER_FIELDS) return span[NUMBER_FIELDS[field] as keyof SpanRow] !== null;
  if (field in TEXT_FIELDS) return span[TEXT_FIELDS[field] as keyof SpanRow] !== null;
  const actual = attribute(span, field);
  return actual !== undefined && actual !== null;
}

/** The numbers of a trace's summary that the trace-level fields read. */
export interface TraceFigures {
  duration_ms: number;
  total_cost: number;
  spans_count: number;
  error_count: number;
}

const TRACE_FIELDS: Record<string, keyof TraceFigures> = {
  'trace.duration_ms': 'duration_ms',
  'trace.total_cost': 'total_cost',
  'trace.spans_count': 'spans_count',
  'trace.error_count': 'error_count',
};

/**
 * Whether a span matches a filter given as the JSON of a request body (null: everything);
 * `trace` is the summary of the span's trace, for the trace-level fields (reads of traces only).
 */
export function spanMatches(span: SpanRow, filter: unknown, trace?: TraceFigures): boolean {
  if (filter === null || filter === undefined) return true;
  const node = filter as Record<string, unknown>;
  if (Array.isArray(node.and)) return (node.and as unknown[]).every((child) => spanMatches(span, child, trace));
  if (Array.isArray(node.or)) return (node.or as unknown[]).some((child) => spanMatches(span, child, trace));
  // `not` negates "matches", so an absent value that matches nothing matches its `not`.
  if ('not' in node) return !spanMatches(span, node.not, trace);
  const { field, op, value } = node as { field: string; op: string; value: string | number };

  // in / not_in: any eq / every neq of the elements (so, like eq/neq, nothing on an absent value).
  if (op === 'in') return (node.value as Array<string | number>).some((each) => spanMatches(span, { field, op: 'eq', value: each }, trace));
  if (op === 'not_in')
    return (node.value as Array<string | number>).every((each) => spanMatches(span, { field, op: 'neq', value: each }, trace));
  if (field in TRACE_FIELDS) {
    if (!trace) throw new Error(`${field} outside a read of traces`);
    // Never absent.
    if (op === 'exists' || op === 'not_exists') return op === 'exists';
    return compareNumbers(trace[TRACE_FIELDS[field] as keyof TraceFigures], op, Number(value));
  }
  if (op === 'exists') return present(span, field);
  if (op === 'not_exists') return !present(span, field);

  if (field in NUMBER_FIELDS) {
    const actual = span[NUMBER_FIELDS[field] as keyof SpanRow] as number | null;
    return actual !== null && compareNumbers(actual, op, Number(value));
  }
  if (field in TEXT_FIELDS) {
    const actual = span[TEXT_FIELDS[field] as keyof SpanRow] as string | null;
    if (actual === null) return false;
    return compareText(actual, op, spelledOut(field, op, value as string));
  }
  const actual = attribute(span, field);
  if (actual === undefined || actual === null) return false;
  // A JSON number compares with the numeric reading, whatever the operator.
  if (NUMERIC_OPS.has(op) || typeof value === 'number') {
    const number = numericReading(actual);
    return number !== undefined && compareNumbers(number, op, Number(value));
  }
  return compareText(textForm(actual), op, value as string);
}

function byNanos(left: string, right: string): number {
  const a = BigInt(left);
  const b = BigInt(right);
  return a < b ? -1 : a > b ? 1 : 0;
}

function byText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function inWindow(start: string, window: { startNs: bigint; endNs: bigint }): boolean {
  const nanos = BigInt(start);
  return nanos >= window.startNs && nanos < window.endNs;
}

/** POST /engine/query over all pages: matching spans of the window, newest first. */
export function expectedSpans(spans: SpanRow[], window: { startNs: bigint; endNs: bigint }, filter: unknown): SpanRow[] {
  return spans
    .filter((span) => inWindow(span.start_time_unix_nano, window) && spanMatches(span, filter))
    .sort(
      (a, b) => byNanos(b.start_time_unix_nano, a.start_time_unix_nano) || byText(a.trace_id, b.trace_id) || byText(a.span_id, b.span_id),
    );
}

export interface ExpectedTrace {
  trace_id: string;
  span_name: string;
  duration_ms: number;
  spans_count: number;
  total_cost: number;
  error_count: number;
  min_start_time_unix_nano: string;
  service_name: string | null;
  unit: string | null;
  parent_unit: string | null;
}

/** The earliest parentless span, else the earliest SPAN_KIND_SERVER span; ties by span_id. */
export function rootOf(spans: SpanRow[]): SpanRow | undefined {
  const earliest = (candidates: SpanRow[]) =>
    [...candidates].sort((a, b) => byNanos(a.start_time_unix_nano, b.start_time_unix_nano) || byText(a.span_id, b.span_id))[0];
  const parentless = spans.filter((span) => span.parent_span_id === null);
  return parentless.length > 0 ? earliest(parentless) : earliest(spans.filter((span) => span.span_kind === 'SPAN_KIND_SERVER'));
}

/** POST /traces over all pages, in its order. */
export function expectedTraces(
  spans: SpanRow[],
  window: { startNs: bigint; endNs: bigint },
  filter: unknown,
  searchChildSpans: boolean,
): ExpectedTrace[] {
  const byTrace = new Map<string, SpanRow[]>();
  for (const span of spans) byTrace.set(span.trace_id, [...(byTrace.get(span.trace_id) ?? []), span]);
  const traces: ExpectedTrace[] = [];
  for (const [traceId, members] of byTrace) {
    const root = rootOf(members);
    if (!root || !inWindow(root.start_time_unix_nano, window)) continue;
    const minStart = members.map((span) => BigInt(span.start_time_unix_nano)).reduce((a, b) => (b < a ? b : a));
    const maxEnd = members.map((span) => BigInt(span.end_time_unix_nano)).reduce((a, b) => (b > a ? b : a));
    const figures: TraceFigures = {
      duration_ms: Number(maxEnd - minStart) / 1e6,
      spans_count: members.length,
      total_cost: members.reduce((sum, span) => sum + (span.cost ?? 0), 0),
      error_count: members.filter((span) => span.status_code === 'STATUS_CODE_ERROR').length,
    };
    const matched = searchChildSpans ? members.some((span) => spanMatches(span, filter, figures)) : spanMatches(root, filter, figures);
    if (!matched) continue;
    traces.push({
      trace_id: traceId,
      span_name: root.span_name,
      ...figures,
      min_start_time_unix_nano: minStart.toString(),
      service_name: root.service_name,
      unit: root.unit,
      parent_unit: root.parent_unit,
    });
  }
  return traces.sort((a, b) => byNanos(b.min_start_time_unix_nano, a.min_start_time_unix_nano) || byText(a.trace_id, b.trace_id));
}

export interface ExpectedDistribution {
  mean: number;
  median: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
  stddev: number;
}

/**
 * PERCENTILE_CONT: position p × (n − 1) in the sorted values (0-based), linear between the
 * closest ranks. p is a whole percent so that the position is exact, not a rounded double.
 */
function percentile(sorted: number[], percent: number): number {
  const scaled = percent * (sorted.length - 1);
  const low = Math.floor(scaled / 100);
  const fraction = (scaled % 100) / 100;
  const lowValue = sorted[low] as number;
  if (fraction === 0) return lowValue;
  return lowValue + fraction * ((sorted[low + 1] as number) - lowValue);
}

export function expectedDistribution(values: number[]): ExpectedDistribution {
  if (values.length === 0) return { mean: 0, median: 0, p50: 0, p90: 0, p95: 0, p99: 0, min: 0, max: 0, stddev: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  const p50 = percentile(sorted, 50);
  return {
    mean,
    median: p50,
    p50,
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
    stddev: Math.sqrt(variance),
  };
}

/** POST /engine/metrics: over exactly the traces POST /traces?search_child_spans=true lists. */
export function expectedMetrics(spans: SpanRow[], window: { startNs: bigint; endNs: bigint }, filter: unknown) {
  const traces = expectedTraces(spans, window, filter, true);
  return {
    trace_count: traces.length,
    duration: expectedDistribution(traces.map((trace) => trace.duration_ms)),
    cost: expectedDistribution(traces.map((trace) => trace.total_cost)),
    spans_per_trace: expectedDistribution(traces.map((trace) => trace.spans_count)),
  };
}

/** A POST /engine/analytics body, as the reference reads it (defaults filled in by expectedAnalytics). */
export interface AnalyticsBody {
  grain?: 'spans' | 'traces';
  filter?: unknown;
  group_by?: string[];
  granularity?: string;
  measures: Array<{ fn: string; field?: string }>;
  order_by?: { measure: number; direction?: 'asc' | 'desc' };
  row_limit?: number;
}

export interface ExpectedAnalyticsPoint {
  bucket_start_unix_nano: string;
  values: Array<number | null>;
}

export interface ExpectedAnalytics {
  groups: Array<{ key: Record<string, string | null>; points: ExpectedAnalyticsPoint[] }>;
  other: { points: ExpectedAnalyticsPoint[] } | null;
  truncated: boolean;
}

/** One counted item: a span or a trace, as its group keys, bucket start and measure fields. */
interface AnalyticsItem {
  keys: Array<string | null>;
  start: bigint;
  figures: Record<string, number | null>;
}

function textOf(span: SpanRow, field: string): string | null {
  const column = TEXT_FIELDS[field];
  if (column !== undefined) return span[column] as string | null;
  const value = attribute(span, field);
  return value === undefined || value === null ? null : textForm(value);
}

function measureOf(items: AnalyticsItem[], measure: { fn: string; field?: string }): number | null {
  if (measure.fn === 'count') return items.length;
  const values = items
    .map((item) => item.figures[measure.field as string])
    .filter((value): value is number => value !== null && value !== undefined);
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  switch (measure.fn) {
    case 'sum':
      return values.reduce((sum, value) => sum + value, 0);
    case 'avg':
      return values.reduce((sum, value) => sum + value, 0) / values.length;
    case 'min':
      return sorted[0] as number;
    case 'max':
      return sorted[sorted.length - 1] as number;
    default:
      return percentile(sorted, Number(measure.fn.slice(1)));
  }
}

/** Null first, then by UTF-8 bytes. */
function compareKeys(a: Array<string | null>, b: Array<string | null>): number {
  for (let index = 0; index < a.length; index += 1) {
    const left = a[index] as string | null;
    const right = b[index] as string | null;
    if (left === right) continue;
    if (left === null) return -1;
    if (right === null) return 1;
    const order = Buffer.compare(Buffer.from(left), Buffer.from(right));
    if (order !== 0) return order;
  }
  return 0;
}

/** POST /engine/analytics, computed plainly from the spans, for a given bucket width. */
export function expectedAnalytics(
  spans: SpanRow[],
  window: { startNs: bigint; endNs: bigint },
  body: AnalyticsBody,
  widthNs: bigint,
): ExpectedAnalytics {
  const groupBy = body.group_by ?? [];
  const items: AnalyticsItem[] =
    (body.grain ?? 'spans') === 'spans'
      ? expectedSpans(spans, window, body.filter ?? null).map((span) => ({
          keys: groupBy.map((field) => textOf(span, field)),
          start: BigInt(span.start_time_unix_nano),
          figures: Object.fromEntries(Object.entries(NUMBER_FIELDS).map(([field, column]) => [field, span[column] as number | null])),
        }))
      : expectedTraces(spans, window, body.filter ?? null, true).map((trace) => {
          const root = rootOf(spans.filter((span) => span.trace_id === trace.trace_id)) as SpanRow;
          return {
            keys: groupBy.map((field) => trace[field as 'service_name' | 'span_name' | 'unit' | 'parent_unit']),
            start: BigInt(root.start_time_unix_nano),
            figures: {
              duration_ms: trace.duration_ms,
              total_cost: trace.total_cost,
              spans_count: trace.spans_count,
              error_count: trace.error_count,
            },
          };
        });
  const series = (members: AnalyticsItem[]): ExpectedAnalyticsPoint[] => {
    const buckets = new Map<bigint, AnalyticsItem[]>();
    for (const item of members) {
      const bucket = window.startNs + ((item.start - window.startNs) / widthNs) * widthNs;
      buckets.set(bucket, [...(buckets.get(bucket) ?? []), item]);
    }
    return [...buckets.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([bucket, inBucket]) => ({
        bucket_start_unix_nano: bucket.toString(),
        values: body.measures.map((measure) => measureOf(inBucket, measure)),
      }));
  };
  const keyRecord = (keys: Array<string | null>) => Object.fromEntries(groupBy.map((field, index) => [field, keys[index] ?? null]));
  if (groupBy.length === 0) return { groups: [{ key: {}, points: series(items) }], other: null, truncated: false };
  const groups = new Map<string, AnalyticsItem[]>();
  for (const item of items) groups.set(JSON.stringify(item.keys), [...(groups.get(JSON.stringify(item.keys)) ?? []), item]);
  const order = body.order_by ?? { measure: 0 };
  const descending = (order.direction ?? 'desc') === 'desc';
  const ranked = [...groups.values()]
    .map((members) => ({
      keys: (members[0] as AnalyticsItem).keys,
      members,
      rank: measureOf(members, body.measures[order.measure] as { fn: string; field?: string }),
    }))
    .sort((a, b) => {
      if (a.rank !== b.rank) {
        if (a.rank === null) return 1;
        if (b.rank === null) return -1;
        return descending ? b.rank - a.rank : a.rank - b.rank;
      }
      return compareKeys(a.keys, b.keys);
    });
  const limit = body.row_limit ?? 10;
  const kept = ranked.slice(0, limit);
  const rest = ranked.slice(limit);
  return {
    groups: kept.map((group) => ({ key: keyRecord(group.keys), points: series(group.members) })),
    other: rest.length === 0 ? null : { points: series(rest.flatMap((group) => group.members)) },
    truncated: rest.length > 0,
  };
}
