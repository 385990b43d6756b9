// The time window of engine requests: RFC 3339 date-times to exact Unix nanoseconds
// (fractions finer than a millisecond are kept), start inclusive, end exclusive, and the one
// rule the document cannot express (end after start), answered as a 422 on `end_time`.
import { RequestValidationError } from '../errors.js';
import { rfc3339ToNanos } from '../storage/time.js';

// Lives in storage/time.ts, where the management API's audit list reads its window too.
export { rfc3339ToNanos };

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
