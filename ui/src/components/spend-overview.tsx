// The "Spend" section of the organization page (per application) and the application page (per
// service, model, SKU, provider, resource type or indexed attribute): one spend summary with its daily breakdown
// (getOrganizationSpend / getApplicationSpend, granularity=day) as a ranked table with the change
// against the previous period, the unpriced LLM calls, and a stacked chart of the spend per day.
// The view (period, date, dimension, currency) lives in the URL (ui/src/spend.ts).
import { useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { call, management } from '../api';
import { OTHER_LABEL, NO_VALUE_LABEL } from '../analytics-series';
import { listApplications } from '../applications';
import { formatCount, formatFixed, formatMoney, formatShare } from '../metrics-format';
import {
  attributeLabel,
  changeWords,
  DIMENSION_LABELS,
  dimensionLabel,
  neighbourPeriods,
  periodLabel,
  readSpendView,
  SPEND_PERIODS,
  SPEND_ROW_LIMIT,
  spendChartData,
  spendDecimals,
  spendViewQuery,
  type SpendFigures,
  type SpendGroupBy,
  type SpendPeriodKind,
  type SpendSummary,
  type SpendView,
} from '../spend';
import { useAsync } from '../use-async';
import { withQuery } from './application-picker';
import { Chart } from './chart';

const PERIOD_LABELS: Record<SpendPeriodKind, string> = { day: 'Day', week: 'Week', month: 'Month' };
/** One empty map, so that the chart's series are not computed anew on every render. */
const NO_NAMES = new Map<string, string>();
const NO_ATTRIBUTES: string[] = [];
/** The row of the spans whose attribute value the index does not keep (SpendRow.unkept). */
const UNKEPT_LABEL = '(not a short string)';

export interface SpendOverviewProps {
  organizationId: string;
  /** On an application's page: its spend; otherwise the organization's. */
  applicationId?: string;
  /** The dimensions offered, the default first. */
  dimensions: SpendGroupBy[];
  /** The indexed attribute paths offered after them (group_by=attribute), on an application's page. */
  attributes?: string[];
}

function loadSpend(organizationId: string, applicationId: string | undefined, view: SpendView): Promise<SpendSummary> {
  const query = {
    period: view.period,
    date: view.date,
    group_by: view.groupBy,
    attribute: view.attribute,
    currency: view.currency,
    limit: SPEND_ROW_LIMIT,
    granularity: 'day' as const,
  };
  return applicationId
    ? call(management.GET('/applications/{app_id}/spend', { params: { path: { app_id: applicationId }, query } }))
    : call(management.GET('/organizations/{org_id}/spend', { params: { path: { org_id: organizationId }, query } }));
}

/** The names of the organization's applications, when the rows are applications. */
async function applicationNames(organizationId: string, needed: boolean): Promise<Map<string, string>> {
  if (!needed) return new Map();
  return new Map((await listApplications(organizationId)).map((application) => [application.id, application.name]));
}

function ChangeCell({ figures, currency, decimals }: { figures: SpendFigures; currency: string; decimals: number }) {
  const change = changeWords(figures.change, figures.previous.spend);
  const sign = figures.change.spend > 0 ? '+' : figures.change.spend < 0 ? '−' : '';
  return (
    <td class={`number change change-${change.direction}`} data-direction={change.direction} data-value={figures.change.spend}>
      <span aria-hidden="true">{change.arrow}</span> {sign}
      {formatMoney(Math.abs(figures.change.spend), currency, decimals)} ({change.words})
    </td>
  );
}

/** The figures of a row, `other` or the totals, after their first cell. */
function FigureCells({
  figures,
  share,
  currency,
  decimals,
}: {
  figures: SpendFigures;
  share: number | null;
  currency: string;
  decimals: number;
}) {
  return (
    <>
      <td class="number" data-column="spend" data-value={figures.spend}>
        {formatMoney(figures.spend, currency, decimals)}
      </td>
      <td class="number" data-column="share" data-value={share ?? ''}>
        {share === null ? '–' : formatShare(share)}
      </td>
      <td class="number" data-column="spans" data-value={figures.spans}>
        {formatCount(figures.spans)}
      </td>
      <td class="number" data-column="tokens" data-value={figures.tokens.total}>
        {formatCount(figures.tokens.total)}
      </td>
      <td class="number" data-column="previous" data-value={figures.previous.spend}>
        {formatMoney(figures.previous.spend, currency, decimals)}
      </td>
      <ChangeCell figures={figures} currency={currency} decimals={decimals} />
    </>
  );
}

function SpendTable({ summary, names }: { summary: SpendSummary; names: Map<string, string> }) {
  const { currency } = summary;
  const decimals = spendDecimals([
    ...summary.rows.flatMap((row) => [row.spend, row.previous.spend, row.change.spend]),
    ...(summary.other ? [summary.other.spend, summary.other.previous.spend, summary.other.change.spend] : []),
    summary.totals.spend,
    summary.totals.previous.spend,
  ]);
  const dimension = dimensionLabel(summary);
  const valueCell = (value: string | null, unkept?: boolean) => {
    if (value === null) return <span class="muted">{unkept ? UNKEPT_LABEL : NO_VALUE_LABEL}</span>;
    if (summary.group_by === 'application') return <a href={`/ui/applications/${value}`}>{names.get(value) ?? value}</a>;
    return value;
  };
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label="Spend table">
      <table class="management-table spend-table" data-testid="spend-table">
        <caption>
          Spend by {summary.group_by === 'attribute' ? dimension : dimension.toLowerCase()}, {periodLabel(summary)} (UTC), in {currency},
          with the change against the previous {summary.period}
        </caption>
        <thead>
          <tr>
            <th scope="col">{dimension}</th>
            <th scope="col" class="number">
              Spend
            </th>
            <th scope="col" class="number">
              Share
            </th>
            <th scope="col" class="number">
              Spans
            </th>
            <th scope="col" class="number">
              Tokens
            </th>
            <th scope="col" class="number">
              Previous {summary.period}
            </th>
            <th scope="col" class="number">
              Change
            </th>
          </tr>
        </thead>
        <tbody>
          {summary.rows.map((row) => (
            <tr key={row.unkept ? '\u0000unkept' : (row.value ?? '')} data-value={row.value ?? ''}>
              <th scope="row">{valueCell(row.value, row.unkept)}</th>
              <FigureCells figures={row} share={row.share} currency={currency} decimals={decimals} />
            </tr>
          ))}
        </tbody>
        <tfoot>
          {summary.other && (
            <tr data-testid="spend-other">
              <th scope="row">
                {OTHER_LABEL} ({formatCount(summary.other.values)} {summary.other.values === 1 ? 'value' : 'values'})
              </th>
              <FigureCells figures={summary.other} share={summary.other.share} currency={currency} decimals={decimals} />
            </tr>
          )}
          <tr data-testid="spend-totals">
            <th scope="row">Total</th>
            <FigureCells figures={summary.totals} share={summary.totals.spend === 0 ? null : 1} currency={currency} decimals={decimals} />
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

function SpendChart({ summary, names }: { summary: SpendSummary; names: Map<string, string> }) {
  const data = useMemo(
    () =>
      spendChartData(
        summary,
        (value, row) => (value === null ? (row.unkept ? UNKEPT_LABEL : NO_VALUE_LABEL) : (names.get(value) ?? value)),
        OTHER_LABEL,
      ),
    [summary, names],
  );
  const decimals = spendDecimals(data.series.flatMap((series) => series.values.filter((value): value is number => value !== null)));
  const format = useMemo(() => (value: number) => formatFixed(value, decimals), [decimals]);
  return (
    <Chart
      id="spend-chart"
      title={`Spend per day by ${summary.group_by === 'attribute' ? dimensionLabel(summary) : dimensionLabel(summary).toLowerCase()}, ${periodLabel(summary)} (UTC)`}
      data={data}
      unit={summary.currency}
      format={format}
      otherLabel={OTHER_LABEL}
      stacked
      utcDays
    />
  );
}

export function SpendOverview({ organizationId, applicationId, dimensions, attributes = NO_ATTRIBUTES }: SpendOverviewProps) {
  const { path, query, route } = useLocation();
  const view = readSpendView(query, dimensions, attributes);
  // The dimension switch: the dimensions, then each indexed attribute by its key.
  const choices = [
    ...dimensions.map((groupBy) => ({ value: groupBy, groupBy, attribute: undefined, label: DIMENSION_LABELS[groupBy] })),
    ...attributes.map((attribute) => ({ value: attribute, groupBy: 'attribute' as const, attribute, label: attributeLabel(attribute) })),
  ];
  const go = (changes: Partial<SpendView>) => route(withQuery(path, query, spendViewQuery({ ...view, ...changes }, dimensions)));
  const spend = useAsync(
    () => loadSpend(organizationId, applicationId, view),
    [organizationId, applicationId, view.period, view.date, view.groupBy, view.attribute, view.currency],
  );
  const byApplication = view.groupBy === 'application';
  const names = useAsync(() => applicationNames(organizationId, byApplication), [organizationId, byApplication]);
  const summary = spend.data;
  const neighbours = summary && neighbourPeriods(summary, Date.now());
  const currencies = [...new Set(['USD', view.currency, ...(summary?.other_currencies.map((other) => other.currency) ?? [])])].sort();
  const unpricedLink = `/ui/organizations/${organizationId}/prices${applicationId ? `?app=${applicationId}` : ''}#unpriced-calls`;

  return (
    <div class="spend" data-testid="spend" aria-busy={spend.loading ? 'true' : 'false'}>
      <form class="inline-form spend-controls" aria-label="Spend view" onSubmit={(event) => event.preventDefault()}>
        <fieldset class="segmented">
          <legend>Period</legend>
          {SPEND_PERIODS.map((kind) => (
            <label key={kind}>
              <input type="radio" name="spend-period" value={kind} checked={view.period === kind} onChange={() => go({ period: kind })} />
              {PERIOD_LABELS[kind]}
            </label>
          ))}
        </fieldset>
        {choices.length > 1 && (
          <fieldset class="segmented">
            <legend>By</legend>
            {choices.map((choice) => (
              <label key={choice.value}>
                <input
                  type="radio"
                  name="spend-dimension"
                  value={choice.value}
                  checked={view.groupBy === choice.groupBy && view.attribute === choice.attribute}
                  onChange={() => go({ groupBy: choice.groupBy, attribute: choice.attribute })}
                />
                {choice.label}
              </label>
            ))}
          </fieldset>
        )}
        <label>
          Currency
          <select value={view.currency} onChange={(event) => go({ currency: (event.target as HTMLSelectElement).value })}>
            {currencies.map((currency) => (
              <option key={currency} value={currency}>
                {currency}
              </option>
            ))}
          </select>
        </label>
      </form>
      {spend.error && (
        <p role="alert" class="error">
          The spend could not be loaded: {spend.error.message}
        </p>
      )}
      {!summary && !spend.error && <p aria-busy="true">Loading the spend…</p>}
      {summary && neighbours && (
        <>
          <div class="spend-period" role="group" aria-label="Period shown">
            <button type="button" onClick={() => go({ date: neighbours.previous })}>
              ‹ Previous {summary.period}
            </button>
            <strong data-testid="spend-period">{periodLabel(summary)} (UTC)</strong>
            <button type="button" disabled={!neighbours.nextStarted} onClick={() => go({ date: neighbours.next })}>
              Next {summary.period} ›
            </button>
            {view.date !== undefined && (
              <button type="button" onClick={() => go({ date: undefined })}>
                This {summary.period}
              </button>
            )}
          </div>
          <p data-testid="spend-unpriced">
            {summary.totals.unpriced.spans === 0 ? (
              'No LLM call left unpriced in this period.'
            ) : (
              <>
                {formatCount(summary.totals.unpriced.spans)} LLM {summary.totals.unpriced.spans === 1 ? 'call' : 'calls'} left unpriced (
                {formatCount(summary.totals.unpriced.tokens)} tokens), not counted in the spend.{' '}
                <a href={unpricedLink}>See the unpriced calls on the prices page</a>
              </>
            )}
          </p>
          {summary.other_currencies.length > 0 && (
            <p class="muted" data-testid="spend-other-currencies">
              Also spent in other currencies:{' '}
              {summary.other_currencies
                .map(
                  (other) =>
                    `${formatMoney(other.spend, other.currency, spendDecimals([other.spend]))} (${formatCount(other.spans)} ${other.spans === 1 ? 'span' : 'spans'})`,
                )
                .join(', ')}
              .
            </p>
          )}
          {summary.rows.length === 0 ? (
            <p class="muted">No span in this {summary.period}.</p>
          ) : (
            <>
              <SpendTable summary={summary} names={names.data ?? NO_NAMES} />
              <SpendChart summary={summary} names={names.data ?? NO_NAMES} />
            </>
          )}
        </>
      )}
    </div>
  );
}
