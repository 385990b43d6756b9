// What the spend views (ui/src/components/spend-overview.tsx, on the organization and application
// pages) decide outside of rendering: the view the URL names (period, date, dimension, currency),
// the neighbouring periods from the summary's own bounds (the service owns the calendar), a spend
// column's fixed precision, a change in words and signs, and the stacked daily chart's series
// from the summary's `days` (getOrganizationSpend / getApplicationSpend with granularity=day).
// Types only, named with .js: test/dashboard/spend.test.ts loads this module under Node's resolution.
import type { components } from '../../src/generated/management.js';

export type SpendSummary = components['schemas']['SpendSummary'];
export type SpendRow = components['schemas']['SpendRow'];
export type SpendFigures = components['schemas']['SpendFigures'];
export type SpendGroupBy = SpendSummary['group_by'];
export type SpendPeriodKind = 'day' | 'week' | 'month';

export const SPEND_PERIODS: SpendPeriodKind[] = ['day', 'week', 'month'];
export const DEFAULT_SPEND_PERIOD: SpendPeriodKind = 'month';
export const DEFAULT_CURRENCY = 'USD';

/** The dimension switch's words. */
export const DIMENSION_LABELS: Record<SpendGroupBy, string> = {
  application: 'Application',
  service: 'Service',
  model: 'Model',
  sku: 'SKU',
  provider: 'Provider',
  resource_type: 'Resource type',
  attribute: 'Attribute',
};

/** Ranked rows a summary lists (the API's `limit`); the rest are its `other`. */
export const SPEND_ROW_LIMIT = 50;
/** Rows drawn in the chart, each a band; the rest are stacked as one "Other" band. */
export const SPEND_CHART_SERIES = 8;

/**
 * What the URL holds: `period=day|week|month` (default month), `date=YYYY-MM-DD` (a day of the
 * period, UTC; absent: today's period), `group_by` (one of the view's dimensions, default its
 * first) and `currency` (default USD). A hand-edited value the view does not offer falls back to
 * the default; a malformed date or currency is sent as written, for the service's 422 to name.
 */
export interface SpendView {
  period: SpendPeriodKind;
  date: string | undefined;
  groupBy: SpendGroupBy;
  currency: string;
  /** With groupBy `attribute`: the indexed attribute path (`attribute` in the URL). */
  attribute?: string;
}

/**
 * `attributes` are the indexed attribute paths the view offers besides its dimensions: the URL
 * names one as `group_by=attribute&attribute=<path>`.
 */
export function readSpendView(
  query: Record<string, string>,
  dimensions: readonly SpendGroupBy[],
  attributes: readonly string[] = [],
): SpendView {
  const period = SPEND_PERIODS.find((kind) => kind === query.period) ?? DEFAULT_SPEND_PERIOD;
  const view = { period, date: query.date || undefined, currency: query.currency || DEFAULT_CURRENCY };
  if (query.group_by === 'attribute' && query.attribute !== undefined && attributes.includes(query.attribute))
    return { ...view, groupBy: 'attribute', attribute: query.attribute };
  const groupBy = dimensions.find((dimension) => dimension === query.group_by) ?? dimensions[0] ?? 'application';
  return { period: view.period, date: view.date, groupBy, currency: view.currency };
}

/** An indexed attribute path in words: its key (`span_attributes.tenant.id` → `tenant.id`). */
export function attributeLabel(path: string): string {
  return path.slice(path.indexOf('.') + 1);
}

/** A summary's dimension in words, for a heading: the dimension's label, or the attribute's key. */
export function dimensionLabel(summary: Pick<SpendSummary, 'group_by' | 'attribute'>): string {
  return summary.group_by === 'attribute' && summary.attribute !== undefined
    ? attributeLabel(summary.attribute)
    : DIMENSION_LABELS[summary.group_by];
}

/** The query changes that store a view (defaults left out, so a plain page link means the current month). */
export function spendViewQuery(view: SpendView, dimensions: readonly SpendGroupBy[]): Record<string, string | undefined> {
  return {
    period: view.period === DEFAULT_SPEND_PERIOD ? undefined : view.period,
    date: view.date,
    group_by: view.groupBy === dimensions[0] ? undefined : view.groupBy,
    currency: view.currency === DEFAULT_CURRENCY ? undefined : view.currency,
    attribute: view.groupBy === 'attribute' ? view.attribute : undefined,
  };
}

/** The `date` of the period before and after the summary's, and whether the next one has begun. */
export function neighbourPeriods(summary: SpendSummary, now: number): { previous: string; next: string; nextStarted: boolean } {
  return {
    previous: summary.previous_start_time.slice(0, 10),
    next: summary.end_time.slice(0, 10),
    nextStarted: Date.parse(summary.end_time) <= now,
  };
}

const MONTH = new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** The period in words, UTC: `November 2026`, `2026-11-02 to 2026-11-08`, `2026-11-01`. */
export function periodLabel(summary: Pick<SpendSummary, 'period' | 'start_time' | 'end_time'>): string {
  const start = summary.start_time.slice(0, 10);
  if (summary.period === 'month') return MONTH.format(new Date(summary.start_time));
  if (summary.period === 'day') return start;
  const last = new Date(Date.parse(summary.end_time) - 86_400_000).toISOString().slice(0, 10);
  return `${start} to ${last}`;
}

/**
 * The decimals of a spend column: one number for every cell, so the column aligns, enough for
 * its smallest non-zero amount to show two significant digits; 2 to 6.
 */
export function spendDecimals(amounts: readonly number[]): number {
  const smallest = Math.min(...amounts.map(Math.abs).filter((amount) => amount > 0 && Number.isFinite(amount)));
  if (!Number.isFinite(smallest)) return 2;
  return Math.max(2, Math.min(6, Math.ceil(-Math.log10(smallest)) + 1));
}

export type ChangeDirection = 'up' | 'down' | 'same' | 'new';

/** A change against the previous period: its direction, written with a sign and an arrow, never by colour alone. */
export interface ChangeWords {
  direction: ChangeDirection;
  /** `▲`, `▼` or `=`: drawn, hidden from screen readers (the words carry it). */
  arrow: string;
  /** `up 8.6%`, `down 12.0%`, `no change`, `new, none before`. */
  words: string;
}

export function changeWords(change: SpendFigures['change'], previousSpend: number): ChangeWords {
  if (change.spend === 0) return { direction: 'same', arrow: '=', words: 'no change' };
  if (previousSpend === 0 || change.ratio === null) return { direction: 'new', arrow: '▲', words: 'new, none before' };
  const percent = `${(Math.abs(change.ratio) * 100).toFixed(1)}%`;
  return change.spend > 0
    ? { direction: 'up', arrow: '▲', words: `up ${percent}` }
    : { direction: 'down', arrow: '▼', words: `down ${percent}` };
}

/**
 * A chart's data as components/chart.tsx draws it (ChartData of analytics-series.ts, whose imports
 * Node's resolution does not follow, hence the shape written out here).
 */
export interface SpendChartData {
  /** Midnight UTC of each day, Unix seconds. */
  times: number[];
  /** Whether a row has a span on the day (the data table lists only those days). */
  listed: boolean[];
  series: Array<{ label: string; values: number[] }>;
  bucketSeconds: number;
}

/** Every UTC day of the summary's period, as Unix seconds of its midnight. */
export function periodDays(summary: Pick<SpendSummary, 'start_time' | 'end_time'>): number[] {
  const days: number[] = [];
  for (let at = Date.parse(summary.start_time); at < Date.parse(summary.end_time); at += 86_400_000) days.push(at / 1000);
  return days;
}

/**
 * The stacked chart's series: the first SPEND_CHART_SERIES rows, then "Other" (the rows past them
 * and the summary's `other`) when there is any; a day without spans is 0.
 */
export function spendChartData(
  summary: SpendSummary,
  labelOf: (value: string | null, row: SpendRow) => string,
  otherLabel: string,
): SpendChartData {
  const times = periodDays(summary);
  const indexOf = new Map(times.map((time, index) => [new Date(time * 1000).toISOString().slice(0, 10), index]));
  const listed = new Array<boolean>(times.length).fill(false);
  const valuesOf = (lists: ReadonlyArray<SpendRow['days']>): number[] => {
    const values = new Array<number>(times.length).fill(0);
    for (const days of lists)
      for (const day of days ?? []) {
        const index = indexOf.get(day.date);
        if (index === undefined) continue;
        values[index] += day.spend;
        listed[index] = true;
      }
    return values;
  };
  const drawn = summary.rows.slice(0, SPEND_CHART_SERIES);
  const folded = [...summary.rows.slice(SPEND_CHART_SERIES).map((row) => row.days), ...(summary.other ? [summary.other.days] : [])];
  const series = drawn.map((row) => ({ label: labelOf(row.value, row), values: valuesOf([row.days]) }));
  if (folded.length > 0) series.push({ label: otherLabel, values: valuesOf(folded) });
  return { times, listed, series, bucketSeconds: 86_400 };
}
