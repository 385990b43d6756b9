// OTLP binary protobuf: decodes an ExportTraceServiceRequest with protobufjs and the OTLP schema
// in ./proto, and encodes the ExportTraceServiceResponse.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
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

const PROTO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'proto');

function loadSchema(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  root.resolveAll();
  return root;
}

/**
 * protobufjs's decoder notes which member of a oneof it read through a setter that deletes every
 * other member of the oneof from the message, present or not: six `delete`s for each attribute
 * value, which made it the largest single cost of decoding a span. This setter has the same effect
 * (only the member read last stays) but deletes only members that are there. protobufjs builds
 * the setters when it first makes a message class, so this must run before the schema is used.
 */
protobuf.util.oneOfSetter = (members: string[]) =>
  function setOneOf(this: Record<string, unknown>, read: string | undefined) {
    for (const member of members) if (member !== read && Object.hasOwn(this, member)) delete this[member];
  };

const schema = loadSchema();
const RequestType = schema.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const ResponseType = schema.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');

// The shapes protobufjs decodes into (camelCase fields; absent fields read as their defaults;
// 64-bit integers as Long objects, because protobufjs finds the `long` package).
type Bytes = Uint8Array | number[];
/** A Long's two 32-bit halves (protobufjs would give a plain number only without `long`). */
type Int64 = number | { low: number; high: number };

function bits(value: { low: number; high: number }): bigint {
  return (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
}

/** A fixed64 (unsigned) as its exact decimal string; native BigInt formatting, not Long's. */
function uint64Decimal(value: Int64): string {
  return typeof value === 'number' ? String(value) : bits(value).toString();
}

/** An int64 (signed) attribute value as stored (the rule of int64ToJson), without formatting safe ones. */
function int64Json(value: Int64): number | string {
  if (typeof value === 'number') return int64ToJson(String(value));
  // Exact whenever the result is a safe integer; an unsafe value never lands on a safe one.
  const approximate = value.high * 4_294_967_296 + (value.low >>> 0);
  return Number.isSafeInteger(approximate) ? approximate : BigInt.asIntN(64, bits(value)).toString();
}

const VALUE_MEMBERS = ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] as const;
type ValueMember = (typeof VALUE_MEMBERS)[number];

interface PbAnyValue {
  /** protobufjs's oneof getter: the member that is set, if any (it allocates: used only as a fallback). */
  value?: ValueMember;
  stringValue: string;
  boolValue: boolean;
  intValue: Int64;
  doubleValue: number;
  arrayValue: { values: PbAnyValue[] } | null;
  kvlistValue: { values: PbKeyValue[] } | null;
  bytesValue: Bytes;
}

interface PbKeyValue {
  key: string;
  value: PbAnyValue | null;
}

interface PbSpan {
  traceId: Bytes;
  spanId: Bytes;
  parentSpanId: Bytes;
  name: string;
  kind: number;
  startTimeUnixNano: Int64;
  endTimeUnixNano: Int64;
  attributes: PbKeyValue[];
  droppedAttributesCount: number;
  events: PbEvent[];
  droppedEventsCount: number;
  links: PbLink[];
  droppedLinksCount: number;
  status: { code: number; message: string } | null;
}

interface PbEvent {
  timeUnixNano: Int64;
  name: string;
  attributes: PbKeyValue[];
  droppedAttributesCount: number;
}

interface PbLink {
  traceId: Bytes;
  spanId: Bytes;
  traceState: string;
  attributes: PbKeyValue[];
  droppedAttributesCount: number;
}

interface PbRequest {
  resourceSpans: Array<{
    resource: { attributes: PbKeyValue[] } | null;
    scopeSpans: Array<{ scope: { name: string; version: string } | null; spans: PbSpan[] }>;
  }>;
}

function asBuffer(bytes: Bytes): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : bytes instanceof Uint8Array
      ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      : Buffer.from(bytes);
}

/**
 * The oneof member an AnyValue carries. Decoded messages own exactly the fields that were on the
 * wire (defaults live on the prototype), so own-property checks find it without allocating; when
 * a sender wrote several members, protobufjs's getter picks the last one, as protobuf requires.
 */
function memberOf(value: PbAnyValue): ValueMember | undefined {
  let found: ValueMember | undefined;
  for (const member of VALUE_MEMBERS) {
    if (!Object.hasOwn(value, member)) continue;
    if (found !== undefined) return value.value;
    found = member;
  }
  return found;
}

function anyValue(value: PbAnyValue | null, depth: number): AttributeValue {
  if (depth > MAX_VALUE_DEPTH)
    throw new OtlpDecodeError(`invalid OTLP protobuf: attribute value nested deeper than ${MAX_VALUE_DEPTH} levels`);
  if (value === null) return null;
  switch (memberOf(value)) {
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    case 'intValue':
      return int64Json(value.intValue);
    case 'doubleValue':
      return doubleToJson(value.doubleValue);
    case 'bytesValue':
      return asBuffer(value.bytesValue).toString('base64');
    case 'arrayValue':
      return (value.arrayValue?.values ?? []).map((item) => anyValue(item, depth + 1));
    case 'kvlistValue':
      return keyValues(value.kvlistValue?.values ?? [], depth + 1);
    default:
      return null; // an AnyValue with nothing set
  }
}

function keyValues(list: PbKeyValue[], depth = 0): Attributes {
  const attributes: Attributes = {};
  for (const { key, value } of list) setAttribute(attributes, key, anyValue(value, depth));
  return attributes;
}

function event(pb: PbEvent): DecodedEvent {
  return {
    name: pb.name,
    timeUnixNano: uint64Decimal(pb.timeUnixNano),
    attributes: keyValues(pb.attributes),
    droppedAttributesCount: pb.droppedAttributesCount,
  };
}

function link(pb: PbLink): DecodedLink {
  return {
    traceId: asBuffer(pb.traceId).toString('hex'),
    spanId: asBuffer(pb.spanId).toString('hex'),
    traceState: pb.traceState,
    attributes: keyValues(pb.attributes),
    droppedAttributesCount: pb.droppedAttributesCount,
  };
}

const NO_SCOPE: DecodedScope = { name: '', version: '' };
const NO_EVENTS: DecodedEvent[] = [];
const NO_LINKS: DecodedLink[] = [];

function span(pb: PbSpan, scope: DecodedScope): DecodedSpan {
  return {
    traceId: asBuffer(pb.traceId).toString('hex'),
    spanId: asBuffer(pb.spanId).toString('hex'),
    parentSpanId: asBuffer(pb.parentSpanId).toString('hex'),
    name: pb.name,
    kind: pb.kind,
    startTimeUnixNano: uint64Decimal(pb.startTimeUnixNano),
    endTimeUnixNano: uint64Decimal(pb.endTimeUnixNano),
    attributes: keyValues(pb.attributes),
    statusCode: pb.status?.code ?? 0,
    statusMessage: pb.status?.message ?? '',
    // Most spans have neither: they share one empty list (never written to).
    events: pb.events.length === 0 ? NO_EVENTS : pb.events.map(event),
    links: pb.links.length === 0 ? NO_LINKS : pb.links.map(link),
    droppedAttributesCount: pb.droppedAttributesCount,
    droppedEventsCount: pb.droppedEventsCount,
    droppedLinksCount: pb.droppedLinksCount,
    scope,
  };
}

/** Decodes a binary ExportTraceServiceRequest; a body that is not one is an OtlpDecodeError (400). */
export function decodeProtobufRequest(body: Uint8Array): DecodedExportRequest {
  let message: PbRequest;
  try {
    message = RequestType.decode(body) as unknown as PbRequest;
  } catch (error) {
    throw new OtlpDecodeError(`invalid OTLP protobuf: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    resourceSpans: message.resourceSpans.map((resourceSpans) => ({
      resourceAttributes: keyValues(resourceSpans.resource?.attributes ?? []),
      spans: resourceSpans.scopeSpans.flatMap((scopeSpans) => {
        const scope = scopeSpans.scope ? { name: scopeSpans.scope.name, version: scopeSpans.scope.version } : NO_SCOPE;
        return scopeSpans.spans.map((pb) => span(pb, scope));
      }),
    })),
  };
}

/** The binary ExportTraceServiceResponse: zero bytes when every span was accepted. */
export function encodeProtobufResponse(partialSuccess: PartialSuccess | undefined): Uint8Array {
  return ResponseType.encode(ResponseType.create(partialSuccess ? { partialSuccess } : {})).finish();
}
