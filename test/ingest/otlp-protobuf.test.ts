// The protobuf decoder against the OpenTelemetry exporter's own encoder, and against messages
// written field by field on the wire (field numbers of opentelemetry-proto v1) for the value
// kinds the SDK cannot produce.
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { expect } from 'chai';
import protobuf from 'protobufjs';
import { decodeProtobufRequest, encodeProtobufResponse } from '../../src/ingest/otlp-protobuf.js';
import { OtlpDecodeError } from '../../src/ingest/otlp-request.js';
import { nanos, recordSpans } from '../support/otel.js';

/** A message written field by field: each field is its tag (number << 3 | wire type), then its value. */
function message(write: (writer: protobuf.Writer) => void): Uint8Array {
  const writer = protobuf.Writer.create();
  write(writer);
  return writer.finish();
}

function keyValue(key: string, anyValue: Uint8Array): Uint8Array {
  return message((w) =>
    w
      .uint32((1 << 3) | 2)
      .string(key)
      .uint32((2 << 3) | 2)
      .bytes(anyValue),
  );
}

/** ExportTraceServiceRequest { resource_spans { scope_spans { spans { span_id, trace_id, attributes } } } }. */
function requestWithAttributes(attributes: Uint8Array[]): Uint8Array {
  const span = message((w) => {
    w.uint32((1 << 3) | 2).bytes(Buffer.from('4bf92f3577b34da6a3ce929d0e0e4736', 'hex'));
    w.uint32((2 << 3) | 2).bytes(Buffer.from('00f067aa0ba902b7', 'hex'));
    for (const attribute of attributes) w.uint32((9 << 3) | 2).bytes(attribute);
  });
  const scopeSpans = message((w) => w.uint32((2 << 3) | 2).bytes(span));
  const resourceSpans = message((w) => w.uint32((2 << 3) | 2).bytes(scopeSpans));
  return message((w) => w.uint32((1 << 3) | 2).bytes(resourceSpans));
}

describe('OTLP protobuf decoding', () => {
  it('decodes what the OpenTelemetry exporter encodes: ids, parent, kind, exact times, attributes', async () => {
    const spans = await recordSpans({ 'service.name': 'api', 'service.version': '1.2.3' }, (tracer) => {
      const parent = tracer.startSpan('parent', { kind: SpanKind.SERVER, startTime: [1795355100, 123456789] });
      const child = tracer.startSpan(
        'child',
        {
          kind: SpanKind.PRODUCER,
          startTime: [1795355100, 223456789],
          attributes: { s: 'x', b: true, i: -7, d: 0.5, list: [1, 2], names: ['a', 'b'] },
        },
        trace.setSpan(context.active(), parent),
      );
      child.end([1795355101, 1]);
      parent.end([1795355102, 999999999]);
    });
    const decoded = decodeProtobufRequest(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array);
    expect(decoded.resourceSpans).to.have.length(1);
    expect({ ...decoded.resourceSpans[0].resourceAttributes }).to.include({ 'service.name': 'api', 'service.version': '1.2.3' });
    const byName = new Map(decoded.resourceSpans[0].spans.map((span) => [span.name, span]));
    expect(byName.get('child')?.parentSpanId).to.equal(byName.get('parent')?.spanId).and.to.have.length(16);
    for (const span of spans) {
      const got = byName.get(span.name);
      expect(got).to.deep.include({
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId ?? '',
        kind: span.kind + 1, // the API's SpanKind starts at INTERNAL = 0; OTLP's at UNSPECIFIED = 0
        startTimeUnixNano: nanos(span.startTime),
        endTimeUnixNano: nanos(span.endTime),
      });
      expect(JSON.parse(JSON.stringify(got?.attributes))).to.deep.equal(span.attributes);
    }
  });

  it('decodes status, events (exact times), links, scope and dropped counts as the exporter encodes them', async () => {
    const linked = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
    const spans = await recordSpans(
      { 'service.name': 'api' },
      (tracer) => {
        const span = tracer.startSpan('work', {
          startTime: [1795355100, 1],
          links: [{ context: linked, attributes: { why: 'retry' } }],
          attributes: { a: 1, b: 2 },
        });
        span.addEvent('step', { n: 1 }, [1795355100, 123456789]);
        span.recordException(new Error('boom'), [1795355100, 223456789]);
        span.addEvent('late', undefined, [1795355100, 323456789]);
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'it broke' });
        span.end([1795355101, 0]);
      },
      { scope: { name: 'lib', version: '9.8.7' }, spanLimits: { attributeCountLimit: 1, eventCountLimit: 2 } },
    );
    const [decoded] = decodeProtobufRequest(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array).resourceSpans[0].spans;
    expect(JSON.parse(JSON.stringify(decoded))).to.deep.include({
      statusCode: 2,
      statusMessage: 'it broke',
      scope: { name: 'lib', version: '9.8.7' },
      droppedAttributesCount: 1,
      droppedEventsCount: 1,
      droppedLinksCount: 0,
      links: [{ traceId: linked.traceId, spanId: linked.spanId, traceState: '', attributes: { why: 'retry' }, droppedAttributesCount: 0 }],
    });
    expect(decoded.events.map((event) => [event.name, event.timeUnixNano])).to.deep.equal([
      ['exception', '1795355100223456789'],
      ['late', '1795355100323456789'],
    ]);
    expect(decoded.events[0]?.attributes).to.include({ 'exception.message': 'boom' });
  });

  it('decodes every kind of attribute value', () => {
    const anyValue = (write: (w: protobuf.Writer) => void) => message(write);
    const body = requestWithAttributes([
      keyValue(
        'int.small',
        anyValue((w) => w.uint32(3 << 3).int64(-42)),
      ),
      keyValue(
        'int.big',
        anyValue((w) => w.uint32(3 << 3).int64('9223372036854775807')),
      ),
      keyValue(
        'double.nan',
        anyValue((w) => w.uint32((4 << 3) | 1).double(NaN)),
      ),
      keyValue(
        'bytes',
        anyValue((w) => w.uint32((7 << 3) | 2).bytes(Buffer.from('hi'))),
      ),
      keyValue(
        'kvlist',
        anyValue((w) =>
          w.uint32((6 << 3) | 2).bytes(
            message((l) =>
              l.uint32((1 << 3) | 2).bytes(
                keyValue(
                  'x',
                  anyValue((v) => v.uint32(2 << 3).bool(true)),
                ),
              ),
            ),
          ),
        ),
      ),
      keyValue(
        'array',
        anyValue((w) =>
          w.uint32((5 << 3) | 2).bytes(
            message((a) =>
              a
                .uint32((1 << 3) | 2)
                .bytes(anyValue((v) => v.uint32((1 << 3) | 2).string('a')))
                .uint32((1 << 3) | 2)
                .bytes(new Uint8Array(0)),
            ),
          ),
        ),
      ),
      keyValue('empty', new Uint8Array(0)),
      // Two members of the oneof on the wire: the last one counts.
      keyValue(
        'twice',
        anyValue((w) =>
          w
            .uint32((1 << 3) | 2)
            .string('first')
            .uint32(3 << 3)
            .int64(5),
        ),
      ),
      keyValue(
        'back',
        anyValue((w) =>
          w
            .uint32((1 << 3) | 2)
            .string('first')
            .uint32(3 << 3)
            .int64(5)
            .uint32((1 << 3) | 2)
            .string('last'),
        ),
      ),
    ]);
    const [span] = decodeProtobufRequest(body).resourceSpans[0].spans;
    expect(JSON.parse(JSON.stringify(span.attributes))).to.deep.equal({
      'int.small': -42,
      'int.big': '9223372036854775807',
      'double.nan': 'NaN',
      bytes: 'aGk=',
      kvlist: { x: true },
      array: ['a', null],
      empty: null,
      twice: 5,
      back: 'last',
    });
    expect(span).to.deep.include({ parentSpanId: '', name: '', kind: 0, startTimeUnixNano: '0', endTimeUnixNano: '0' });
  });

  it('refuses bytes that are not protobuf with a 400', () => {
    for (const body of [
      Buffer.from('0a05ffffffffff12', 'hex'),
      Buffer.from('0a7f0a03', 'hex'),
      Buffer.from('this is not protobuf at all'),
    ]) {
      expect(() => decodeProtobufRequest(body)).to.throw(OtlpDecodeError, /invalid OTLP protobuf/);
    }
  });

  it('encodes the response: zero bytes when all was accepted, partial success otherwise', () => {
    expect(encodeProtobufResponse(undefined)).to.have.length(0);
    const answer = ProtobufTraceSerializer.deserializeResponse(
      encodeProtobufResponse({ rejectedSpans: 3, errorMessage: 'span x: invalid' }),
    );
    expect(answer).to.deep.equal({ partialSuccess: { rejectedSpans: 3, errorMessage: 'span x: invalid' } });
  });
});
