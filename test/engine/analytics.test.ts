// POST /engine/analytics over HTTP on every database: hand-computed buckets, groups, top-N with
// `other`, exact percentiles and 19-digit bucket starts, keys that differ only by a trailing
// space, trace grain, and the 422s the schema cannot express.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_123_456_789n;
const MINUTE = 60_000_000_000n;
const HOUR = 60n * MINUTE;
const QUERY = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 2n * HOUR) };

// Spans, each its own trace (parentless): [service, minute offset, duration ms, cost].
const SPANS: Array<[string | null, bigint, number, number | null]> = [
  ['llm', 0n, 100, 1],
  ['llm', 1n, 300, 2],
  ['llm', 61n, 200, null],
  ['db', 0n, 10, 0.5],
  ['db', 62n, 30, 0.25],
  ['db ', 5n, 5, null],
  [null, 119n, 7, 3],
];

function rows(applicationId: string): SpanRow[] {
  return SPANS.map(([service, minute, durationMs, cost], index) => {
    const start = BASE + minute * MINUTE;
    return spanRow({
      application_id: applicationId,
      trace_id: `${index + 1}`.padStart(32, '0'),
      span_id: `${index + 1}`.padStart(16, '0'),
      start_time_unix_nano: start.toString(),
      end_time_unix_nano: (start + BigInt(durationMs) * 1_000_000n).toString(),
      duration_ms: durationMs,
      service_name: service,
      cost,
    });
  });
}

interface Answer {
  status: number;
  text: string;
  body: {
    granularity: string;
    bucket_width_ns: number;
    groups: Array<{ key: Record<string, string | null>; points: Array<{ bucket_start_unix_nano: number; values: Array<number | null> }> }>;
    other: { points: Array<{ bucket_start_unix_nano: number; values: Array<number | null> }> } | null;
    truncated: boolean;
    detail: Array<{ loc: Array<string | number>; msg: string; type: string }>;
  };
}

onEachDatabase('POST /engine/analytics', (app) => {
  let caller: EngineCaller;
  const analytics = async (body: unknown, query: Record<string, string> = QUERY): Promise<Answer> => {
    const response = await call(app().url, 'POST', '/engine/analytics', { query, headers: caller.headers, json: body });
    return { status: response.status, text: response.text, body: response.body as Answer['body'] };
  };

  before(async () => {
    caller = await engineCaller(app());
    await storeSpans(app().server.knex, rows(caller.appId));
  });

  it('groups spans by service per hour, ranks by count, folds the rest into other, and writes bucket starts exactly', async () => {
    const answer = await analytics({
      group_by: ['service_name'],
      granularity: 'hour',
      measures: [{ fn: 'count' }, { fn: 'sum', field: 'cost' }, { fn: 'p50', field: 'duration_ms' }],
      row_limit: 2,
    });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.granularity).to.equal('hour');
    expect(answer.text).to.include(`"bucket_width_ns":${HOUR}`);
    // 19-digit starts, digit for digit: the window's start and one hour later.
    expect(answer.text).to.include(`"bucket_start_unix_nano":${BASE},`);
    expect(answer.text).to.include(`"bucket_start_unix_nano":${BASE + HOUR},`);
    expect(answer.body.groups.map((group) => group.key)).to.deep.equal([{ service_name: 'llm' }, { service_name: 'db' }]);
    expect(answer.body.groups.map((group) => group.points.map((point) => point.values))).to.deep.equal([
      [
        [2, 3, 200],
        [1, null, 200],
      ],
      [
        [1, 0.5, 10],
        [1, 0.25, 30],
      ],
    ]);
    // `db ` (a trailing space) and the span without a service are the other groups.
    expect(answer.body.truncated).to.equal(true);
    expect(answer.body.other?.points.map((point) => point.values)).to.deep.equal([
      [1, null, 5],
      [1, 3, 7],
    ]);
  });

  it('tells keys apart by a trailing space, ranks ties by key (null first), and orders ascending on request', async () => {
    const answer = await analytics({
      group_by: ['service_name'],
      granularity: 'auto',
      measures: [{ fn: 'count' }],
      order_by: { measure: 0, direction: 'asc' },
    });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.granularity).to.equal('minute');
    expect(answer.body.groups.map((group) => [group.key.service_name, group.points.length])).to.deep.equal([
      [null, 1],
      ['db ', 1],
      ['db', 2],
      ['llm', 3],
    ]);
    expect(answer.body.other).to.equal(null);
    expect(answer.body.truncated).to.equal(false);
  });

  it('interpolates percentiles between ranks and answers one group {} without group_by, with no points when nothing matches', async () => {
    const answer = await analytics({
      granularity: 'day',
      measures: [
        { fn: 'p90', field: 'duration_ms' },
        { fn: 'avg', field: 'cost' },
        { fn: 'min', field: 'cost' },
        { fn: 'max', field: 'duration_ms' },
      ],
    });
    expect(answer.status, answer.text).to.equal(200);
    // Durations 5, 7, 10, 30, 100, 200, 300: p90 at position 5.4 = 200 + 0.4 × 100.
    const [p90, avg, min, max] = answer.body.groups[0]?.points[0]?.values as number[];
    expect(answer.body.groups.map((group) => group.key)).to.deep.equal([{}]);
    expect(p90).to.be.closeTo(240, 1e-9);
    expect(avg).to.be.closeTo((1 + 2 + 0.5 + 0.25 + 3) / 5, 1e-12);
    expect([min, max]).to.deep.equal([0.25, 300]);

    const empty = await analytics({ filter: { field: 'service_name', op: 'eq', value: 'none' }, measures: [{ fn: 'count' }] });
    expect(empty.body.groups).to.deep.equal([{ key: {}, points: [] }]);
    const none = await analytics({
      filter: { field: 'service_name', op: 'eq', value: 'none' },
      group_by: ['service_name'],
      measures: [{ fn: 'count' }],
    });
    expect([none.body.groups, none.body.other, none.body.truncated]).to.deep.equal([[], null, false]);
  });

  it('answers granularity all as one bucket over the whole window: the hours added up, percentiles over the window, an all-null sum null', async () => {
    const measures = [{ fn: 'count' }, { fn: 'sum', field: 'cost' }, { fn: 'p50', field: 'duration_ms' }, { fn: 'max', field: 'cost' }];
    const whole = await analytics({ group_by: ['service_name'], granularity: 'all', measures });
    expect(whole.status, whole.text).to.equal(200);
    expect(whole.body.granularity).to.equal('all');
    expect(whole.text).to.include(`"bucket_width_ns":${2n * HOUR}`);
    expect(whole.text).to.include(`"bucket_start_unix_nano":${BASE},`);
    expect(whole.body.groups.map((group) => [group.key.service_name, group.points.map((point) => point.values)])).to.deep.equal([
      // p50 over the whole window: llm's 100, 300, 200 and db's 10, 30 (per hour it would be 10 and 30 apiece).
      ['llm', [[3, 3, 200, 2]]],
      ['db', [[2, 0.75, 20, 0.5]]],
      [null, [[1, 3, 7, 3]]],
      // Every cost of `db ` is unknown: the sum is null (nothing to add), not 0.
      ['db ', [[1, null, 5, null]]],
    ]);
    // The same counts and sums as the hour buckets added up.
    const hourly = await analytics({ group_by: ['service_name'], granularity: 'hour', measures });
    const added = hourly.body.groups.map((group) => [
      group.key.service_name,
      group.points.reduce((sum, point) => sum + Number(point.values[0]), 0),
      group.points.some((point) => point.values[1] !== null)
        ? group.points.reduce((sum, point) => sum + Number(point.values[1] ?? 0), 0)
        : null,
    ]);
    expect(added).to.deep.equal(
      whole.body.groups.map((group) => [group.key.service_name, group.points[0]?.values[0], group.points[0]?.values[1]]),
    );
    // Of any length: past the 300 days no bucketed granularity takes.
    const long = await analytics(
      { granularity: 'all', measures: [{ fn: 'count' }] },
      { start_time: nanosToRfc3339(BASE - 400n * 24n * HOUR), end_time: QUERY.end_time },
    );
    expect(long.status, long.text).to.equal(200);
    expect(long.body.groups[0]?.points.map((point) => point.values)).to.deep.equal([[7]]);
  });

  it('counts traces once at grain traces, grouped by the root service, with the summary figures', async () => {
    const answer = await analytics({
      grain: 'traces',
      group_by: ['service_name'],
      granularity: 'day',
      measures: [{ fn: 'count' }, { fn: 'sum', field: 'total_cost' }, { fn: 'max', field: 'spans_count' }],
      row_limit: 1,
    });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.groups).to.deep.equal([
      { key: { service_name: 'llm' }, points: [{ bucket_start_unix_nano: Number(BASE), values: [3, 3, 1] }] },
    ]);
    // An absent span cost counts as 0 in a trace's total_cost.
    expect(answer.body.other?.points[0]?.values).to.deep.equal([4, 3.75, 1]);
  });

  it('takes the trace-level filter fields at grain traces, the same traces POST /traces lists, and refuses them at grain spans', async () => {
    const filter = { field: 'trace.total_cost', op: 'gte', value: 2 };
    const answer = await analytics({
      grain: 'traces',
      filter,
      granularity: 'day',
      measures: [{ fn: 'count' }, { fn: 'min', field: 'total_cost' }],
    });
    expect(answer.status, answer.text).to.equal(200);
    const listed = await call(app().url, 'POST', '/traces', {
      query: { ...QUERY, search_child_spans: true, limit: 100 },
      headers: caller.headers,
      json: { filter },
    });
    expect(listed.status, listed.text).to.equal(200);
    const total = (listed.body as { pagination: { total: number } }).pagination.total;
    expect(total).to.be.greaterThan(0);
    const points = answer.body.groups.flatMap((group) => group.points);
    expect(points.reduce((sum, point) => sum + Number(point.values[0]), 0)).to.equal(total);
    for (const point of points) expect(Number(point.values[1])).to.be.at.least(2);
    const spans = await analytics({ grain: 'spans', filter, measures: [{ fn: 'count' }] });
    expect(spans.status, spans.text).to.equal(422);
  });

  it('refuses what the schema cannot express, each at its place', async () => {
    const cases: Array<[unknown, Array<string | number>, Record<string, string>?]> = [
      [{ group_by: ['duration_ms'], measures: [{ fn: 'count' }] }, ['body', 'group_by', 0]],
      [{ group_by: ['service_name', 'service_name'], measures: [{ fn: 'count' }] }, ['body', 'group_by', 1]],
      [{ group_by: ['nope'], measures: [{ fn: 'count' }] }, ['body', 'group_by', 0]],
      [{ grain: 'traces', group_by: ['span_kind'], measures: [{ fn: 'count' }] }, ['body', 'group_by', 0]],
      [{ measures: [{ fn: 'count', field: 'cost' }] }, ['body', 'measures', 0, 'field']],
      [{ measures: [{ fn: 'sum' }] }, ['body', 'measures', 0, 'field']],
      [{ measures: [{ fn: 'sum', field: 'total_cost' }] }, ['body', 'measures', 0, 'field']],
      [{ grain: 'traces', measures: [{ fn: 'sum', field: 'cost' }] }, ['body', 'measures', 0, 'field']],
      [{ group_by: ['unit'], measures: [{ fn: 'p99', field: 'cost' }], order_by: { measure: 0 } }, ['body', 'order_by', 'measure']],
      [{ measures: [{ fn: 'count' }], order_by: { measure: 1 } }, ['body', 'order_by', 'measure']],
      [
        { granularity: 'minute', measures: [{ fn: 'count' }] },
        ['body', 'granularity'],
        { start_time: QUERY.start_time, end_time: nanosToRfc3339(BASE + 301n * MINUTE) },
      ],
      [
        { measures: [{ fn: 'count' }] },
        ['body', 'granularity'],
        { start_time: QUERY.start_time, end_time: nanosToRfc3339(BASE + 301n * 24n * HOUR) },
      ],
    ];
    for (const [body, loc, query] of cases) {
      const answer = await analytics(body, query);
      expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).to.equal(422);
      expect(
        answer.body.detail.map((issue) => issue.loc),
        JSON.stringify(body),
      ).to.deep.include(loc);
    }
    // Without order_by, a percentile first is refused where the caller put it, naming the order_by that ranks.
    const unranked = await analytics({ group_by: ['unit'], measures: [{ fn: 'p95', field: 'duration_ms' }, { fn: 'count' }] });
    expect(unranked.status, unranked.text).to.equal(422);
    expect(unranked.body.detail.map((issue) => issue.loc)).to.deep.equal([['body', 'measures', 0]]);
    expect(unranked.body.detail[0]?.msg).to.include('percentile').and.include('order_by: {"measure": 1}');
    // Exactly 300 buckets is allowed.
    const fits = await analytics(
      { granularity: 'minute', measures: [{ fn: 'count' }] },
      { start_time: QUERY.start_time, end_time: nanosToRfc3339(BASE + 300n * MINUTE) },
    );
    expect(fits.status, fits.text).to.equal(200);
  });
});
