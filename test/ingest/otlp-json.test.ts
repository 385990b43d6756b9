// The OTLP JSON decoder: the protobuf JSON mapping with OTLP's exceptions, and a 400 that names
// the bad field for a body of the wrong shape.
import { expect } from 'chai';
import { decodeJsonRequest, jsonResponse } from '../../src/ingest/otlp-json.js';
import { OtlpDecodeError } from '../../src/ingest/otlp-request.js';
import { MalformedRequestError } from '../../src/errors.js';

/** JSON text as it is, anything else through JSON.stringify (JS numbers cannot hold 19 digits). */
function json(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function decode(body: unknown) {
  return decodeJsonRequest(Buffer.from(json(body)));
}

function oneSpan(span: Record<string, unknown> | string, resource?: unknown) {
  const decoded = decode(`{"resourceSpans":[{"resource":${json(resource ?? null)},"scopeSpans":[{"spans":[${json(span)}]}]}]}`);
  return { resource: { ...decoded.resourceSpans[0].resourceAttributes }, span: decoded.resourceSpans[0].spans[0] };
}

function attribute(value: unknown) {
  return oneSpan(`{"attributes":[{"key":"k","value":${json(value ?? null)}}]}`).span.attributes.k;
}

describe('OTLP JSON decoding', () => {
  it('reads a span: hex ids in any case, int64 as strings, kind as a number', () => {
    const { span, resource } = oneSpan(
      {
        traceId: '4BF92F3577B34DA6A3CE929D0E0E4736',
        spanId: '00f067aa0BA902B7',
        parentSpanId: '',
        name: 'GET /',
        kind: 2,
        startTimeUnixNano: '1795355100123456789',
        endTimeUnixNano: '1795355100223456789',
      },
      { attributes: [{ key: 'service.name', value: { stringValue: 'api' } }] },
    );
    expect(resource).to.deep.equal({ 'service.name': 'api' });
    expect({ ...span, attributes: { ...span.attributes } }).to.deep.equal({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      parentSpanId: '',
      name: 'GET /',
      kind: 2,
      startTimeUnixNano: '1795355100123456789',
      endTimeUnixNano: '1795355100223456789',
      attributes: {},
      statusCode: 0,
      statusMessage: '',
      events: [],
      links: [],
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
      scope: { name: '', version: '' },
    });
  });

  const FIELD_CASES: Array<[string, Record<string, unknown> | string, Partial<Record<string, unknown>>]> = [
    ['kind as its enum name', { kind: 'SPAN_KIND_CONSUMER' }, { kind: 5 }],
    ['an unknown kind name', { kind: 'SPAN_KIND_SOMETHING' }, { kind: 0 }],
    [
      'times as JSON numbers, exactly',
      '{"startTimeUnixNano": 1795355100123456789, "endTimeUnixNano": 17}',
      { startTimeUnixNano: '1795355100123456789', endTimeUnixNano: '17' },
    ],
    ['times with leading zeros', { startTimeUnixNano: '0001' }, { startTimeUnixNano: '1' }],
    [
      'absent fields as their defaults',
      {},
      { traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, startTimeUnixNano: '0', endTimeUnixNano: '0' },
    ],
    [
      'null as the default',
      { name: null, kind: null, startTimeUnixNano: null, attributes: null },
      { name: '', kind: 0, startTimeUnixNano: '0' },
    ],
    [
      'proto field names',
      { trace_id: 'AB', parent_span_id: 'CD', start_time_unix_nano: '5' },
      { traceId: 'ab', parentSpanId: 'cd', startTimeUnixNano: '5' },
    ],
    ['unknown fields', { traceState: 'x=1', flags: 1, somethingNew: [1, 2], status: { other: 1 } }, { name: '' }],
    [
      'the status code by name, with its message',
      { status: { code: 'STATUS_CODE_ERROR', message: 'boom' } },
      { statusCode: 2, statusMessage: 'boom' },
    ],
    ['the status code as a number', { status: { code: 1 } }, { statusCode: 1, statusMessage: '' }],
    ['an unknown status name', { status: { code: 'STATUS_CODE_MAYBE' } }, { statusCode: 0 }],
    [
      'the dropped counts as numbers or strings',
      { droppedAttributesCount: 1, dropped_events_count: '2', droppedLinksCount: null },
      { droppedAttributesCount: 1, droppedEventsCount: 2, droppedLinksCount: 0 },
    ],
    [
      'events, their times exact',
      '{"events":[{"name":"exception","timeUnixNano":1795355100123456789,"attributes":[{"key":"exception.type","value":{"stringValue":"E"}}]},{"time_unix_nano":"7","dropped_attributes_count":3}]}',
      {
        events: [
          { name: 'exception', timeUnixNano: '1795355100123456789', attributes: { 'exception.type': 'E' }, droppedAttributesCount: 0 },
          { name: '', timeUnixNano: '7', attributes: {}, droppedAttributesCount: 3 },
        ],
      },
    ],
    [
      'links, ids in any case',
      {
        links: [
          {
            traceId: 'AB',
            span_id: 'Cd',
            traceState: 'k=v',
            attributes: [{ key: 'n', value: { intValue: '2' } }],
            droppedAttributesCount: 1,
          },
        ],
      },
      { links: [{ traceId: 'ab', spanId: 'cd', traceState: 'k=v', attributes: { n: 2 }, droppedAttributesCount: 1 }] },
    ],
  ];
  for (const [name, given, want] of FIELD_CASES) {
    it(`reads ${name}`, () => {
      // Through JSON text: attribute objects may have no prototype, deep.include would see that.
      expect(JSON.parse(JSON.stringify(oneSpan(given).span))).to.deep.include(want);
    });
  }

  it('reads the scope of each ScopeSpans for its spans', () => {
    const decoded = decode({
      resourceSpans: [
        {
          scopeSpans: [
            { scope: { name: 'lib', version: '1.2' }, spans: [{}] },
            { scope: null, spans: [{}] },
          ],
        },
      ],
    });
    expect(decoded.resourceSpans[0]?.spans.map((span) => span.scope)).to.deep.equal([
      { name: 'lib', version: '1.2' },
      { name: '', version: '' },
    ]);
  });

  const VALUE_CASES: Array<[string, unknown, unknown]> = [
    ['a string', { stringValue: 'x' }, 'x'],
    ['a boolean', { boolValue: false }, false],
    ['an int64 string within 2^53 as a number', { intValue: '-42' }, -42],
    ['an int64 number', { intValue: 7 }, 7],
    ['an int64 beyond 2^53 as its exact string', { intValue: '9223372036854775807' }, '9223372036854775807'],
    ['a bare int64 beyond 2^53 as its exact string', '{"intValue": 9007199254740993}', '9007199254740993'],
    ['a double', { doubleValue: 0.25 }, 0.25],
    ['a double written as a string', { doubleValue: '1.5' }, 1.5],
    ['NaN and infinities as strings', { doubleValue: '-Infinity' }, '-Infinity'],
    ['bytes as the base64 sent', { bytesValue: 'aGk=' }, 'aGk='],
    ['an array', { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '2' }, {}] } }, ['a', 2, null]],
    [
      'a key-value list',
      {
        kvlistValue: {
          values: [
            { key: 'x', value: { boolValue: true } },
            { key: 'y', value: { arrayValue: {} } },
          ],
        },
      },
      { x: true, y: [] },
    ],
    ['an empty value', {}, null],
    ['an absent value', undefined, null],
  ];
  for (const [name, given, want] of VALUE_CASES) {
    it(`reads an attribute value: ${name}`, () => {
      // Through JSON text: attribute objects have no prototype, deep.equal would see that.
      expect(JSON.parse(JSON.stringify(attribute(given)))).to.deep.equal(want);
    });
  }

  it('keeps an attribute named __proto__ as an attribute', () => {
    const { span } = oneSpan({ attributes: [{ key: '__proto__', value: { stringValue: 'x' } }] });
    expect(JSON.stringify(span.attributes)).to.equal('{"__proto__":"x"}');
  });

  const BAD_CASES: Array<[string, unknown, RegExp]> = [
    ['a body that is not an object', [1], /the body must be an object/],
    ['resourceSpans that is not an array', { resourceSpans: {} }, /resourceSpans must be an array/],
    [
      'a span that is not an object',
      { resourceSpans: [{ scopeSpans: [{ spans: ['x'] }] }] },
      /resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\] must be an object/,
    ],
    ['a numeric trace id', { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 5 }] }] }] }, /spans\[0\]\.traceId must be a string/],
    [
      'a negative time',
      { resourceSpans: [{ scopeSpans: [{ spans: [{ endTimeUnixNano: '-5' }] }] }] },
      /endTimeUnixNano must be a non-negative integer/,
    ],
    ['a fractional time', { resourceSpans: [{ scopeSpans: [{ spans: [{ startTimeUnixNano: 1.5 }] }] }] }, /startTimeUnixNano/],
    ['a boolean kind', { resourceSpans: [{ scopeSpans: [{ spans: [{ kind: true }] }] }] }, /kind must be a SpanKind/],
    [
      'a string boolValue',
      { resourceSpans: [{ scopeSpans: [{ spans: [{ attributes: [{ key: 'k', value: { boolValue: 'yes' } }] }] }] }] },
      /attributes\[0\]\.value\.boolValue must be a boolean/,
    ],
    ['a resource that is not an object', { resourceSpans: [{ resource: 'api' }] }, /resourceSpans\[0\]\.resource must be an object/],
  ];
  for (const [name, given, message] of BAD_CASES) {
    it(`refuses ${name} with a 400 naming the field`, () => {
      expect(() => decode(given)).to.throw(OtlpDecodeError, message);
    });
  }

  it('refuses attribute values nested deeper than 64 levels', () => {
    let value: unknown = { stringValue: 'deep' };
    for (let depth = 0; depth < 70; depth += 1) value = { arrayValue: { values: [value] } };
    expect(() => attribute(value)).to.throw(OtlpDecodeError, /nested deeper than 64 levels/);
  });

  it('refuses malformed JSON with a 400', () => {
    const error = (() => {
      try {
        decode('{"resourceSpans": [');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).to.be.instanceOf(OtlpDecodeError);
    // A malformed request: the edges answer it 400 (HTTP) and INVALID_ARGUMENT (gRPC).
    expect(error).to.be.instanceOf(MalformedRequestError);
  });

  it('writes the response: {} when all was accepted, int64 as a string otherwise', () => {
    expect(jsonResponse(undefined)).to.deep.equal({});
    expect(jsonResponse({ rejectedSpans: 2, errorMessage: 'why' })).to.deep.equal({
      partialSuccess: { rejectedSpans: '2', errorMessage: 'why' },
    });
  });
});
