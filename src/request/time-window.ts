// The time window of requests: RFC 3339 date-times to exact Unix nanoseconds (fractions finer
// than a millisecond are kept), start inclusive, end exclusive, and the one rule the documents
// cannot express (end after start), answered as a 422 on `end_time`. Storage receives the
// bounds as numbers and never reads the text.
import { RequestValidationError } from '../errors.js';

// What ajv-formats accepts as `date-time`: `T`, `t` or a space; any fraction; Z or an offset.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Unix nanoseconds of an RFC 3339 date-time (already checked by the document's schema). */
export function rfc3339ToNanos(text: string): bigint {
  const match = RFC3339.exec(text);
  if (!match) throw new RequestValidationError([{ loc: ['query'], msg: `not an RFC 3339 date-time: ${text}`, type: 'datetime_parsing' }]);
  const [, year, month, day, hour, minute, second, fraction = '', zulu, sign, offsetHours = '0', offsetMinutes = '0'] = match;
  // Not Date.UTC, which maps years 0-99 to 1900-1999; a leap second (:60) rolls over.
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  let seconds = BigInt(Math.floor(date.getTime() / 1000));
  if (!zulu) {
    const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60;
    seconds -= BigInt(sign === '-' ? -offset : offset);
  }
  const nanos = BigInt(fraction.slice(0, 9).padEnd(9, '0') || '0');
  return seconds * 1_000_000_000n + nanos;
}

/** The epoch millisecond a time bound falls on or just after: an event stamped at a whole millisecond is in [start, end) exactly when its millisecond is in [ceil(start), ceil(end)). */
export function rfc3339ToCeilingMillis(text: string): number {
  const nanos = rfc3339ToNanos(text);
  const millis = nanos / 1_000_000n + (nanos % 1_000_000n > 0n ? 1n : 0n);
  return Number(millis);
}

/** `[startNs, endNs)`; a bound is undefined where the operation lets it be left out. */
export interface TimeWindow {
  startNs: bigint | undefined;
  endNs: bigint | undefined;
}

/**
 * The window of the query parameters `start_time` / `end_time`. A bound that is given must be
 * valid; when both are, the end must be after the start (else 422 at `["query", "end_time"]`).
 */
export function timeWindow(query: { start_time?: unknown; end_time?: unknown }): TimeWindow {
  const startNs = typeof query.start_time === 'string' ? rfc3339ToNanos(query.start_time) : undefined;
  const endNs = typeof query.end_time === 'string' ? rfc3339ToNanos(query.end_time) : undefined;
  if (startNs !== undefined && endNs !== undefined && endNs <= startNs) {
    throw new RequestValidationError([
      { loc: ['query', 'end_time'], msg: 'end_time must be after start_time (the window is [start_time, end_time))', type: 'value_error' },
    ]);
  }
  return { startNs, endNs };
}
