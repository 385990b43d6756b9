// POST /engine/metrics over HTTP on every database: values above 1e8 (where MariaDB's
// PERCENTILE_CONT goes wrong), linear interpolation between ranks, population stddev, the same
// traces as POST /traces?search_child_spans=true, and zeros when nothing matches.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { type EngineSchemas, isClose, nanosToRfc3339 } from '../support/engine-helpers.js';
import { expectedMetrics } from '../support/reference-evaluator.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_000_000_000n;
const MS = 1_000_000n;
const WINDOW = { startNs: BASE, endNs: BASE + 86_400_000n * MS };
const QUERY = { start_time: nanosToRfc3339(WINDOW.startNs), end_time: nanosToRfc3339(WINDOW.endNs) };

// Per trace: duration in nanoseconds, span costs, and the service of a child span.
const TRACES: Array<{ durationNs: bigint; costs: Array<number | null>; childService: string }> = [
  { durationNs: 470_562_540_000_000n, costs: [470_562_540.125], childService: 'llm' },
  { durationNs: 100_000_000_000_000n, costs: [0, null], childService: 'db' },
  { durationNs: 250_000_000_250_000n, costs: [150_000_000.5, 2, 3], childService: 'llm' },
  { durationNs: 999_999_999_999_999n, costs: [null, null, null, null, 1e9], childService: 'db' },
  { durationNs: 123_456_789_000_001n, costs: [1], childService: 'llm' },
  { durationNs: 1_500_000n, costs: [0.1, 0.2], childService: 'cache' },
];

function rows(applicationId: string): SpanRow[] {
  return TRACES.flatMap(({ durationNs, costs, childService }, index) => {
    const traceId = `${index + 1}`.padStart(32, '0');
    const start = BASE + BigInt(index) * 60_000n * MS;
    return costs.map((cost, position) =>
      spanRow({
        application_id: applicationId,
        trace_id: traceId,
        span_id: `${index + 1}${position + 1}`.padStart(16, '0'),
        parent_span_id: position === 0 ? null : `${index + 1}1`.padStart(16, '0'),
        start_time_unix_nano: (start + BigInt(position)).toString(),
        end_time_unix_nano: (start + (position === 0 ? durationNs : BigInt(position) + 1n)).toString(),
        cost,
        service_name: position === 0 ? 'web' : childService,
      }),
    );
  });
}

onEachDatabase('POST /engine/metrics', (app) => {
  let caller: EngineCaller;
  let stored: SpanRow[];
  const metrics = async (filter: unknown, query: Record<string, string> = QUERY) => {
    const response = await call(app().url, 'POST', '/engine/metrics', { query, headers: caller.headers, json: { filter } });
    expect(response.status, response.text).to.equal(200);
    return response.body as EngineSchemas['TraceMetrics'];
  };
  const expectClose = (actual: EngineSchemas['TraceMetrics'], expected: EngineSchemas['TraceMetrics']) => {
    expect(actual.trace_count).to.equal(expected.trace_count);
    for (const figure of ['duration', 'cost', 'spans_per_trace'] as const) {
      for (const [statistic, value] of Object.entries(expected[figure])) {
        const actualValue = actual[figure][statistic as keyof EngineSchemas['Distribution']];
        expect(isClose(actualValue, value, 1e-9), `${figure}.${statistic}: ${actualValue} vs ${value}`).to.equal(true);
      }
    }
  };

  before(async () => {
    caller = await engineCaller(app());
    stored = rows(caller.appId);
    await storeSpans(app().server.knex, stored);
  });

  it('computes exact percentiles and the population stddev for values above 1e8', async () => {
    const body = await metrics(null);
    expectClose(body, expectedMetrics(stored, WINDOW, null));
    // Durations sorted: 1.5, 100000000, 123456789.000001, 250000000.25, 470562540, 999999999.999999.
    // p50 at position 2.5: halfway between the 3rd and 4th values.
    expect(body.duration.median).to.equal(body.duration.p50);
    expect(isClose(body.duration.p50, (123_456_789.000001 + 250_000_000.25) / 2, 1e-12)).to.equal(true);
    expect(body.duration.min).to.equal(1.5);
    expect(body.duration.max).to.equal(999_999_999.999999);
    // p90 at position 4.5, p99 at 4.95.
    expect(isClose(body.duration.p90, 470_562_540 + 0.5 * (999_999_999.999999 - 470_562_540), 1e-12)).to.equal(true);
    expect(isClose(body.duration.p99, 470_562_540 + 0.95 * (999_999_999.999999 - 470_562_540), 1e-12)).to.equal(true);
    expect(body.trace_count).to.equal(6);
    expect(body.spans_per_trace).to.include({ min: 1, max: 5, p50: 2 });
    expect(isClose(body.cost.max, 1e9, 1e-15)).to.equal(true);
  });

  it('covers exactly the traces POST /traces?search_child_spans=true lists', async () => {
    const filter = { field: 'service_name', op: 'eq', value: 'db' };
    const listed = await call(app().url, 'POST', '/traces', {
      query: { ...QUERY, search_child_spans: true, limit: 100 },
      headers: caller.headers,
      json: { filter },
    });
    const body = await metrics(filter);
    expect(body.trace_count).to.equal(listed.body.pagination.total).and.to.equal(2);
    expectClose(body, expectedMetrics(stored, WINDOW, filter));
  });

  it('answers zeros when no trace matches', async () => {
    const zero = { mean: 0, median: 0, p50: 0, p90: 0, p95: 0, p99: 0, min: 0, max: 0, stddev: 0 };
    const expected = { trace_count: 0, duration: zero, cost: zero, spans_per_trace: zero };
    expect(await metrics({ or: [] })).to.deep.equal(expected);
    const before = { start_time: nanosToRfc3339(BASE - 10_000n * MS), end_time: nanosToRfc3339(BASE) };
    expect(await metrics(null, before)).to.deep.equal(expected);
  });

  it('answers a single trace with every figure equal to its value and stddev 0', async () => {
    const body = await metrics({ field: 'service_name', op: 'eq', value: 'cache' });
    expect(body.trace_count).to.equal(1);
    expect(body.duration).to.deep.equal({ mean: 1.5, median: 1.5, p50: 1.5, p90: 1.5, p95: 1.5, p99: 1.5, min: 1.5, max: 1.5, stddev: 0 });
  });

  it('is a 422 on end_time when end_time is not after start_time', async () => {
    const response = await call(app().url, 'POST', '/engine/metrics', {
      query: { start_time: QUERY.start_time, end_time: QUERY.start_time },
      headers: caller.headers,
      json: {},
    });
    expect(response.status).to.equal(422);
    expect(response.body.detail[0].loc).to.deep.equal(['query', 'end_time']);
  });
});
