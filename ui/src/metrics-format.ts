// How the metrics and live views write numbers: counts as integers, durations in milliseconds,
// costs with six significant digits (the service stores costs as the exporters send them, in no
// fixed currency), always with the unit beside the number or in the column header.
const COUNT = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const DECIMAL = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const COST = new Intl.NumberFormat('en', { maximumSignificantDigits: 6 });
const TIME = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' });

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

/** A moment in the browser's local time, to the second. */
export function formatTime(date: Date): string {
  return TIME.format(date);
}

/** A moment in the browser's local time with milliseconds (spans are often shorter than a second). */
export function formatTimeWithMs(date: Date): string {
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}
