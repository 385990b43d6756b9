// The OTLP span kinds and status codes by their enum names, as stored and as the engine document
// spells them (openapi/engine.yaml, SpanKind and StatusCode): one list each, in OTLP number order,
// checked here against the generated types and by test/span-enums.test.ts against the document.
// Ingestion maps numbers to names with them; the filter compiler reads the short names
// (`SERVER`, `ERROR`) that docs/filter-semantics.md describes.
import type { components } from './generated/engine.js';

type SpanKindName = components['schemas']['SpanKind'];
type StatusCodeName = components['schemas']['StatusCode'];

/** The span kinds; a kind's OTLP number is its index. */
export const SPAN_KINDS = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
] as const satisfies readonly SpanKindName[];
export type SpanKind = (typeof SPAN_KINDS)[number];

/** The status codes; a code's OTLP number is its index. */
export const STATUS_CODES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'] as const satisfies readonly StatusCodeName[];
export type StatusCode = (typeof STATUS_CODES)[number];

// Every name of the document is in the lists: these fail to compile when one is left out above.
type MissingKind = Exclude<SpanKindName, SpanKind>;
type MissingStatus = Exclude<StatusCodeName, StatusCode>;
const everyKindListed: [MissingKind] extends [never] ? true : MissingKind = true;
const everyStatusListed: [MissingStatus] extends [never] ? true : MissingStatus = true;
void everyKindListed;
void everyStatusListed;

const SPAN_KIND_PREFIX = 'SPAN_KIND_';
const STATUS_CODE_PREFIX = 'STATUS_CODE_';

/** The name of an OTLP span kind number; an unknown number reads as UNSPECIFIED. */
export function spanKindName(kind: number): SpanKind {
  return SPAN_KINDS[kind] ?? 'SPAN_KIND_UNSPECIFIED';
}

/** The name of an OTLP status code number; an unknown number reads as UNSET. */
export function statusCodeName(code: number): StatusCode {
  return STATUS_CODES[code] ?? 'STATUS_CODE_UNSET';
}

/** The OTLP number of a span kind name; an unknown name reads like an unknown number (0). */
export function spanKindNumber(name: string): number {
  return Math.max(0, (SPAN_KINDS as readonly string[]).indexOf(name));
}

/** The OTLP number of a status code name; an unknown name reads like an unknown number (0). */
export function statusCodeNumber(name: string): number {
  return Math.max(0, (STATUS_CODES as readonly string[]).indexOf(name));
}

/** `SERVER` → `SPAN_KIND_SERVER`; any other value (`server`, `SPAN_KIND_SERVER`, ...) as given. */
export function spelledOutSpanKind(value: string): string {
  const full = `${SPAN_KIND_PREFIX}${value}`;
  return (SPAN_KINDS as readonly string[]).includes(full) ? full : value;
}

/** `ERROR` → `STATUS_CODE_ERROR`; any other value as given. */
export function spelledOutStatusCode(value: string): string {
  const full = `${STATUS_CODE_PREFIX}${value}`;
  return (STATUS_CODES as readonly string[]).includes(full) ? full : value;
}
