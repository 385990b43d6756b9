// POST /traces sorted by `sort` and `order` over HTTP on every database: random traces (equal
// costs, durations, span counts and start times among them), every sort in both orders, with and
// without search_child_spans and a filter (on the root's summary, on any span, through an indexed
// slot, on a trace figure); every page walked by cursor, and by page number, equals the default
// list (the traces as before sorts existed) sorted in JS, ties by trace_id ascending. A cursor of
// one sort is refused with another; a sort or order outside the document's enum is a 422.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call, type ApiResponse } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { storeWithSlots } from '../support/indexed-slots.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_764_000_000_000_000_000n;
const MILLI = 1_000_000n;
const SECOND = 1_000n * MILLI;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 3_600n * SECOND) };
const MODEL_PATH = 'span_attributes.model';

const SORTS = ['start_time', 'total_cost', 'duration_ms', 'spans_count'] as const;
type Sort = (typeof SORTS)[number];
const ORDERS = ['desc', 'asc'] as const;

interface Summary {
  trace_id: string;
  min_start_time_unix_nano: number | string;
  total_cost: number;
  duration_ms: number;
  spans_count: number;
}

/** mulberry32: the same traces on every run and database. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');

/** `n` traces: a root and 0 to 4 children each, with values drawn from small sets so that ties are common. */
function randomTraces(applicationId: string, n: number): SpanRow[] {
  const next = random(34);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const costs = [null, 0, 0.1, 0.2, 0.25, 1.5, 0.30000000000000004, 1e-7] as const;
  const rows: SpanRow[] = [];
  let spanId = 1;
  for (let index = 0; index < n; index += 1) {
    const traceId = hex(0x9000 - index * 37, 32);
    // Starts on a coarse grid (equal starts), some roots before the window (never listed).
    const start = BASE + BigInt(pick([-2, 1, 2, 3, 5, 8, 13])) * SECOND + BigInt(pick([0, 250, 500])) * MILLI;
    const root = spanId++;
    const span = (overrides: Partial<SpanRow>, at: bigint, ms: number) =>
      spanRow({
        application_id: applicationId,
        trace_id: traceId,
        span_id: hex(spanId++, 16),
        start_time_unix_nano: at.toString(),
        end_time_unix_nano: (at + BigInt(ms) * MILLI).toString(),
        cost: pick(costs),
        ...overrides,
      });
    const withoutRoot = next() < 0.05;
    if (!withoutRoot) {
      rows.push({
        ...span(
          { parent_span_id: null, span_kind: 'SPAN_KIND_SERVER', span_name: pick(['GET /a', 'GET /b', 'db']) },
          start,
          pick([10, 20, 40]),
        ),
        span_id: hex(root, 16),
        service_name: pick(['web', 'api']),
      });
    }
    const children = Math.floor(next() * 5);
    for (let child = 0; child < children; child += 1) {
      const at = start + BigInt(pick([1, 2, 5])) * MILLI;
      const model = pick([null, 'm1', 'm2']);
      rows.push(
        span(
          {
            parent_span_id: hex(root, 16),
            span_kind: 'SPAN_KIND_CLIENT',
            span_name: pick(['db', 'llm', 'cache']),
            service_name: 'worker',
            span_attributes: model === null ? null : JSON.stringify({ model }),
          },
          at,
          pick([5, 20, 60]),
        ),
      );
    }
  }
  return rows;
}

/** The JS order the API promises: the sort's field in its direction, then trace_id ascending. */
function sortedLikeTheApi(summaries: Summary[], sort: Sort, order: 'asc' | 'desc'): string[] {
  const value = (summary: Summary) => (sort === 'start_time' ? BigInt(summary.min_start_time_unix_nano) : (summary[sort] as number));
  return [...summaries]
    .sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      if (x !== y) return (x < y ? -1 : 1) * (order === 'asc' ? 1 : -1);
      return a.trace_id < b.trace_id ? -1 : a.trace_id > b.trace_id ? 1 : 0;
    })
    .map((summary) => summary.trace_id);
}

const QUERIES: Array<{ name: string; searchChildSpans: boolean; filter: unknown }> = [
  { name: 'no filter', searchChildSpans: false, filter: null },
  { name: 'no filter, any span', searchChildSpans: true, filter: null },
  { name: 'root span_name', searchChildSpans: false, filter: { field: 'span_name', op: 'eq', value: 'db' } },
  { name: 'any span_name', searchChildSpans: true, filter: { field: 'span_name', op: 'eq', value: 'db' } },
  { name: 'root service (summary only)', searchChildSpans: false, filter: { field: 'service_name', op: 'eq', value: 'web' } },
  { name: 'indexed slot on any span', searchChildSpans: true, filter: { field: MODEL_PATH, op: 'eq', value: 'm1' } },
  {
    name: 'any span and a trace figure',
    searchChildSpans: true,
    filter: {
      and: [
        { field: 'span_name', op: 'eq', value: 'llm' },
        { field: 'trace.total_cost', op: 'gt', value: 0.2 },
      ],
    },
  },
];

onEachDatabase('POST /traces sorted', (app) => {
  let caller: EngineCaller;
  const list = (query: Record<string, string | number | boolean | undefined>, filter: unknown = null): Promise<ApiResponse> =>
    call(app().url, 'POST', '/traces', { query: { ...WINDOW, ...query }, headers: caller.headers, json: { filter } });

  /** Every page by cursor: the summaries in order and the totals each page reported. */
  async function cursorWalk(query: Record<string, string | number | boolean | undefined>, filter: unknown): Promise<Summary[]> {
    const found: Summary[] = [];
    let cursor: string | undefined;
    for (let page = 1; page < 100; page += 1) {
      const response = await list({ ...query, cursor }, filter);
      expect(response.status, response.text).to.equal(200);
      expect(response.body.pagination.page).to.equal(page);
      found.push(...(response.body.data as Summary[]));
      if (response.body.next_cursor === null) return found;
      cursor = response.body.next_cursor as string;
    }
    throw new Error('the walk did not end');
  }

  before(async () => {
    caller = await engineCaller(app());
    await storeWithSlots(app().server.knex, caller.appId, randomTraces(caller.appId, 60), [MODEL_PATH], 'writer');
  });

  for (const query of QUERIES) {
    it(`lists the same traces in every sort and order, walked by cursor and by page: ${query.name}`, async () => {
      const scs = { search_child_spans: query.searchChildSpans };
      const unsorted = await cursorWalk({ ...scs, limit: 100 }, query.filter);
      // The random data must give every sort something to order, ties included.
      expect(unsorted.length, 'traces listed').to.be.greaterThan(4);
      for (const sort of SORTS) {
        for (const order of ORDERS) {
          const want = sortedLikeTheApi(unsorted, sort, order);
          const byCursor = await cursorWalk({ ...scs, sort, order, limit: 4 }, query.filter);
          expect(
            byCursor.map((summary) => summary.trace_id),
            `${sort} ${order} by cursor`,
          ).to.deep.equal(want);
          const second = await list({ ...scs, sort, order, limit: 4, page: 2 }, query.filter);
          expect(second.status, second.text).to.equal(200);
          expect(second.body.pagination.total).to.equal(want.length);
          expect(
            second.body.data.map((summary: Summary) => summary.trace_id),
            `${sort} ${order} page 2`,
          ).to.deep.equal(want.slice(4, 8));
        }
      }
    });
  }

  it('has ties in every sort, so that the tie-break is exercised', async () => {
    const all = await cursorWalk({ limit: 100 }, null);
    for (const sort of SORTS) {
      const values = all.map((summary) => String(summary[sort === 'start_time' ? 'min_start_time_unix_nano' : sort]));
      expect(new Set(values).size, sort).to.be.lessThan(values.length);
    }
  });

  it('answers without sort and order exactly as with start_time desc named', async () => {
    const plain = await list({ limit: 5 });
    const named = await list({ limit: 5, sort: 'start_time', order: 'desc' });
    expect(plain.status).to.equal(200);
    expect(named.text).to.equal(plain.text);
    // The same list: its cursor reads on with the order named.
    const next = await list({ limit: 5, sort: 'start_time', order: 'desc', cursor: plain.body.next_cursor as string });
    expect(next.status, next.text).to.equal(200);
  });

  it('refuses a cursor of one sort or order with another, at ["query", "cursor"]', async () => {
    const first = await list({ limit: 3, sort: 'total_cost', order: 'desc' });
    const cursor = first.body.next_cursor as string;
    expect((await list({ limit: 3, sort: 'total_cost', order: 'desc', cursor })).status).to.equal(200);
    for (const other of [
      { sort: 'duration_ms', order: 'desc' },
      { sort: 'total_cost', order: 'asc' },
      { sort: undefined, order: undefined },
    ]) {
      const response = await list({ limit: 3, ...other, cursor });
      expect(response.status, JSON.stringify(other)).to.equal(422);
      expect(response.body.detail[0].loc).to.deep.equal(['query', 'cursor']);
      expect(response.body.detail[0].msg).to.contain('sort');
    }
    const plain = await list({ limit: 3 });
    const elsewhere = await list({ limit: 3, sort: 'spans_count', cursor: plain.body.next_cursor as string });
    expect(elsewhere.status).to.equal(422);
    expect(elsewhere.body.detail[0].loc).to.deep.equal(['query', 'cursor']);
  });

  it('refuses a cursor whose cost is not a number as the list writes it', async () => {
    const first = await list({ limit: 3, sort: 'total_cost' });
    const body = JSON.parse(Buffer.from(first.body.next_cursor as string, 'base64url').toString()) as { k: string[] };
    for (const part of ['abc', '0.10', 'Infinity', '']) {
      const forged = Buffer.from(JSON.stringify({ ...body, k: [part, body.k[1]] })).toString('base64url');
      const response = await list({ limit: 3, sort: 'total_cost', cursor: forged });
      expect(response.status, part).to.equal(422);
      expect(response.body.detail[0].loc).to.deep.equal(['query', 'cursor']);
    }
  });

  it('is a 422 for a sort or order outside the document', async () => {
    for (const [query, name] of [
      [{ sort: 'cost' }, 'sort'],
      [{ sort: 'TOTAL_COST' }, 'sort'],
      [{ order: 'up' }, 'order'],
    ] as const) {
      const response = await list({ limit: 3, ...query });
      expect(response.status, JSON.stringify(query)).to.equal(422);
      expect(response.body.detail[0].loc).to.deep.equal(['query', name]);
    }
  });
});
