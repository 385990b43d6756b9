// GET /traces/{trace_id} on every database: one trace's summary equals its POST /traces list
// entry and its spans equal the /engine/query records, in start order; a cursor walk with small
// pages returns every span once; a rootless trace (never listed) is found with a null root; ids
// are read case-insensitively; a malformed id, an unknown trace, another application's trace,
// a key without read:traces and a cursor of another trace are refused as documented.
import { expect } from 'chai';
import { call } from '../support/contract.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { onEachDatabase } from '../support/test-server.js';

const T0 = 1_795_355_100_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(T0 - 60_000_000_000n), end_time: nanosToRfc3339(T0 + 3_600_000_000_000n) };
const TRACE = 'ab'.repeat(16);
const ROOTLESS = 'cd'.repeat(16);

interface SpanSpec {
  trace: string;
  id: number;
  parent: number | null;
  offsetMs: number;
  durationMs: number;
  cost?: number;
  error?: boolean;
}

function otlpSpan(spec: SpanSpec) {
  const start = T0 + BigInt(spec.offsetMs) * 1_000_000n;
  const attributes = [{ key: 'vendor.unit', value: { stringValue: `unit-${spec.id}` } }];
  if (spec.cost !== undefined) attributes.push({ key: 'vendor.cost', value: { doubleValue: spec.cost } } as never);
  return {
    traceId: spec.trace,
    spanId: spec.id.toString(16).padStart(16, '0'),
    ...(spec.parent !== null && { parentSpanId: spec.parent.toString(16).padStart(16, '0') }),
    name: `span ${spec.id}`,
    kind: spec.parent === null ? 2 : 1,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + BigInt(spec.durationMs) * 1_000_000n).toString(),
    attributes,
    ...(spec.error && { status: { code: 2, message: 'boom' } }),
  };
}

/** A root, nested children (two starting at the same time), one failing; and a trace whose spans all have parents. */
const SPANS: SpanSpec[] = [
  { trace: TRACE, id: 1, parent: null, offsetMs: 0, durationMs: 900, cost: 0.5 },
  { trace: TRACE, id: 2, parent: 1, offsetMs: 10, durationMs: 300, cost: 0.25 },
  { trace: TRACE, id: 4, parent: 2, offsetMs: 20, durationMs: 100, error: true },
  { trace: TRACE, id: 3, parent: 2, offsetMs: 20, durationMs: 50 },
  { trace: TRACE, id: 5, parent: 1, offsetMs: 400, durationMs: 600 },
  { trace: ROOTLESS, id: 7, parent: 6, offsetMs: 5, durationMs: 10 },
  { trace: ROOTLESS, id: 8, parent: 7, offsetMs: 6, durationMs: 2 },
];

onEachDatabase('GET /traces/{trace_id}', (app) => {
  let caller: EngineCaller;

  before(async () => {
    caller = await engineCaller(app());
    // Two requests, the root last, so the summary is merged from both.
    for (const part of [SPANS.slice(1), SPANS.slice(0, 1)]) {
      const body = {
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
            scopeSpans: [{ scope: { name: 't' }, spans: part.map(otlpSpan) }],
          },
        ],
      };
      const response = await call(app().url, 'POST', '/v1/traces', { headers: caller.headers, json: body });
      expect(response.status, response.text).to.equal(200);
    }
  });

  const getTrace = (traceId: string, query: Record<string, string> = {}, headers = caller.headers) =>
    call(app().url, 'GET', `/traces/${traceId}`, { headers, query });

  it("answers the trace's summary (as POST /traces lists it) and every span (as /engine/query returns it), in start order", async () => {
    const answer = await getTrace(TRACE);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.trace_id).to.equal(TRACE);
    expect(answer.body.next_cursor).to.equal(null);
    const listed = await call(app().url, 'POST', '/traces', { headers: caller.headers, query: WINDOW, json: {} });
    const entry = (listed.body.data as Array<Record<string, unknown>>).find((trace) => trace.trace_id === TRACE) as Record<string, unknown>;
    const { summary } = answer.body;
    for (const field of [
      'span_name',
      'duration_ms',
      'spans_count',
      'total_cost',
      'error_count',
      'min_start_time_unix_nano',
      'service_name',
      'unit',
      'parent_unit',
    ]) {
      expect(summary[field], field).to.deep.equal(entry[field]);
    }
    expect(summary).to.include({ root_span_id: '0000000000000001', spans_count: 5, error_count: 1, total_cost: 0.75, duration_ms: 1000 });
    expect(summary.root_start_time_unix_nano).to.equal(Number(T0));
    const ids = (answer.body.data as Array<{ span_id: string }>).map((span) => span.span_id.replace(/^0+/, ''));
    expect(ids).to.deep.equal(['1', '2', '3', '4', '5']);
    const queried = await call(app().url, 'POST', '/engine/query', {
      headers: caller.headers,
      query: { ...WINDOW, limit: '100' },
      json: { filter: { field: 'trace_id', op: 'eq', value: TRACE } },
    });
    const byId = new Map((queried.body.data as Array<{ span_id: string }>).map((span) => [span.span_id, span]));
    for (const span of answer.body.data as Array<{ span_id: string }>) expect(span).to.deep.equal(byId.get(span.span_id));
  });

  it('walks the spans by cursor, two a page, each once and in order; a cursor of another trace is a 422', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages += 1) {
      const answer = await getTrace(TRACE, { limit: '2', ...(cursor && { cursor }) });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body.data).to.have.length.at.most(2);
      seen.push(...(answer.body.data as Array<{ span_id: string }>).map((span) => span.span_id.replace(/^0+/, '')));
      cursor = answer.body.next_cursor;
      if (!cursor) break;
    }
    expect(seen).to.deep.equal(['1', '2', '3', '4', '5']);
    const first = await getTrace(TRACE, { limit: '2' });
    const elsewhere = await getTrace(ROOTLESS, { limit: '2', cursor: first.body.next_cursor });
    expect(elsewhere.status).to.equal(422);
    expect(elsewhere.body.detail[0].loc).to.deep.equal(['query', 'cursor']);
  });

  it('finds a trace without a root, which POST /traces never lists, with a null root', async () => {
    const answer = await getTrace(ROOTLESS);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.summary).to.include({ root_span_id: null, root_start_time_unix_nano: null, span_name: null, spans_count: 2 });
    expect((answer.body.data as unknown[]).length).to.equal(2);
  });

  it('reads upper-case digits as lower-case, and refuses any other form of id with a 422 at the path', async () => {
    const upper = await getTrace(TRACE.toUpperCase());
    expect(upper.status).to.equal(200);
    expect(upper.body.trace_id).to.equal(TRACE);
    for (const bad of ['ab'.repeat(15), `${'ab'.repeat(15)}zz`, 'live-ish-not-an-id']) {
      const refused = await getTrace(bad);
      expect(refused.status, bad).to.equal(422);
      expect(refused.body.detail[0].loc).to.deep.equal(['path', 'trace_id']);
    }
  });

  it("answers 404 for an unknown trace and for another application's trace, 403 without read:traces", async () => {
    expect((await getTrace('ef'.repeat(16))).status).to.equal(404);
    const other = await engineCaller(app());
    expect((await getTrace(TRACE, {}, other.headers)).status).to.equal(404);
    const writer = await engineCaller(app(), ['write:traces']);
    expect((await getTrace(TRACE, {}, writer.headers)).status).to.equal(403);
  });

  it('still routes GET /traces/live to the live list, not to a trace', async () => {
    const live = await call(app().url, 'GET', '/traces/live', { headers: caller.headers });
    expect(live.status).to.equal(200);
    expect(live.body).to.have.property('pagination');
  });
});
