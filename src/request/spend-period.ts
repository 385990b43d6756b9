// The period of a spend summary (getOrganizationSpend, getApplicationSpend): a UTC day, ISO week
// (from Monday) or calendar month holding a date, or a custom window on whole UTC hours of at most
// 366 days; and the period just before it (the previous calendar month for a month, otherwise
// the same length). Every problem is a 422 at the parameter that causes it.
import { RequestValidationError, type ValidationIssue } from '../errors.js';
import { rfc3339ToNanos } from './time-window.js';

export type SpendPeriodKind = 'day' | 'week' | 'month' | 'custom';

export interface SpendPeriod {
  /** [startNs, endNs): the period; [previousStartNs, startNs): the one before. Nanoseconds on whole hours. */
  previousStartNs: bigint;
  startNs: bigint;
  endNs: bigint;
}

export interface SpendPeriodQuery {
  period?: SpendPeriodKind;
  date?: string;
  start_time?: string;
  end_time?: string;
}

const NS_PER_MS = 1_000_000n;
const HOUR_NS = 3_600_000_000_000n;
const DAY_MS = 86_400_000;
const MAX_CUSTOM_NS = 366n * 24n * HOUR_NS;

function invalid(issues: ValidationIssue[]): never {
  throw new RequestValidationError(issues);
}

/** Midnight UTC of a calendar date, epoch milliseconds (years below 100 too, which Date.UTC would shift). */
function utcDay(year: number, monthIndex: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date.getTime();
}

/** The date's parts, or a 422 at `["query","date"]` for a day the calendar does not have. */
function dateParts(text: string): [year: number, monthIndex: number, day: number] {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const at = new Date(utcDay(year, month - 1, day));
  if (!match || at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day)
    invalid([{ loc: ['query', 'date'], msg: 'date must be a calendar date YYYY-MM-DD (UTC)', type: 'value_error' }]);
  return [year, month - 1, day];
}

const nanos = (millis: number): bigint => BigInt(millis) * NS_PER_MS;

/** The period the query names, with `nowMs` for the default date (today, UTC). */
export function spendPeriod(query: SpendPeriodQuery, nowMs: number): SpendPeriod {
  const kind = query.period ?? 'month';
  if (kind === 'custom') return customPeriod(query);
  const stray = (['start_time', 'end_time'] as const).filter((name) => query[name] !== undefined);
  if (stray.length > 0)
    invalid(
      stray.map((name) => ({ loc: ['query', name], msg: `${name} is taken only with period=custom; use date`, type: 'value_error' })),
    );
  const today = new Date(nowMs);
  const [year, monthIndex, day] =
    query.date === undefined ? [today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()] : dateParts(query.date);
  if (kind === 'month')
    return {
      previousStartNs: nanos(utcDay(year, monthIndex - 1, 1)),
      startNs: nanos(utcDay(year, monthIndex, 1)),
      endNs: nanos(utcDay(year, monthIndex + 1, 1)),
    };
  const midnight = utcDay(year, monthIndex, day);
  // ISO 8601 weeks start on Monday: getUTCDay() is 0 on Sunday.
  const start = kind === 'day' ? midnight : midnight - ((new Date(midnight).getUTCDay() + 6) % 7) * DAY_MS;
  const length = kind === 'day' ? DAY_MS : 7 * DAY_MS;
  return { previousStartNs: nanos(start - length), startNs: nanos(start), endNs: nanos(start + length) };
}

function customPeriod(query: SpendPeriodQuery): SpendPeriod {
  if (query.date !== undefined)
    invalid([{ loc: ['query', 'date'], msg: 'date is not taken with period=custom; use start_time and end_time', type: 'value_error' }]);
  const issues: ValidationIssue[] = [];
  const bound = (name: 'start_time' | 'end_time'): bigint | undefined => {
    const text = query[name];
    if (text === undefined) {
      issues.push({ loc: ['query', name], msg: `${name} is required with period=custom`, type: 'missing' });
      return undefined;
    }
    const value = rfc3339ToNanos(text);
    if (value % HOUR_NS !== 0n) {
      issues.push({ loc: ['query', name], msg: `${name} must be a whole UTC hour (the summaries count whole hours)`, type: 'value_error' });
      return undefined;
    }
    return value;
  };
  const [startNs, endNs] = [bound('start_time'), bound('end_time')];
  if (issues.length > 0 || startNs === undefined || endNs === undefined) invalid(issues);
  if (endNs <= startNs)
    invalid([
      { loc: ['query', 'end_time'], msg: 'end_time must be after start_time (the window is [start_time, end_time))', type: 'value_error' },
    ]);
  if (endNs - startNs > MAX_CUSTOM_NS)
    invalid([
      { loc: ['query', 'end_time'], msg: 'the window may cover at most 366 days; read a longer one in parts', type: 'value_error' },
    ]);
  return { previousStartNs: startNs - (endNs - startNs), startNs, endNs };
}
