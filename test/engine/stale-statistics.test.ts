// POST /engine/metrics and POST /engine/analytics at grain traces under a filter on any span, on
// tables whose index statistics are stale: on MariaDB the spans table is filled with its
// statistics held at the empty table's (STATS_AUTO_RECALC=0), where a correlated EXISTS was
// planned as a read of every span of the application per trace. Under a regex filter such a plan
// passes the statement time limit and answers 422 time_limit; the answers must be the reference
// evaluator's, on SQLite too.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { isMysql } from '../../src/storage/sql/index.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { type EngineSchemas, isClose, nanosToRfc3339 } from '../support/engine-helpers.js';
import { expectedAnalytics, expectedMetrics, type AnalyticsBody } from '../support/reference-evaluator.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_000_000_000n;
const MS = 1_000_000n;
const HOUR = 3_600_000n * MS;
const WINDOW = { startNs: BASE, endNs: BASE + 12n * HOUR };
const QUERY = { start_time: nanosToRfc3339(WINDOW.startNs), end_time: nanosToRfc3339(WINDOW.endNs) };
const TRACES = 1_500;
const CHILD_NAMES = ['db.query', 'llm.call', 'cache.get'];

/** Traces 30 s apart, 3 to 5 spans each; the last 60 start after the window. */
function rows(applicationId: string): SpanRow[] {
  return Array.from({ length: TRACES }, (_, trace) => {
    const traceId = (trace + 1).toString(16).padStart(32, '0');
    const start = BASE + BigInt(trace) * 30_000n * MS;
    return Array.from({ length: 3 + (trace % 3) }, (_, position) =>
      spanRow({
        application_id: applicationId,
        trace_id: traceId,
        span_id: (trace * 8 + position + 1).toString(16).padStart(16, '0'),
        parent_span_id: position === 0 ? null : (trace * 8 + 1).toString(16).padStart(16, '0'),
        // A child may start before its root (clock skew): the window is the root's.
        start_time_unix_nano: (start + BigInt(position === 1 ? -2 : position) * MS).toString(),
        end_time_unix_nano: (start + BigInt((position + 1) * (1 + (trace % 7))) * 10n * MS).toString(),
        span_name: position === 0 ? 'GET /orders' : (CHILD_NAMES[(trace + position) % CHILD_NAMES.length] as string),
        cost: (trace % 11) * 0.5,
      }),
    );
  }).flat();
}

const dbQuery = { field: 'span_name', op: 'regex', value: '^db\\.query$' };

onEachDatabase(
  'span filters over trace summaries on stale index statistics',
  (app) => {
    let caller: EngineCaller;
    let stored: SpanRow[];
    const post = (path: string, json: unknown, query: Record<string, string> = QUERY) =>
      call(app().url, 'POST', path, { query, headers: caller.headers, json });

    before(async function () {
      this.timeout(120_000);
      caller = await engineCaller(app());
      const { knex } = app().server;
      if (isMysql(knex)) await knex.raw('ALTER TABLE spans STATS_AUTO_RECALC=0');
      stored = rows(caller.appId);
      for (let from = 0; from < stored.length; from += 1_000) await storeSpans(knex, stored.slice(from, from + 1_000));
      if (isMysql(knex)) {
        // The statistics still describe the empty table, as right after a fresh fill.
        const [[stats]] = (await knex.raw(
          "SELECT n_rows FROM mysql.innodb_table_stats WHERE database_name = DATABASE() AND table_name = 'spans'",
        )) as [[{ n_rows: number }]];
        expect(Number(stats.n_rows)).to.be.below(stored.length / 10);
      }
    });

    const expectMetrics = async (filter: unknown, query = QUERY, window = WINDOW) => {
      const response = await post('/engine/metrics', { filter }, query);
      expect(response.status, response.text.slice(0, 300)).to.equal(200);
      const body = response.body as EngineSchemas['TraceMetrics'];
      const expected = expectedMetrics(stored, window, filter);
      expect(body.trace_count).to.equal(expected.trace_count);
      for (const figure of ['duration', 'cost', 'spans_per_trace'] as const) {
        for (const [statistic, value] of Object.entries(expected[figure])) {
          const actual = body[figure][statistic as keyof EngineSchemas['Distribution']];
          expect(isClose(actual, value, 1e-9), `${figure}.${statistic}: ${actual} vs ${value}`).to.equal(true);
        }
      }
      return body;
    };

    it('POST /engine/metrics under a regex on any span answers within the time limit, as the reference does', async () => {
      const body = await expectMetrics(dbQuery);
      expect(body.trace_count).to.be.within(1, TRACES - 1);
    });

    it('POST /engine/analytics at grain traces with a percentile, the same way', async () => {
      const body: AnalyticsBody = {
        grain: 'traces',
        filter: dbQuery,
        granularity: 'hour',
        measures: [{ fn: 'count' }, { fn: 'p95', field: 'duration_ms' }, { fn: 'sum', field: 'total_cost' }],
      };
      const response = await post('/engine/analytics', body);
      expect(response.status, response.text.slice(0, 300)).to.equal(200);
      const expected = expectedAnalytics(stored, WINDOW, body, HOUR);
      const points = (response.body as EngineSchemas['AnalyticsResponse']).groups[0]?.points ?? [];
      expect(points.length).to.equal(12);
      expect(points.map((point) => String(point.bucket_start_unix_nano))).to.deep.equal(
        expected.groups[0]?.points.map((point) => point.bucket_start_unix_nano),
      );
      points.forEach((point, index) => {
        const want = expected.groups[0]?.points[index]?.values ?? [];
        point.values.forEach((value, measure) =>
          expect(
            isClose(value as number, want[measure] as number, 1e-9),
            `point ${index} measure ${measure}: ${value} vs ${want[measure]}`,
          ).to.equal(true),
        );
      });
    });

    it('reads trace.* fields of the span’s own trace inside the span filter', async () => {
      await expectMetrics({ and: [dbQuery, { field: 'trace.spans_count', op: 'gte', value: 4 }] });
      await expectMetrics({
        or: [
          { field: 'span_name', op: 'eq', value: 'cache.get' },
          { field: 'trace.total_cost', op: 'gte', value: 4.5 },
        ],
      });
    });

    it('finds a span that starts before its root and the window, and nothing in a window without traces', async () => {
      // The first trace's second span starts 2 ms before its root, which starts the window.
      const early = await expectMetrics({ field: 'span_id', op: 'eq', value: '0000000000000002' });
      expect(early.trace_count).to.equal(1);
      const empty = { startNs: BASE - 2n * HOUR, endNs: BASE - HOUR };
      const none = await expectMetrics(
        dbQuery,
        { start_time: nanosToRfc3339(empty.startNs), end_time: nanosToRfc3339(empty.endNs) },
        empty,
      );
      expect(none.trace_count).to.equal(0);
    });
  },
  // Far above what the read needs (tens of ms), far below a read of every span per trace.
  { REGEX_STATEMENT_TIMEOUT_MS: '1000' },
);
