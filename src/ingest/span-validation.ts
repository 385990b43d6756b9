// Which decoded spans cannot be stored. Each problem rejects that one span through OTLP partial
// success; the rest of the request is stored.
import { SPAN_TEXT_COLUMNS, type SpanRow } from '../storage/spans/span-store.js';
import type { DecodedSpan } from './otlp-request.js';

const LOWER_HEX = /^[0-9a-f]*$/;
const ALL_ZEROS = /^0+$/;
// The times are stored in signed 64-bit columns; OTLP's fixed64 goes higher (past the year 2262).
const MAX_STORED_NANOS = 2n ** 63n - 1n;
// MariaDB/MySQL TEXT holds 65,535 bytes; SQLite would take more, but both dialects accept the same spans.
const MAX_TEXT_BYTES = 65_535;

function idProblem(hex: string, bytes: number, name: string): string | undefined {
  if (hex.length !== bytes * 2 || !LOWER_HEX.test(hex)) return `invalid ${name}: must be ${bytes} bytes (${bytes * 2} hex digits)`;
  if (ALL_ZEROS.test(hex)) return `invalid ${name}: all zeros`;
  return undefined;
}

/** An empty or all-zero parent id means "no parent". */
export function hasParent(span: DecodedSpan): boolean {
  return span.parentSpanId !== '' && !ALL_ZEROS.test(span.parentSpanId);
}

function timeProblem(span: DecodedSpan): string | undefined {
  if (span.startTimeUnixNano === '0') return 'missing start_time_unix_nano';
  if (span.endTimeUnixNano === '0') return 'missing end_time_unix_nano';
  const start = BigInt(span.startTimeUnixNano);
  const end = BigInt(span.endTimeUnixNano);
  if (start > MAX_STORED_NANOS || end > MAX_STORED_NANOS) return 'time out of range (after the year 2262)';
  if (end < start) return 'end time before start time';
  for (const event of span.events)
    if (BigInt(event.timeUnixNano) > MAX_STORED_NANOS) return 'event time out of range (after the year 2262)';
  return undefined;
}

/** A link must name a valid span, as the span's own ids must be. */
function linkProblem(span: DecodedSpan): string | undefined {
  for (const link of span.links) {
    const problem = idProblem(link.traceId, 16, 'link trace_id') ?? idProblem(link.spanId, 8, 'link span_id');
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Why the span cannot be stored, or undefined when it can. */
export function spanProblem(span: DecodedSpan): string | undefined {
  return (
    idProblem(span.traceId, 16, 'trace_id') ??
    idProblem(span.spanId, 8, 'span_id') ??
    (hasParent(span) ? idProblem(span.parentSpanId, 8, 'parent_span_id') : undefined) ??
    timeProblem(span) ??
    linkProblem(span)
  );
}

/** Why the mapped row cannot be stored (a text field too long for its column), or undefined. */
export function rowProblem(row: SpanRow): string | undefined {
  for (const column of SPAN_TEXT_COLUMNS) {
    const text = row[column];
    // A UTF-16 code unit is at most 3 UTF-8 bytes: only long strings need counting.
    if (text !== null && text.length * 3 > MAX_TEXT_BYTES && Buffer.byteLength(text) > MAX_TEXT_BYTES) {
      return `${column} longer than ${MAX_TEXT_BYTES} bytes`;
    }
  }
  return undefined;
}
