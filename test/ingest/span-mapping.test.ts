// The mapping from decoded OTLP spans to stored rows, and the per-span rejections reported as
// partial success.
import { expect } from 'chai';
import type { DecodedEvent, DecodedSpan } from '../../src/ingest/otlp-request.js';
import { numberOf, textOf, toSpanRows } from '../../src/ingest/span-mapping.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

function span(overrides: Partial<DecodedSpan> = {}): DecodedSpan {
  return {
    traceId: TRACE,
    spanId: '00f067aa0ba902b7',
    parentSpanId: '',
    name: 'work',
    kind: 1,
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
    ...overrides,
  };
}

function map(spans: DecodedSpan[], resourceAttributes = {}) {
  return toSpanRows({ resourceSpans: [{ resourceAttributes, spans }] }, 'app_1', 1_763_800_000_000);
}

describe('span mapping', () => {
  it('maps the first-class fields from service.name and the vendor.* attributes', () => {
    const attributes = {
      'vendor.unit': 'llm',
      'vendor.parent_unit': 'summarizer',
      'vendor.cost': 0.0042,
      'vendor.billing.resource_type': 'llm_generate_content',
      'vendor.billing.resource_name': 'gemini',
      'vendor.billing.service_id': 42,
      'vendor.billing.service_name': 'Gemini API',
      'vendor.billing.sku_id': 'sku-1',
      'vendor.billing.sku_name': 'output tokens',
      'vendor.billing.region': 'eu',
      'vendor.usage.amount': '1680',
      'vendor.usage.unit': 'tokens',
      'http.route': '/x',
    };
    const { rows, partialSuccess } = map([span({ kind: 3, parentSpanId: 'aaaaaaaaaaaaaaaa', attributes })], {
      'service.name': 'summarizer',
      'host.name': 'h1',
    });
    expect(partialSuccess).to.equal(undefined);
    expect(rows).to.deep.equal([
      {
        application_id: 'app_1',
        trace_id: TRACE,
        span_id: '00f067aa0ba902b7',
        parent_span_id: 'aaaaaaaaaaaaaaaa',
        start_time_unix_nano: '1795355100123456789',
        end_time_unix_nano: '1795355100223456789',
        duration_ms: 100,
        span_name: 'work',
        span_kind: 'SPAN_KIND_CLIENT',
        service_name: 'summarizer',
        unit: 'llm',
        parent_unit: 'summarizer',
        cost: 0.0042,
        billing_resource_type: 'llm_generate_content',
        billing_resource_name: 'gemini',
        billing_service_id: '42',
        billing_service_name: 'Gemini API',
        billing_sku_id: 'sku-1',
        billing_sku_name: 'output tokens',
        billing_region: 'eu',
        usage_amount: 1680,
        usage_unit: 'tokens',
        resource_attributes: '{"service.name":"summarizer","host.name":"h1"}',
        span_attributes: JSON.stringify(attributes),
        status_code: 'STATUS_CODE_UNSET',
        status_message: null,
        scope_name: null,
        scope_version: null,
        events: null,
        links: null,
        dropped_attributes_count: 0,
        dropped_events_count: 0,
        dropped_links_count: 0,
        received_at: 1_763_800_000_000,
        indexed_value_1: null,
        indexed_value_2: null,
        indexed_value_3: null,
      },
    ]);
  });

  it('leaves derived fields null without their attributes, and empty attribute maps null', () => {
    const [row] = map([span()]).rows;
    expect(row).to.include({
      service_name: null,
      unit: null,
      parent_unit: null,
      cost: null,
      usage_amount: null,
      usage_unit: null,
      billing_region: null,
      resource_attributes: null,
      span_attributes: null,
    });
  });

  const KINDS: Array<[number, string]> = [
    [0, 'SPAN_KIND_UNSPECIFIED'],
    [1, 'SPAN_KIND_INTERNAL'],
    [2, 'SPAN_KIND_SERVER'],
    [3, 'SPAN_KIND_CLIENT'],
    [4, 'SPAN_KIND_PRODUCER'],
    [5, 'SPAN_KIND_CONSUMER'],
    [6, 'SPAN_KIND_UNSPECIFIED'],
    [-1, 'SPAN_KIND_UNSPECIFIED'],
  ];
  for (const [kind, name] of KINDS) {
    it(`stores kind ${kind} as ${name}`, () => {
      expect(map([span({ kind })]).rows[0].span_kind).to.equal(name);
    });
  }

  it('treats an all-zero parent id as no parent', () => {
    expect(map([span({ parentSpanId: '0000000000000000' })]).rows[0].parent_span_id).to.equal(null);
  });

  const TEXT: Array<[unknown, string | null]> = [
    ['x', 'x'],
    [42, '42'],
    [true, 'true'],
    [null, null],
    [undefined, null],
    [['a', 1], '["a",1]'],
    [{ k: 'v' }, '{"k":"v"}'],
  ];
  for (const [given, want] of TEXT) {
    it(`reads ${JSON.stringify(given)} as the text ${JSON.stringify(want)}`, () => {
      expect(textOf(given as never)).to.equal(want);
    });
  }

  const NUMBERS: Array<[unknown, number | null]> = [
    [0.25, 0.25],
    [3, 3],
    ['1.5', 1.5],
    [' 2e3 ', 2000],
    ['9007199254740993', 9007199254740992],
    ['NaN', null],
    ['Infinity', null],
    ['0x10', null],
    ['', null],
    ['cheap', null],
    [true, null],
    [[1], null],
    [null, null],
  ];
  for (const [given, want] of NUMBERS) {
    it(`reads ${JSON.stringify(given)} as the number ${want}`, () => {
      expect(numberOf(given as never)).to.equal(want);
    });
  }

  const REJECTED: Array<[string, Partial<DecodedSpan>, string]> = [
    ['a 5-byte trace id', { traceId: 'abcdef0123' }, 'invalid trace_id: must be 16 bytes (32 hex digits)'],
    ['an all-zero trace id', { traceId: '0'.repeat(32) }, 'invalid trace_id: all zeros'],
    ['a trace id that is not hex', { traceId: 'g'.repeat(32) }, 'invalid trace_id: must be 16 bytes (32 hex digits)'],
    ['an empty span id', { spanId: '' }, 'invalid span_id: must be 8 bytes (16 hex digits)'],
    ['an all-zero span id', { spanId: '0'.repeat(16) }, 'invalid span_id: all zeros'],
    ['a 4-byte parent id', { parentSpanId: 'abcdef01' }, 'invalid parent_span_id: must be 8 bytes (16 hex digits)'],
    ['no start time', { startTimeUnixNano: '0' }, 'missing start_time_unix_nano'],
    ['no end time', { endTimeUnixNano: '0' }, 'missing end_time_unix_nano'],
    ['an end before the start', { startTimeUnixNano: '200', endTimeUnixNano: '100' }, 'end time before start time'],
    ['a time past 2^63', { startTimeUnixNano: '100', endTimeUnixNano: '9223372036854775808' }, 'time out of range (after the year 2262)'],
    ['a span name over 65,535 bytes', { name: 'é'.repeat(40_000) }, 'span_name longer than 65535 bytes'],
    ['a unit over 65,535 bytes', { attributes: { 'vendor.unit': 'u'.repeat(65_536) } }, 'unit longer than 65535 bytes'],
    ['a status message over 65,535 bytes', { statusMessage: 'm'.repeat(65_536) }, 'status_message longer than 65535 bytes'],
    [
      'a link to a 4-byte span id',
      { links: [{ traceId: TRACE, spanId: 'abcdef01', traceState: '', attributes: {}, droppedAttributesCount: 0 }] },
      'invalid link span_id: must be 8 bytes (16 hex digits)',
    ],
    [
      'a link to an all-zero trace id',
      { links: [{ traceId: '0'.repeat(32), spanId: 'abcdef0123456789', traceState: '', attributes: {}, droppedAttributesCount: 0 }] },
      'invalid link trace_id: all zeros',
    ],
    [
      'an event time past 2^63',
      { events: [{ name: 'e', timeUnixNano: '9223372036854775808', attributes: {}, droppedAttributesCount: 0 }] },
      'event time out of range (after the year 2262)',
    ],
  ];
  for (const [name, overrides, problem] of REJECTED) {
    it(`rejects a span with ${name} and stores the rest`, () => {
      const good = span({ spanId: '1111111111111111' });
      const bad = span(overrides);
      const { rows, partialSuccess } = map([good, bad]);
      expect(rows.map((row) => row.span_id)).to.deep.equal(['1111111111111111']);
      expect(partialSuccess).to.deep.equal({ rejectedSpans: 1, errorMessage: `span ${bad.spanId || '(no span_id)'}: ${problem}` });
    });
  }

  it('maps status codes by name, events and links as JSON with exact times, and the scope', () => {
    const scope = { name: 'lib', version: '' };
    const events: DecodedEvent[] = [
      {
        name: 'exception',
        timeUnixNano: '1795355100123456789',
        attributes: { 'exception.type': 'E', 'exception.message': 'é "quoted"' },
        droppedAttributesCount: 1,
      },
      { name: 'tick', timeUnixNano: '0', attributes: {}, droppedAttributesCount: 0 },
    ];
    const links = [{ traceId: TRACE, spanId: 'aaaaaaaaaaaaaaaa', traceState: '', attributes: { n: 1 }, droppedAttributesCount: 0 }];
    const { rows } = map([
      span({
        spanId: '1111111111111111',
        statusCode: 2,
        statusMessage: 'boom',
        events,
        links,
        droppedAttributesCount: 4,
        droppedEventsCount: 5,
        droppedLinksCount: 6,
        scope,
      }),
      span({ spanId: '2222222222222222', statusCode: 1 }),
      span({ spanId: '3333333333333333', statusCode: 9 }),
    ]);
    expect(rows[0]).to.deep.include({
      status_code: 'STATUS_CODE_ERROR',
      status_message: 'boom',
      scope_name: 'lib',
      scope_version: null,
      dropped_attributes_count: 4,
      dropped_events_count: 5,
      dropped_links_count: 6,
    });
    expect(rows[0]?.events).to.equal(
      '[{"name":"exception","time_unix_nano":1795355100123456789,"attributes":{"exception.type":"E","exception.message":"é \\"quoted\\""},"dropped_attributes_count":1},' +
        '{"name":"tick","time_unix_nano":0,"attributes":null,"dropped_attributes_count":0}]',
    );
    expect(JSON.parse(rows[0]?.links ?? 'null')).to.deep.equal([
      { trace_id: TRACE, span_id: 'aaaaaaaaaaaaaaaa', trace_state: null, attributes: { n: 1 }, dropped_attributes_count: 0 },
    ]);
    expect(rows.map((row) => row.status_code)).to.deep.equal(['STATUS_CODE_ERROR', 'STATUS_CODE_OK', 'STATUS_CODE_UNSET']);
  });

  it('stores equal start and end times (a zero duration)', () => {
    const { rows } = map([span({ endTimeUnixNano: '1795355100123456789' })]);
    expect(rows[0].duration_ms).to.equal(0);
  });

  it('spells out the first ten reasons and counts the rest', () => {
    const bad = Array.from({ length: 13 }, (_, index) => span({ spanId: (index + 1).toString(16).padStart(16, '0'), traceId: 'ab' }));
    const { rows, partialSuccess } = map(bad);
    expect(rows).to.deep.equal([]);
    expect(partialSuccess?.rejectedSpans).to.equal(13);
    expect(partialSuccess?.errorMessage.split('; ')).to.have.length(11);
    expect(partialSuccess?.errorMessage).to.match(/; and 3 more$/);
  });
});
