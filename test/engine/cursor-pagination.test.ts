// Keyset cursors of the engine's lists (POST /engine/query, POST /traces, GET /traces/live) over
// HTTP on every database: a cursor walk equals the page walk; a walk while spans arrive neither
// skips nor repeats a span that existed when it began; a cursor is bound to its operation and
// query (application, window, filter, search_child_spans, limit) and a malformed one, or one sent
// with `page`, is a 422 at ["query", "cursor"]; next_cursor is null on the last page.
import { expect } from 'chai';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call, type ApiResponse } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_900_000_000_000_000n;
const MINUTE = 60_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 600n * MINUTE) };

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

type List = { method: 'POST' | 'GET'; path: string; query?: Record<string, string | number | boolean> };
const LISTS: Record<string, List> = {
  querySpans: { method: 'POST', path: '/engine/query' },
  listTraces: { method: 'POST', path: '/traces' },
  listLiveSpans: { method: 'GET', path: '/traces/live' },
};

/** The ids a list answer carries, in order: span ids, or trace ids for POST /traces. */
function idsOf(list: List, body: { data: Array<{ trace_id: string; span_id?: string }> }): string[] {
  return body.data.map((item) => (list.path === '/traces' ? item.trace_id : `${item.trace_id}/${item.span_id ?? ''}`));
}

/** The page number an answer reports, at the top level or in `pagination`. */
function pageOf(body: { page?: number; pagination?: { page: number } }): number | undefined {
  return body.page ?? body.pagination?.page;
}

onEachDatabase('cursor pagination of the engine lists', (app) => {
  let caller: EngineCaller;
  let other: EngineCaller;
  const read = (
    list: List,
    query: Record<string, string | number | boolean>,
    options: { json?: unknown; who?: EngineCaller } = {},
  ): Promise<ApiResponse> =>
    call(app().url, list.method, list.path, {
      query: { ...WINDOW, ...list.query, ...query },
      headers: (options.who ?? caller).headers,
      json: list.method === 'POST' ? (options.json ?? {}) : undefined,
    });

  /** Every page of a list read by cursor, checking each page's number. */
  async function cursorWalk(list: List, limit: number, between: () => Promise<void> = async () => {}): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 1; page < 1000; page += 1) {
      const response = await read(list, cursor === null ? { limit } : { limit, cursor });
      expect(response.status, response.text).to.equal(200);
      expect(pageOf(response.body)).to.equal(page);
      ids.push(...idsOf(list, response.body));
      cursor = response.body.next_cursor;
      if (cursor === null) return ids;
      expect(cursor).to.be.a('string');
      await between();
    }
    throw new Error('the walk did not end');
  }

  async function pageWalk(list: List, limit: number): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page += 1) {
      const response = await read(list, { limit, page });
      const found = idsOf(list, response.body);
      ids.push(...found);
      if (found.length < limit) return ids;
    }
  }

  before(async () => {
    caller = await engineCaller(app());
    other = await engineCaller(app());
    const rows = [];
    // 23 spans in 23 traces, each its own root; pairs share a start time so that ties order by ids.
    for (let index = 0; index < 23; index += 1) {
      const start = BASE + BigInt(Math.floor(index / 2)) * MINUTE + 123_456_789n;
      rows.push(
        spanRow({
          application_id: caller.appId,
          trace_id: hex(500 - index, 32),
          span_id: hex(index + 1, 16),
          start_time_unix_nano: start.toString(),
          span_name: `op-${index % 4}`,
        }),
      );
    }
    rows.push(spanRow({ application_id: other.appId, trace_id: hex(9, 32), span_id: hex(9, 16), start_time_unix_nano: BASE.toString() }));
    await storeSpans(app().server.knex, rows);
  });

  for (const [operation, list] of Object.entries(LISTS)) {
    describe(operation, () => {
      it('walks by cursor exactly as by page, with next_cursor null on the last page', async () => {
        for (const limit of [1, 4, 5, 23, 100]) {
          const byPage = await pageWalk(list, limit);
          expect(byPage).to.have.length(23);
          expect(await cursorWalk(list, limit)).to.deep.equal(byPage);
        }
        const whole = await read(list, { limit: 23 });
        expect(whole.body.next_cursor).to.equal(null);
        const pastEnd = await read(list, { limit: 10, page: 50 });
        expect(pastEnd.body.next_cursor).to.equal(null);
      });

      it('is a 422 at ["query", "cursor"] for a malformed cursor, a cursor with page, and a cursor of another query', async () => {
        const first = await read(list, { limit: 4 });
        const cursor = first.body.next_cursor as string;
        expect((await read(list, { limit: 4, cursor })).status).to.equal(200);
        const tampered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(cursor, 'base64url').toString()), k: ['x'] })).toString(
          'base64url',
        );
        const refused: Array<[string, Promise<ApiResponse>]> = [
          ['not base64url JSON', read(list, { limit: 4, cursor: 'not a cursor!' })],
          ['JSON of another shape', read(list, { limit: 4, cursor: Buffer.from('{"v":1}').toString('base64url') })],
          ['a key that is not one', read(list, { limit: 4, cursor: tampered })],
          ['together with page', read(list, { limit: 4, cursor, page: 2 })],
          ['another limit', read(list, { limit: 5, cursor })],
          ['another window', read(list, { limit: 4, cursor, end_time: nanosToRfc3339(BASE + 601n * MINUTE) })],
          ['another application', read(list, { limit: 4, cursor }, { who: other })],
        ];
        if (list.method === 'POST')
          refused.push([
            'another filter',
            read(list, { limit: 4, cursor }, { json: { filter: { field: 'span_name', op: 'eq', value: 'op-1' } } }),
          ]);
        if (list.path === '/traces')
          refused.push(['another search_child_spans', read(list, { limit: 4, cursor, search_child_spans: true })]);
        for (const other of Object.values(LISTS).filter((each) => each !== list))
          refused.push([`another operation (${other.path})`, read(other, { limit: 4, cursor })]);
        for (const [why, pending] of refused) {
          const response = await pending;
          expect(response.status, why).to.equal(422);
          expect(response.body.detail, why).to.have.length(1);
          expect(response.body.detail[0].loc, why).to.deep.equal(['query', 'cursor']);
        }
      });
    });
  }

  it('a filtered cursor walk equals the filtered page walk (POST /engine/query and POST /traces)', async () => {
    const filter = { field: 'span_name', op: 'neq', value: 'op-2' };
    for (const list of [LISTS.querySpans, LISTS.listTraces] as List[]) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const response: ApiResponse = await read(list, cursor === null ? { limit: 3 } : { limit: 3, cursor }, { json: { filter } });
        ids.push(...idsOf(list, response.body));
        cursor = response.body.next_cursor;
      } while (cursor !== null);
      const whole = await read(list, { limit: 100 }, { json: { filter } });
      expect(ids).to.deep.equal(idsOf(list, whole.body));
      expect(ids.length).to.be.greaterThan(10);
    }
  });

  it('neither skips nor repeats a span while newer spans arrive inside the window (POST /engine/query, GET /traces/live)', async () => {
    const arriving = await engineCaller(app());
    const seed = [];
    for (let index = 0; index < 30; index += 1) {
      const start = BASE + BigInt(index) * MINUTE;
      seed.push(
        spanRow({
          application_id: arriving.appId,
          trace_id: hex(1000 + index, 32),
          span_id: hex(index + 1, 16),
          start_time_unix_nano: start.toString(),
        }),
      );
    }
    await storeSpans(app().server.knex, seed);
    const existing = seed.map((row) => `${row.trace_id}/${row.span_id}`);
    let added = 0;
    // Another task stores two spans between every two pages: one newer than every span, one in
    // the middle of the window (behind the walk for the newest-first list).
    const insert = async () => {
      added += 1;
      await storeSpans(app().server.knex, [
        spanRow({
          application_id: arriving.appId,
          trace_id: hex(5000 + added, 32),
          span_id: hex(9000 + added, 16),
          start_time_unix_nano: (BASE + 500n * MINUTE + BigInt(added)).toString(),
        }),
        spanRow({
          application_id: arriving.appId,
          trace_id: hex(6000 + added, 32),
          span_id: hex(9500 + added, 16),
          start_time_unix_nano: (BASE + 15n * MINUTE + 1n).toString(),
        }),
      ]);
    };
    const saved = caller;
    caller = arriving;
    try {
      for (const list of [LISTS.querySpans, LISTS.listLiveSpans] as List[]) {
        const walked = await cursorWalk(list, 4, insert);
        expect(new Set(walked).size, 'no repeats').to.equal(walked.length);
        expect(
          existing.filter((id) => !walked.includes(id)),
          'no skips',
        ).to.deep.equal([]);
      }
      expect(added).to.be.greaterThan(5);
    } finally {
      caller = saved;
    }
  });
});
