// The billing period of a FOCUS export (exportOrganizationFocus): a UTC calendar month written
// `YYYY-MM`. The document's pattern rejects other shapes; a month that has not begun is a 422
// here (nothing can be in it), a month in progress is exported as far as it has spans.
import { RequestValidationError } from '../errors.js';

export interface BillingPeriod {
  /** [startNs, endNs): the month, nanoseconds since the epoch on UTC midnights. */
  startNs: bigint;
  endNs: bigint;
  /** The month as sent, `YYYY-MM`. */
  month: string;
}

const NS_PER_MS = 1_000_000n;

/** First instant of a UTC month, epoch milliseconds (years below 100 too, which Date.UTC would shift). */
function monthStart(year: number, monthIndex: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, 1);
  return date.getTime();
}

export function billingPeriod(text: string, nowMs: number): BillingPeriod {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(text);
  if (!match)
    throw new RequestValidationError([
      { loc: ['query', 'billing_period'], msg: 'billing_period must be a UTC calendar month YYYY-MM', type: 'value_error' },
    ]);
  const [year, monthIndex] = [Number(match[1]), Number(match[2]) - 1];
  const start = monthStart(year, monthIndex);
  if (start > nowMs)
    throw new RequestValidationError([
      { loc: ['query', 'billing_period'], msg: 'billing_period must not be a month that has not begun (UTC)', type: 'value_error' },
    ]);
  return { startNs: BigInt(start) * NS_PER_MS, endNs: BigInt(monthStart(year, monthIndex + 1)) * NS_PER_MS, month: text };
}
