// The decoded form of an OTLP ExportTraceServiceRequest that both decoders (protobuf and OTLP
// JSON) produce and the span mapping reads: ids as lowercase hex, times as decimal strings,
// attributes already turned into the JSON values they are stored as.
import { MalformedRequestError } from '../errors.js';

/** An attribute value as stored: the JSON form of an OTLP AnyValue. */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

/** Attributes as flat dotted keys (`"http.request.method": "POST"`), in the order received. */
export type Attributes = Record<string, AttributeValue>;

export interface DecodedSpan {
  /** Lowercase hex of the bytes received, whatever their number (validated by the mapping). */
  traceId: string;
  spanId: string;
  /** '' when absent. */
  parentSpanId: string;
  name: string;
  /** The OTLP SpanKind number (names in OTLP JSON are turned into their numbers). */
  kind: number;
  /** Unix nanoseconds as an exact decimal string; '0' when absent. */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attributes;
  /** The OTLP StatusCode number (0 UNSET, 1 OK, 2 ERROR) and message ('' when absent). */
  statusCode: number;
  statusMessage: string;
  events: DecodedEvent[];
  links: DecodedLink[];
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
  /** The instrumentation scope of the span's ScopeSpans (one object shared by its spans). */
  scope: DecodedScope;
}

export interface DecodedScope {
  /** '' when absent. */
  name: string;
  version: string;
}

export interface DecodedEvent {
  name: string;
  /** Unix nanoseconds as an exact decimal string; '0' when absent. */
  timeUnixNano: string;
  attributes: Attributes;
  droppedAttributesCount: number;
}

export interface DecodedLink {
  /** Lowercase hex of the bytes received (validated by the mapping). */
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: Attributes;
  droppedAttributesCount: number;
}

export interface DecodedResourceSpans {
  resourceAttributes: Attributes;
  spans: DecodedSpan[];
}

export interface DecodedExportRequest {
  resourceSpans: DecodedResourceSpans[];
}

/**
 * Sets an attribute on a plain object. The key `__proto__` would set the prototype instead, so
 * that one key is defined as an own property; every other key is a plain assignment, which keeps
 * the objects in V8's fast mode (JSON.stringify of a million attribute maps is a hot path).
 */
export function setAttribute(attributes: Attributes, key: string, value: AttributeValue): void {
  if (key === '__proto__') Object.defineProperty(attributes, key, { value, enumerable: true, writable: true, configurable: true });
  else attributes[key] = value;
}

/** OTLP partial success: how many spans of the request were rejected, and why. */
export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

/** Attribute values nest (arrays, key-value lists); deeper than this is a 400, not a stack overflow. */
export const MAX_VALUE_DEPTH = 64;

/** A body that is not an OTLP export request: 400, which exporters do not retry. */
export class OtlpDecodeError extends MalformedRequestError {}

/**
 * An OTLP int64 attribute value (`intValue`) as stored: a JSON number when it is a safe
 * integer (|v| < 2^53, the common case: counts, sizes, status codes), else its exact decimal
 * string, because a JSON number that large would come back rounded from most JSON readers.
 */
export function int64ToJson(decimal: string): number | string {
  const value = Number(decimal);
  return Number.isSafeInteger(value) ? value : decimal;
}

/**
 * An OTLP double attribute value as stored: the number, or for NaN and ±Infinity (which
 * JSON cannot hold) the strings OTLP JSON itself uses: "NaN", "Infinity", "-Infinity".
 */
export function doubleToJson(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}
