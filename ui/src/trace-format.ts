// How the trace views write durations, costs and attribute values: short, exact enough to compare
// at a glance, and the same in the list, the waterfall and the span panel (times: time-format.ts).

/** A duration given in milliseconds: `850 µs`, `12.4 ms`, `1.52 s`, `2 min 3.4 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms === 0) return '0';
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${Number(ms.toPrecision(3))} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toPrecision(3))} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Number(((ms - minutes * 60_000) / 1000).toFixed(1))} s`;
}

/**
 * The currency a cost is written in when the span names none. A computed cost names its price's
 * currency; a reported cost names none and counts as USD, as the spend summaries count it
 * (management API, `SpendSummary`). Sums of a trace or a page add whatever the spans carry.
 */
export const DEFAULT_COST_CURRENCY = 'USD';

/** A span's cost currency: a computed cost's price currency, else USD. */
export function spanCostCurrency(span: { pricing: { currency: string | null } }): string {
  return span.pricing.currency ?? DEFAULT_COST_CURRENCY;
}

/** The fewest and most decimals a cost column gets; smaller non-zero costs read `< 0.00000001`. */
const MIN_COST_DECIMALS = 2;
const MAX_COST_DECIMALS = 8;

/**
 * The decimals of a column of costs: one number for every cell, so the column aligns, enough for
 * its smallest non-zero cost to show two significant digits (`0.0045` → 4), 2 to 8.
 */
export function costDecimals(costs: ReadonlyArray<number | null | undefined>): number {
  let smallest = Infinity;
  for (const cost of costs) {
    if (typeof cost === 'number' && Number.isFinite(cost) && cost !== 0) smallest = Math.min(smallest, Math.abs(cost));
  }
  if (!Number.isFinite(smallest)) return MIN_COST_DECIMALS;
  return Math.max(MIN_COST_DECIMALS, Math.min(MAX_COST_DECIMALS, Math.ceil(-Math.log10(smallest)) + 1));
}

const COST_FORMATS = new Map<number, Intl.NumberFormat>();

/**
 * A cost with a column's decimals and its currency: `0.0045 USD`, `1,204.50 USD`; `—` for none.
 * The float noise of a sum (`0.004482679999999999`) goes in the rounding; a non-zero cost too small
 * for the decimals is `< 0.00000001 USD`, never `0`.
 */
export function formatCost(cost: number | null | undefined, decimals: number, currency: string = DEFAULT_COST_CURRENCY): string {
  if (cost === null || cost === undefined || !Number.isFinite(cost)) return '—';
  let format = COST_FORMATS.get(decimals);
  if (!format) {
    format = new Intl.NumberFormat('en', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    COST_FORMATS.set(decimals, format);
  }
  const step = 10 ** -decimals;
  if (cost !== 0 && Math.abs(cost) < step / 2) return `${cost < 0 ? '> -' : '< '}${format.format(step)} ${currency}`;
  return `${format.format(cost)} ${currency}`;
}

const SINGLE_COST = new Intl.NumberFormat('en', { minimumFractionDigits: MIN_COST_DECIMALS, maximumFractionDigits: MAX_COST_DECIMALS });

/**
 * One cost on its own (the span panel, a bar, a trace's summary), where no column asks for a shared
 * precision: as many decimals as it has, 2 to 8 (`0.00135408 EUR`, `4.75 USD`), float noise rounded away.
 */
export function formatSingleCost(cost: number | null | undefined, currency: string = DEFAULT_COST_CURRENCY): string {
  if (cost === null || cost === undefined || !Number.isFinite(cost)) return '—';
  if (cost !== 0 && Math.abs(cost) < 10 ** -MAX_COST_DECIMALS / 2) return formatCost(cost, MAX_COST_DECIMALS, currency);
  return `${SINGLE_COST.format(cost)} ${currency}`;
}

/** An attribute value as text: strings as they are, anything else as its JSON. */
export function attributeText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
