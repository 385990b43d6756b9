// How the metrics, live and spend views write numbers: counts as integers with digit grouping,
// durations in milliseconds, chart costs with six significant digits, spend in its currency with
// one fixed precision per column, always with the unit beside the number or in the column header
// (times: time-format.ts; trace costs: trace-format.ts).
const COUNT = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const DECIMAL = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const COST = new Intl.NumberFormat('en', { maximumSignificantDigits: 6 });

export function formatCount(value: number): string {
  return COUNT.format(value);
}

/** Spans per trace and the like: up to two decimals. */
export function formatDecimal(value: number): string {
  return DECIMAL.format(value);
}

export function formatDurationMs(value: number): string {
  return `${DECIMAL.format(value)} ms`;
}

export function formatCost(value: number): string {
  return COST.format(value);
}

const FIXED = new Map<number, Intl.NumberFormat>();

/** An amount with exactly `decimals` decimals (and thousands separators), so a column of them aligns. */
export function formatFixed(value: number, decimals: number): string {
  let format = FIXED.get(decimals);
  if (!format) {
    format = new Intl.NumberFormat('en', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    FIXED.set(decimals, format);
  }
  return format.format(value);
}

/** Spend in a currency, as the span panel writes a computed cost: `412.50 USD`. */
export function formatMoney(value: number, currency: string, decimals: number): string {
  return `${formatFixed(value, decimals)} ${currency}`;
}

/** A share of a total (0 to 1) as a percentage with one decimal: `82.5%`. */
export function formatShare(ratio: number): string {
  return `${formatFixed(ratio * 100, 1)}%`;
}
