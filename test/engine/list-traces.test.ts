// POST /traces over HTTP on every database: roots, the window rule, summaries over all of a
// trace's spans, search_child_spans, order and pagination.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339, parseEngineRead } from '../support/engine-helpers.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_000_000_000n;
const SECOND = 1_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 3600n * SECOND) };
const trace = (name: string) => name.padEnd(32, '0');
const id = (value: number) => value.toString(16).padStart(16, '0');

onEachDatabase('POST /traces', (app) => {
  let caller: EngineCaller;
  const at = (seconds: number, extraNanos = 0n) => (BASE + BigInt(seconds) * SECOND + extraNanos).toString();
  const span = (overrides: Partial<SpanRow> & Pick<SpanRow, 'trace_id' | 'span_id'>) =>
    spanRow({ application_id: caller.appId, cost: null, ...overrides });
  const list = async (query: Record<string, string | number | boolean> = {}, filter: unknown = null) => {
    const response = await call(app().url, 'POST', '/traces', {
      query: { ...WINDOW, ...query },
      headers: caller.headers,
      json: { filter },
    });
    expect(response.status, response.text).to.equal(200);
    return { body: parseEngineRead('/traces', response.text), text: response.text };
  };

  before(async () => {
    caller = await engineCaller(app());
    await storeSpans(app().server.knex, [
      // a: a parentless root, a child outside the window (it still counts), a child of another service.
      span({
        trace_id: trace('a'),
        span_id: id(1),
        start_time_unix_nano: at(100, 123n),
        end_time_unix_nano: at(101),
        span_name: 'root-a',
        service_name: 'web',
        unit: 'u-a',
        cost: 1.25,
      }),
      span({
        trace_id: trace('a'),
        span_id: id(2),
        parent_span_id: id(1),
        start_time_unix_nano: at(100, 500n),
        end_time_unix_nano: at(4000),
        span_name: 'db',
        service_name: 'db',
        span_kind: 'SPAN_KIND_CLIENT',
        cost: 0.5,
      }),
      // b: no parentless span: the earliest SERVER span is the root, ties broken by span_id.
      span({
        trace_id: trace('b'),
        span_id: id(4),
        parent_span_id: id(99),
        span_kind: 'SPAN_KIND_SERVER',
        start_time_unix_nano: at(200),
        end_time_unix_nano: at(201),
        span_name: 'server-4',
        service_name: 'api',
      }),
      span({
        trace_id: trace('b'),
        span_id: id(3),
        parent_span_id: id(99),
        span_kind: 'SPAN_KIND_SERVER',
        start_time_unix_nano: at(200),
        end_time_unix_nano: at(202),
        span_name: 'server-3',
        service_name: 'api',
      }),
      span({
        trace_id: trace('b'),
        span_id: id(5),
        parent_span_id: id(3),
        start_time_unix_nano: at(150),
        end_time_unix_nano: at(151),
        span_name: 'early-child',
        service_name: 'worker',
      }),
      // c: neither parentless nor SERVER: no root, never listed.
      span({ trace_id: trace('c'), span_id: id(6), parent_span_id: id(99), start_time_unix_nano: at(300), span_name: 'orphan' }),
      // d: root before the window, child inside: not in the window.
      span({
        trace_id: trace('d'),
        span_id: id(7),
        start_time_unix_nano: (BASE - 1n).toString(),
        end_time_unix_nano: at(10),
        span_name: 'root-d',
      }),
      span({ trace_id: trace('d'), span_id: id(8), parent_span_id: id(7), start_time_unix_nano: at(5), span_name: 'child-d' }),
      // e: root exactly at start_time (inclusive); f: root exactly at end_time (exclusive).
      span({
        trace_id: trace('e'),
        span_id: id(9),
        start_time_unix_nano: at(0),
        end_time_unix_nano: at(0, 470_562_540_123_456n),
        span_name: 'root-e',
        service_name: 'web',
      }),
      span({ trace_id: trace('f'), span_id: id(10), start_time_unix_nano: at(3600), span_name: 'root-f', service_name: 'web' }),
    ]);
  });

  it('lists one summary per trace whose root starts in the window, latest first, with exact digits', async () => {
    const { body, text } = await list();
    expect(body.pagination).to.deep.equal({ page: 1, limit: 20, total: 3 });
    expect(body.data.map((row) => row.trace_id)).to.deep.equal([trace('b'), trace('a'), trace('e')]);
    expect(text).to.include(`"min_start_time_unix_nano":${at(100, 123n)}`);
    expect(body.data[1]).to.deep.equal({
      trace_id: trace('a'),
      span_name: 'root-a',
      duration_ms: Number(BigInt(at(4000)) - BigInt(at(100, 123n))) / 1e6,
      spans_count: 2,
      total_cost: 1.75,
      error_count: 0,
      min_start_time_unix_nano: at(100, 123n),
      service_name: 'web',
      unit: 'u-a',
      parent_unit: null,
    });
    expect(body.data[0]).to.include({
      span_name: 'server-3',
      service_name: 'api',
      spans_count: 3,
      total_cost: 0,
      min_start_time_unix_nano: at(150),
    });
    // A duration above 1e8 ms, to the nanosecond.
    expect(body.data[2]).to.include({ span_name: 'root-e', duration_ms: 470_562_540.123456 });
  });

  it('tests the root only by default, and any span with search_child_spans=true', async () => {
    const onDb = { field: 'service_name', op: 'eq', value: 'db' };
    expect((await list({}, onDb)).body.data).to.deep.equal([]);
    expect((await list({ search_child_spans: false }, onDb)).body.pagination.total).to.equal(0);
    const children = await list({ search_child_spans: true }, onDb);
    expect(children.body.data.map((row) => row.trace_id)).to.deep.equal([trace('a')]);
    expect(children.body.pagination.total).to.equal(1);
    // A root field the summary does not hold (span_kind) joins the root span.
    const servers = await list({}, { field: 'span_kind', op: 'eq', value: 'SERVER' });
    expect(servers.body.data.map((row) => row.trace_id)).to.deep.equal([trace('b')]);
    const roots = await list(
      {},
      {
        and: [
          { field: 'service_name', op: 'eq', value: 'web' },
          { field: 'span_name', op: 'starts_with', value: 'root-' },
        ],
      },
    );
    expect(roots.body.data.map((row) => row.trace_id)).to.deep.equal([trace('a'), trace('e')]);
    expect((await list({ search_child_spans: true }, { or: [] })).body.pagination.total).to.equal(0);
  });

  it('pages in a stable order, with the total over all pages', async () => {
    const pages = [];
    for (const page of [1, 2, 3]) {
      const { body } = await list({ limit: 2, page });
      expect(body.pagination).to.deep.equal({ page, limit: 2, total: 3 });
      pages.push(body.data.map((row) => row.trace_id));
    }
    expect(pages).to.deep.equal([[trace('b'), trace('a')], [trace('e')], []]);
  });

  it('is a 422 on end_time when end_time is not after start_time', async () => {
    const response = await call(app().url, 'POST', '/traces', {
      query: { start_time: WINDOW.end_time, end_time: WINDOW.start_time },
      headers: caller.headers,
      json: {},
    });
    expect(response.status).to.equal(422);
    expect(response.body.detail[0].loc).to.deep.equal(['query', 'end_time']);
  });
});
