// getOrganizationSpend (GET /organizations/{org_id}/spend) and getApplicationSpend
// (GET /applications/{app_id}/spend): the period parsed (src/request/spend-period.ts), the spend
// per value (and, with granularity=day, per UTC day) read from the spend roll-ups
// (src/storage/spend/), then ranked, cut at `limit` and shaped here (SpendSummary in
// openapi/management.yaml says how each figure counts). Grouped by an indexed attribute, the
// applications that keep it in a ready slot are read (SpendAttribute says what becomes of the
// others).
import type { components, operations } from '../generated/management.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { attributeError, spendAttribute } from '../request/spend-attribute.js';
import { spendPeriod, type SpendPeriodQuery } from '../request/spend-period.js';
import { activeIndexedAttributesOf, findActiveApplication } from '../storage/accounts/applications.js';
import { NO_INDEXED_ATTRIBUTES, slotOfPath, type IndexedAttributesState } from '../storage/accounts/indexed-attributes.js';
import { readSpend, type SlotKey, type SpendDay, type SpendKey, type SpendValueFigures } from '../storage/spend/spend-reads.js';
import { toIsoRequired } from '../storage/time.js';

type Schemas = components['schemas'];
type GroupBy = Schemas['SpendSummary']['group_by'];

type Unindexed = NonNullable<Schemas['SpendSummary']['unindexed_applications']>[number];

const KEY_OF: Record<Exclude<GroupBy, 'attribute'>, SpendKey> = {
  application: 'application_id',
  service: 'service_name',
  model: 'model',
  provider: 'provider',
  sku: 'billing_sku_id',
  resource_type: 'billing_resource_type',
};

const DEFAULT_LIMIT = 50;
const NS_PER_MS = 1_000_000n;

/** Ranked by spend, then spans (both descending), then value by its UTF-8 bytes with null first (no value before an unkept one). */
export function compareSpendValues(a: SpendValueFigures, b: SpendValueFigures): number {
  if (a.spend !== b.spend) return b.spend - a.spend;
  if (a.spans !== b.spans) return b.spans - a.spans;
  if (a.value === null && b.value === null) return Number(a.unkept ?? false) - Number(b.unkept ?? false);
  if (a.value === null || b.value === null) return a.value === null ? -1 : 1;
  return Buffer.compare(Buffer.from(a.value), Buffer.from(b.value));
}

/** The days of several values added up, in order (each listed where one of the values is). */
export function sumDays(values: readonly SpendValueFigures[]): SpendDay[] {
  const byDay = new Map<bigint, number>();
  for (const value of values) for (const day of value.days ?? []) byDay.set(day.startNs, (byDay.get(day.startNs) ?? 0) + day.spend);
  return [...byDay.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([startNs, spend]) => ({ startNs, spend }));
}

function daysOf(days: readonly SpendDay[]): Schemas['SpendDay'][] {
  return days.map((day) => ({ date: toIsoRequired(Number(day.startNs / NS_PER_MS)).slice(0, 10), spend: day.spend }));
}

/** The figures of several values added up (the value is dropped). */
export function sumOf(values: readonly SpendValueFigures[]): Omit<SpendValueFigures, 'value'> {
  const total = {
    spend: 0,
    spans: 0,
    traces: 0,
    spansWithCost: 0,
    tokens: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, total_tokens: 0 },
    unpricedSpans: 0,
    unpricedTokens: 0,
    previousSpend: 0,
    previousSpans: 0,
  };
  for (const value of values) {
    total.spend += value.spend;
    total.spans += value.spans;
    total.traces += value.traces;
    total.spansWithCost += value.spansWithCost;
    for (const column of Object.keys(total.tokens) as Array<keyof typeof total.tokens>) total.tokens[column] += value.tokens[column];
    total.unpricedSpans += value.unpricedSpans;
    total.unpricedTokens += value.unpricedTokens;
    total.previousSpend += value.previousSpend;
    total.previousSpans += value.previousSpans;
  }
  return total;
}

function figuresOf(figures: Omit<SpendValueFigures, 'value'>): Schemas['SpendFigures'] {
  const change = figures.spend - figures.previousSpend;
  return {
    spend: figures.spend,
    spans: figures.spans,
    traces: figures.traces,
    spans_with_cost: figures.spansWithCost,
    tokens: {
      input: figures.tokens.input_tokens,
      output: figures.tokens.output_tokens,
      cache_read: figures.tokens.cache_read_tokens,
      cache_creation: figures.tokens.cache_creation_tokens,
      total: figures.tokens.total_tokens,
    },
    unpriced: { spans: figures.unpricedSpans, tokens: figures.unpricedTokens },
    previous: { spend: figures.previousSpend, spans: figures.previousSpans },
    change: { spend: change, ratio: figures.previousSpend === 0 ? null : change / figures.previousSpend },
  };
}

interface SummaryQuery extends SpendPeriodQuery {
  group_by?: GroupBy;
  attribute?: string;
  currency?: string;
  limit?: number;
  granularity?: 'day';
}

/** What a summary reads: its applications, and the key (a column, or an indexed attribute's slot per application). */
interface SummaryScope {
  applicationIds: readonly string[];
  key: SpendKey | SlotKey;
}

/** The scope of a summary over some applications with their indexed attributes, and those an attribute leaves out. */
function scopeOf(
  applications: ReadonlyArray<{ id: string; indexedAttributes: IndexedAttributesState }>,
  groupBy: GroupBy,
  attribute: string | undefined,
): SummaryScope & { unindexed: Unindexed[] } {
  if (groupBy !== 'attribute' || attribute === undefined)
    return {
      applicationIds: applications.map((application) => application.id),
      key: KEY_OF[groupBy === 'attribute' ? 'application' : groupBy],
      unindexed: [],
    };
  const slots = new Map<string, NonNullable<ReturnType<typeof slotOfPath>>['slot']>();
  const unindexed: Unindexed[] = [];
  for (const application of applications) {
    const found = slotOfPath(application.indexedAttributes, attribute);
    if (found?.ready) slots.set(application.id, found.slot);
    else unindexed.push({ application_id: application.id, reason: found ? 'backfill_running' : 'not_indexed' });
  }
  return { applicationIds: [...slots.keys()], key: { slots }, unindexed };
}

/** The summary of the applications' spend, without its scope (organization_id or application_id). */
async function spendSummary(deps: ServiceDeps, scope: SummaryScope, query: SummaryQuery): Promise<Schemas['SpendSummary']> {
  const period = spendPeriod(query, (deps.clock ?? Date.now)());
  const groupBy = query.group_by ?? 'application';
  const currency = query.currency ?? 'USD';
  const limit = query.limit ?? DEFAULT_LIMIT;
  const daily = query.granularity === 'day';
  const read = await readSpend(deps.knex, { ...scope, ...period, currency, daily });
  const totals = sumOf(read.values);
  const share = (spend: number) => (totals.spend === 0 ? null : spend / totals.spend);
  // A value seen only in the previous period counts in the totals, not as a row.
  const ranked = read.values.filter((value) => value.spans > 0).sort(compareSpendValues);
  const rest = ranked.slice(limit);
  const restFigures = sumOf(rest);
  const iso = (ns: bigint) => toIsoRequired(Number(ns / NS_PER_MS));
  return {
    period: query.period ?? 'month',
    start_time: iso(period.startNs),
    end_time: iso(period.endNs),
    previous_start_time: iso(period.previousStartNs),
    previous_end_time: iso(period.startNs),
    group_by: groupBy,
    ...(query.attribute !== undefined && { attribute: query.attribute }),
    currency,
    rows: ranked.slice(0, limit).map((value) => ({
      value: value.value,
      ...(value.unkept && { unkept: true as const }),
      share: share(value.spend),
      ...figuresOf(value),
      ...(daily && { days: daysOf(value.days ?? []) }),
    })),
    other:
      rest.length === 0
        ? null
        : {
            values: rest.length,
            share: share(restFigures.spend),
            ...figuresOf(restFigures),
            ...(daily && { days: daysOf(sumDays(rest)) }),
          },
    totals: figuresOf(totals),
    other_currencies: read.otherCurrencies,
  };
}

export function getOrganizationSpend(deps: ServiceDeps): OperationHandler<operations['getOrganizationSpend']> {
  return async (request) => {
    // Authorization has found the organization and the caller a member of it.
    const organizationId = request.params.org_id;
    const query = request.query ?? {};
    const attribute = spendAttribute(query);
    const scope = scopeOf(await activeIndexedAttributesOf(deps.knex, organizationId), query.group_by ?? 'application', attribute);
    if (attribute !== undefined && scope.applicationIds.length === 0)
      throw attributeError(
        `no application of the organization indexes ${attribute} with its backfill done: add it to an application's indexed_attributes (PATCH /applications/{app_id})`,
      );
    const summary = await spendSummary(deps, scope, query);
    return {
      status: 200,
      body: { organization_id: organizationId, ...summary, ...(attribute !== undefined && { unindexed_applications: scope.unindexed }) },
    };
  };
}

export function getApplicationSpend(deps: ServiceDeps): OperationHandler<operations['getApplicationSpend']> {
  return async (request) => {
    // Authorization has found the application active and the caller allowed on it.
    const applicationId = request.params.app_id;
    const query = request.query ?? {};
    const attribute = spendAttribute(query);
    const application = attribute === undefined ? undefined : await findActiveApplication(deps.knex, applicationId);
    const indexedAttributes = application?.indexed_attributes ?? NO_INDEXED_ATTRIBUTES;
    const scope = scopeOf([{ id: applicationId, indexedAttributes }], query.group_by ?? 'application', attribute);
    const [unindexed] = scope.unindexed;
    if (unindexed?.reason === 'not_indexed')
      throw attributeError(
        `${attribute} is not indexed by this application: add it to its indexed_attributes (PATCH /applications/${applicationId}), then group by it once its backfill is done`,
      );
    if (unindexed?.reason === 'backfill_running')
      throw attributeError(
        `${attribute} is indexed, but the backfill of the spans stored before is still running: try again once it is done`,
      );
    const summary = await spendSummary(deps, scope, query);
    return { status: 200, body: { application_id: applicationId, ...summary } };
  };
}
