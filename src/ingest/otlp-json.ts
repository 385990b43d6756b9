// OTLP JSON (the protobuf JSON mapping with OTLP's exceptions): decodes an
// ExportTraceServiceRequest. Field names in lowerCamelCase (the original snake_case is accepted
// too, as protobuf JSON parsers do); trace and span ids as hex, any case; enums as numbers or
// names; 64-bit integers as decimal strings or numbers; null as the field's default; unknown
// fields ignored. A body of the wrong shape is an OtlpDecodeError (400) naming the bad field.
import { spanKindNumber, statusCodeNumber } from '../span-enums.js';
import { parseJsonExact } from './parse-json-exact.js';
import {
  MAX_VALUE_DEPTH,
  OtlpDecodeError,
  doubleToJson,
  int64ToJson,
  type AttributeValue,
  type Attributes,
  type DecodedEvent,
  type DecodedExportRequest,
  type DecodedLink,
  type DecodedScope,
  type DecodedSpan,
  type PartialSuccess,
  setAttribute,
} from './otlp-request.js';

type JsonObject = Record<string, unknown>;

const DECIMAL_INTEGER = /^-?\d+$/;
const UNSIGNED_INTEGER = /^\d+$/;

function fail(path: string, problem: string): never {
  throw new OtlpDecodeError(`invalid OTLP JSON: ${path} ${problem}`);
}

/** The value of a field by its JSON name or its proto name; null and absent are both undefined. */
function field(object: JsonObject, jsonName: string, protoName = jsonName): unknown {
  const value = object[jsonName] ?? object[protoName];
  return value === null ? undefined : value;
}

function asObject(value: unknown, path: string): JsonObject | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object');
  return value as JsonObject;
}

function asArray(value: unknown, path: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(path, 'must be an array');
  return value;
}

function asString(value: unknown, path: string): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') fail(path, 'must be a string');
  return value;
}

/** An int64/uint64/fixed64 field: a decimal string or a JSON integer, as an exact decimal string. */
function asInteger(value: unknown, path: string, unsigned: boolean): string {
  if (value === undefined) return '0';
  const text = typeof value === 'number' && Number.isInteger(value) ? BigInt(value).toString() : value;
  if (typeof text !== 'string' || !(unsigned ? UNSIGNED_INTEGER : DECIMAL_INTEGER).test(text)) {
    fail(path, `must be ${unsigned ? 'a non-negative' : 'an'} integer (a decimal string or a number)`);
  }
  return BigInt(text).toString(); // canonical form: no leading zeros, no "-0"
}

function asDouble(value: unknown, path: string): number {
  if (typeof value === 'number') return value;
  if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return Number(value);
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return fail(path, 'must be a number');
}

function asHexId(value: unknown, path: string): string {
  // Validity (length, hex digits, not all zeros) is the mapping's business: a bad id rejects
  // that one span through partial success, not the whole request.
  return asString(value, path).toLowerCase();
}

function asSpanKind(value: unknown, path: string): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') return spanKindNumber(value); // an unknown name reads like an unknown number
  return fail(path, 'must be a SpanKind number or name');
}

function asStatusCode(value: unknown, path: string): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') return statusCodeNumber(value); // an unknown name reads like an unknown number
  return fail(path, 'must be a StatusCode number or name');
}

/** A uint32 counter (the dropped_* counts): a JSON integer, or its decimal string. */
function asCount(value: unknown, path: string): number {
  if (value === undefined) return 0;
  const count = typeof value === 'string' && UNSIGNED_INTEGER.test(value) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > 4_294_967_295)
    fail(path, 'must be an unsigned 32-bit integer');
  return count;
}

function anyValue(value: unknown, path: string, depth: number): AttributeValue {
  if (depth > MAX_VALUE_DEPTH) fail(path, `is nested deeper than ${MAX_VALUE_DEPTH} levels`);
  const object = asObject(value, path) ?? {};
  const stringValue = field(object, 'stringValue', 'string_value');
  if (stringValue !== undefined) return asString(stringValue, `${path}.stringValue`);
  const boolValue = field(object, 'boolValue', 'bool_value');
  if (boolValue !== undefined) return typeof boolValue === 'boolean' ? boolValue : fail(`${path}.boolValue`, 'must be a boolean');
  const intValue = field(object, 'intValue', 'int_value');
  if (intValue !== undefined) return int64ToJson(asInteger(intValue, `${path}.intValue`, false));
  const doubleValue = field(object, 'doubleValue', 'double_value');
  if (doubleValue !== undefined) return doubleToJson(asDouble(doubleValue, `${path}.doubleValue`));
  const arrayValue = field(object, 'arrayValue', 'array_value');
  if (arrayValue !== undefined) {
    const values = asArray(field(asObject(arrayValue, `${path}.arrayValue`) ?? {}, 'values'), `${path}.arrayValue.values`);
    return values.map((item, index) => anyValue(item, `${path}.arrayValue.values[${index}]`, depth + 1));
  }
  const kvlistValue = field(object, 'kvlistValue', 'kvlist_value');
  if (kvlistValue !== undefined) {
    return keyValues(field(asObject(kvlistValue, `${path}.kvlistValue`) ?? {}, 'values'), `${path}.kvlistValue.values`, depth + 1);
  }
  const bytesValue = field(object, 'bytesValue', 'bytes_value');
  if (bytesValue !== undefined) return asString(bytesValue, `${path}.bytesValue`); // base64, kept as sent
  return null; // an AnyValue with nothing set
}

function keyValues(value: unknown, path: string, depth = 0): Attributes {
  const attributes: Attributes = {};
  asArray(value, path).forEach((item, index) => {
    const keyValue = asObject(item, `${path}[${index}]`) ?? {};
    const key = asString(field(keyValue, 'key'), `${path}[${index}].key`);
    setAttribute(attributes, key, anyValue(field(keyValue, 'value'), `${path}[${index}].value`, depth));
  });
  return attributes;
}

function event(value: unknown, path: string): DecodedEvent {
  const object = asObject(value, path) ?? {};
  return {
    name: asString(field(object, 'name'), `${path}.name`),
    timeUnixNano: asInteger(field(object, 'timeUnixNano', 'time_unix_nano'), `${path}.timeUnixNano`, true),
    attributes: keyValues(field(object, 'attributes'), `${path}.attributes`),
    droppedAttributesCount: asCount(field(object, 'droppedAttributesCount', 'dropped_attributes_count'), `${path}.droppedAttributesCount`),
  };
}

function link(value: unknown, path: string): DecodedLink {
  const object = asObject(value, path) ?? {};
  return {
    traceId: asHexId(field(object, 'traceId', 'trace_id'), `${path}.traceId`),
    spanId: asHexId(field(object, 'spanId', 'span_id'), `${path}.spanId`),
    traceState: asString(field(object, 'traceState', 'trace_state'), `${path}.traceState`),
    attributes: keyValues(field(object, 'attributes'), `${path}.attributes`),
    droppedAttributesCount: asCount(field(object, 'droppedAttributesCount', 'dropped_attributes_count'), `${path}.droppedAttributesCount`),
  };
}

function scopeOf(value: unknown, path: string): DecodedScope {
  const object = asObject(value, path) ?? {};
  return { name: asString(field(object, 'name'), `${path}.name`), version: asString(field(object, 'version'), `${path}.version`) };
}

function span(value: unknown, path: string, scope: DecodedScope): DecodedSpan {
  const object = asObject(value, path) ?? {};
  const status = asObject(field(object, 'status'), `${path}.status`) ?? {};
  return {
    traceId: asHexId(field(object, 'traceId', 'trace_id'), `${path}.traceId`),
    spanId: asHexId(field(object, 'spanId', 'span_id'), `${path}.spanId`),
    parentSpanId: asHexId(field(object, 'parentSpanId', 'parent_span_id'), `${path}.parentSpanId`),
    name: asString(field(object, 'name'), `${path}.name`),
    kind: asSpanKind(field(object, 'kind'), `${path}.kind`),
    startTimeUnixNano: asInteger(field(object, 'startTimeUnixNano', 'start_time_unix_nano'), `${path}.startTimeUnixNano`, true),
    endTimeUnixNano: asInteger(field(object, 'endTimeUnixNano', 'end_time_unix_nano'), `${path}.endTimeUnixNano`, true),
    attributes: keyValues(field(object, 'attributes'), `${path}.attributes`),
    statusCode: asStatusCode(field(status, 'code'), `${path}.status.code`),
    statusMessage: asString(field(status, 'message'), `${path}.status.message`),
    events: asArray(field(object, 'events'), `${path}.events`).map((item, index) => event(item, `${path}.events[${index}]`)),
    links: asArray(field(object, 'links'), `${path}.links`).map((item, index) => link(item, `${path}.links[${index}]`)),
    droppedAttributesCount: asCount(field(object, 'droppedAttributesCount', 'dropped_attributes_count'), `${path}.droppedAttributesCount`),
    droppedEventsCount: asCount(field(object, 'droppedEventsCount', 'dropped_events_count'), `${path}.droppedEventsCount`),
    droppedLinksCount: asCount(field(object, 'droppedLinksCount', 'dropped_links_count'), `${path}.droppedLinksCount`),
    scope,
  };
}

/** Decodes an OTLP JSON ExportTraceServiceRequest; a body that is not one is an OtlpDecodeError (400). */
export function decodeJsonRequest(body: Buffer): DecodedExportRequest {
  let parsed: unknown;
  try {
    parsed = parseJsonExact(body.toString('utf8'));
  } catch (error) {
    throw new OtlpDecodeError(`invalid OTLP JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const request = asObject(parsed, 'the body') ?? fail('the body', 'must be an object');
  const resourceSpans = asArray(field(request, 'resourceSpans', 'resource_spans'), 'resourceSpans');
  return {
    resourceSpans: resourceSpans.map((item, index) => {
      const path = `resourceSpans[${index}]`;
      const object = asObject(item, path) ?? {};
      const resource = asObject(field(object, 'resource'), `${path}.resource`) ?? {};
      const scopeSpans = asArray(field(object, 'scopeSpans', 'scope_spans'), `${path}.scopeSpans`);
      return {
        resourceAttributes: keyValues(field(resource, 'attributes'), `${path}.resource.attributes`),
        spans: scopeSpans.flatMap((scope, scopeIndex) => {
          const scopePath = `${path}.scopeSpans[${scopeIndex}]`;
          const scopeObject = asObject(scope, scopePath) ?? {};
          const decodedScope = scopeOf(field(scopeObject, 'scope'), `${scopePath}.scope`);
          const spans = asArray(field(scopeObject, 'spans'), `${scopePath}.spans`);
          return spans.map((item, spanIndex) => span(item, `${scopePath}.spans[${spanIndex}]`, decodedScope));
        }),
      };
    }),
  };
}

/** The JSON ExportTraceServiceResponse: `{}` when every span was accepted; int64 as a decimal string. */
export function jsonResponse(partialSuccess: PartialSuccess | undefined): object {
  return partialSuccess
    ? { partialSuccess: { rejectedSpans: String(partialSuccess.rejectedSpans), errorMessage: partialSuccess.errorMessage } }
    : {};
}
