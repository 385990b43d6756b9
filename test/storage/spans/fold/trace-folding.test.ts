// The folded trace figures (src/storage/spans/fold/trace-folding.ts, trace-figure-reads.ts,
// src/storage/spans/fold/README.md) on every database: the background fold folds every
// summary; POST /engine/metrics and trace-grain POST /engine/analytics without a filter are then
// answered from the folded figures (shown by changing a folded value and seeing the answer follow)
// and equal the reference evaluator's answer; a summary changed after folding is read as it is
// until it is folded again; span and error counts below 100 ride on the duration row, rows folded the
// earlier way still read and refile right; with more pending summaries than a read takes in, the
// summaries answer.
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { SpanRow } from '../../../../src/storage/spans/span-row.js';
import { storeSpans } from '../../../../src/storage/spans/writes/span-writer.js';
import { binOf, FOLD_STATE, MAX_PENDING } from '../../../../src/storage/spans/fold/trace-figures.js';
import { foldApplication } from '../../../../src/storage/spans/fold/trace-folding.js';
import { engineCaller, type EngineCaller } from '../../../support/auth.js';
import { call } from '../../../support/contract.js';
import { clearSpans, isClose, nanosToRfc3339 } from '../../../support/engine-helpers.js';
import { expectedAnalytics, expectedMetrics } from '../../../support/reference-evaluator.js';
import { spanRow } from '../../../support/span-rows.js';
import { statementsDuring } from '../../../support/statements.js';
import { expectFoldedFiguresMatchSummaries } from '../../../support/summary-check.js';
import { onEachDatabase, type TestServer } from '../../../support/test-server.js';

const HOUR = 3_600_000_000_000n;
/** On the hour. */
const START = 1_763_798_400_000_000_000n;
const WINDOW = [START, START + 3n * HOUR] as const;
const SERVICES = ['checkout', 'search', null];

/** Trace i: a root of (i % 3) service starting i × 7 minutes in (25 of them fill WINDOW), lasting 10 + 37·i mod 500 ms, and a child with a cost. */
function traceRows(applicationId: string, count: number, first = 0): SpanRow[] {
  return Array.from({ length: count }, (_, offset) => {
    const i = first + offset;
    const traceId = `${i + 1}`.padStart(32, 'a');
    const start = START + BigInt(i) * 420_000_000_000n + 1_000n;
    const durationNs = BigInt(10 + ((37 * i) % 500)) * 1_000_000n;
    return [
      spanRow({
        application_id: applicationId,
        trace_id: traceId,
        span_id: `${2 * i + 1}`.padStart(16, '0'),
        service_name: SERVICES[i % 3] as string | null,
        start_time_unix_nano: start.toString(),
        end_time_unix_nano: (start + durationNs).toString(),
      }),
      spanRow({
        application_id: applicationId,
        trace_id: traceId,
        span_id: `${2 * i + 2}`.padStart(16, '0'),
        parent_span_id: `${2 * i + 1}`.padStart(16, '0'),
        cost: (i % 4) * 0.25,
        start_time_unix_nano: (start + 1_000_000n).toString(),
        end_time_unix_nano: (start + 2_000_000n).toString(),
      }),
    ];
  }).flat();
}

/**
 * Trace i of `spanCounts`: a root of (i % 3) service starting i × 9 minutes in, and spanCounts[i] − 1
 * children, the first errorCounts[i] of the spans (root first) with an error status.
 */
function countedTraceRows(applicationId: string, spanCounts: number[], errorCounts: number[]): SpanRow[] {
  return spanCounts.flatMap((spans, i) => {
    const traceId = `c${i + 1}`.padStart(32, '0');
    const start = START + BigInt(i) * 540_000_000_000n;
    return Array.from({ length: spans }, (_, n) =>
      spanRow({
        application_id: applicationId,
        trace_id: traceId,
        span_id: `${i + 1}`.padStart(8, '0') + `${n + 1}`.padStart(8, '0'),
        parent_span_id: n === 0 ? null : `${i + 1}`.padStart(8, '0') + '00000001',
        service_name: SERVICES[i % 3] as string | null,
        status_code: n < (errorCounts[i] as number) ? 'STATUS_CODE_ERROR' : 'STATUS_CODE_UNSET',
        start_time_unix_nano: (start + BigInt(n) * 1_000_000n).toString(),
        end_time_unix_nano: (start + BigInt(n + 1) * 1_000_000n + 7_000_000n).toString(),
      }),
    );
  });
}

/** Rewrites a trace's folded counts as folds before migration 20261130000100 folded them: each in a row of its own. */
async function fileCountsInRows(knex: Knex, applicationId: string, traceId: string): Promise<void> {
  const duration = (await knex('trace_figures').where({ application_id: applicationId, trace_id: traceId, figure: 0 }).first()) as Record<
    string,
    unknown
  >;
  for (const [figure, column] of [
    [2, 'small_spans_count'],
    [3, 'small_error_count'],
  ] as const) {
    const value = Number(duration[column] ?? Number.NaN);
    expect(value, column).to.not.be.NaN;
    await knex('trace_figures').insert({
      application_id: applicationId,
      trace_id: traceId,
      figure,
      hour: duration.hour,
      service_key: duration.service_key,
      bin: binOf(value),
      value,
    });
  }
  await knex('trace_figures')
    .where({ application_id: applicationId, trace_id: traceId, figure: 0 })
    .update({ small_spans_count: null, small_error_count: null });
}

async function pendingCount(knex: Knex, applicationId: string): Promise<number> {
  const [row] = (await knex('traces')
    .where({ application_id: applicationId })
    .whereNot('folded', FOLD_STATE.folded)
    .count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(row?.n ?? 0);
}

function suite(app: () => TestServer, getCaller: () => EngineCaller) {
  const post = (path: string, body: unknown) =>
    call(app().url, 'POST', path, {
      query: { start_time: nanosToRfc3339(WINDOW[0]), end_time: nanosToRfc3339(WINDOW[1]) },
      headers: getCaller().headers,
      json: body,
    });

  async function expectMetrics(rows: SpanRow[]): Promise<Record<string, Record<string, number>> & { trace_count: number }> {
    const response = await post('/engine/metrics', { filter: null });
    expect(response.status, response.text).to.equal(200);
    const metrics = JSON.parse(response.text) as Record<string, Record<string, number>> & { trace_count: number };
    const wanted = expectedMetrics(rows, { startNs: WINDOW[0], endNs: WINDOW[1] }, null);
    expect(metrics.trace_count).to.equal(wanted.trace_count);
    for (const figure of ['duration', 'cost', 'spans_per_trace'] as const) {
      for (const [statistic, value] of Object.entries(wanted[figure])) {
        expect(
          isClose(metrics[figure]?.[statistic] as number, value, 1e-12, 1),
          `${figure}.${statistic}: ${metrics[figure]?.[statistic]} vs ${value}`,
        ).to.equal(true);
      }
    }
    return metrics;
  }
  return { post, expectMetrics };
}

onEachDatabase(
  'folded trace figures',
  (app) => {
    let caller: EngineCaller;
    before(async () => {
      caller = await engineCaller(app());
    });
    beforeEach(async () => clearSpans(app().server.knex, caller.appId));
    const { post, expectMetrics } = suite(app, () => caller);

    it('folds every summary in the background; metrics and analytics come from the folded figures and equal the reference', async function () {
      this.timeout(60_000);
      const knex = app().server.knex;
      const rows = traceRows(caller.appId, 25);
      await storeSpans(knex, rows);
      const deadline = Date.now() + 20_000;
      while ((await pendingCount(knex, caller.appId)) > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await pendingCount(knex, caller.appId), 'pending after the background fold').to.equal(0);
      // Duration and cost rows; the counts (2 spans, no error) ride on the duration row.
      const [folded] = (await knex('trace_figures').where({ application_id: caller.appId }).count({ n: '*' })) as Array<{
        n: number | string;
      }>;
      expect(Number(folded?.n)).to.equal(25 * 2);
      await expectFoldedFiguresMatchSummaries(knex, caller.appId);
      const histogram = (await knex('trace_histograms')
        .where({ application_id: caller.appId })
        .groupBy('figure')
        .select('figure')
        .sum({ n: 'trace_count' })) as Array<{ figure: number; n: number | string }>;
      expect(histogram.map((row) => Number(row.n))).to.deep.equal([25, 25, 25, 25]);

      const statements = await statementsDuring(knex, () => expectMetrics(rows));
      expect(statements.some((sql) => sql.includes('trace_histograms'))).to.equal(true);
      expect(statements.some((sql) => sql.includes('ROW_NUMBER()'))).to.equal(false);

      const body = {
        grain: 'traces' as const,
        group_by: ['service_name'],
        granularity: 'hour',
        measures: [{ fn: 'count' }, { fn: 'p95', field: 'duration_ms' }, { fn: 'max', field: 'total_cost' }],
        order_by: { measure: 0 },
      };
      const analytics = await post('/engine/analytics', body);
      expect(analytics.status, analytics.text).to.equal(200);
      const wanted = expectedAnalytics(rows, { startNs: WINDOW[0], endNs: WINDOW[1] }, { ...body, filter: null }, HOUR);
      const answer = JSON.parse(analytics.text.replace(/"(bucket_start_unix_nano|bucket_width_ns)":(-?\d+)/g, '"$1":"$2"')) as ReturnType<
        typeof expectedAnalytics
      >;
      expect(answer.groups).to.deep.equal(wanted.groups);

      // The longest trace's folded duration, moved within its bin: the answer follows it.
      const longest = (await knex('trace_figures').where({ application_id: caller.appId, figure: 0 }).orderBy('value', 'desc').first()) as {
        trace_id: string;
        value: number;
        bin: number;
      };
      const moved = longest.value + 1e-7;
      expect(binOf(moved)).to.equal(longest.bin);
      await knex('trace_figures').where({ application_id: caller.appId, trace_id: longest.trace_id, figure: 0 }).update({ value: moved });
      await knex('trace_histograms').where({ application_id: caller.appId, figure: 0, bin: longest.bin }).update({ value_high: moved });
      const response = await post('/engine/metrics', { filter: null });
      expect((JSON.parse(response.text) as { duration: { max: number } }).duration.max).to.equal(moved);
    });

    it('folds span and error counts below 100 on the duration row, larger ones in rows of their own, and reads both exactly, also once a count reaches 100', async function () {
      this.timeout(60_000);
      const knex = app().server.knex;
      // Counts from 20 up share five-bin groups: read by their bins, not the rows they no longer have.
      const spanCounts = [1, 20, 21, 22, 23, 37, 38, 63, 64, 98, 99, 99, 100, 101, 150, 4, 57, 99];
      const errorCounts = [0, 20, 0, 21, 3, 37, 1, 63, 0, 98, 99, 0, 100, 2, 120, 4, 56, 0];
      const rows = countedTraceRows(caller.appId, spanCounts, errorCounts);
      await storeSpans(knex, rows);
      await app().server.folder.runOnce();
      expect(await pendingCount(knex, caller.appId)).to.equal(0);
      await expectFoldedFiguresMatchSummaries(knex, caller.appId);
      const [countRows] = (await knex('trace_figures')
        .where({ application_id: caller.appId })
        .whereIn('figure', [2, 3])
        .count({ n: '*' })) as Array<{ n: number | string }>;
      expect(Number(countRows?.n), 'count rows: spans 100, 101, 150; errors 100, 120').to.equal(5);

      const body = {
        grain: 'traces' as const,
        group_by: ['service_name'],
        granularity: 'hour',
        measures: ['max', 'min', 'p50', 'p90', 'p99'].flatMap((fn) => [
          { fn, field: 'spans_count' },
          { fn, field: 'error_count' },
        ]),
        order_by: { measure: 0 },
      };
      const expectAnalytics = async (spans: SpanRow[]) => {
        const response = await post('/engine/analytics', body);
        expect(response.status, response.text).to.equal(200);
        const answer = JSON.parse(response.text.replace(/"(bucket_start_unix_nano|bucket_width_ns)":(-?\d+)/g, '"$1":"$2"')) as ReturnType<
          typeof expectedAnalytics
        >;
        expect(answer.groups).to.deep.equal(
          expectedAnalytics(spans, { startNs: WINDOW[0], endNs: WINDOW[1] }, { ...body, filter: null }, HOUR).groups,
        );
      };
      // Below 100 every bin holds one count, known from its histogram row: no figure row is read.
      const small = rows.filter((row) => !['c13', 'c14', 'c15'].some((id) => row.trace_id === id.padStart(32, '0')));
      await clearSpans(knex, caller.appId);
      await storeSpans(knex, small);
      await app().server.folder.runOnce();
      const read = await statementsDuring(knex, () => expectAnalytics(small));
      expect(read.some((sql) => sql.includes('trace_histograms'))).to.equal(true);
      expect(
        read.filter((sql) => sql.includes('trace_figures')),
        'figure rows read',
      ).to.deep.equal([]);

      // Back to every trace, one of them (c12) folded as before the counts rode on the duration row.
      // Then two 99-span traces reach 100 spans, c18 also 1 error: each read as it is while
      // pending, its earlier figures taken out whichever way they were folded, then folded anew.
      await clearSpans(knex, caller.appId);
      await storeSpans(knex, rows);
      await app().server.folder.runOnce();
      await fileCountsInRows(knex, caller.appId, 'c12'.padStart(32, '0'));
      await expectAnalytics(rows);
      const growing = (id: string) => rows.find((row) => row.trace_id === id.padStart(32, '0') && row.parent_span_id !== null) as SpanRow;
      const added = [
        spanRow({ ...growing('c18'), span_id: 'ffffffffffffff01', status_code: 'STATUS_CODE_ERROR' }),
        spanRow({ ...growing('c12'), span_id: 'ffffffffffffff02' }),
      ];
      const grown = [...rows, ...added];
      await storeSpans(knex, added);
      expect(await pendingCount(knex, caller.appId)).to.equal(2);
      await expectAnalytics(grown);
      await expectMetrics(grown);
      await app().server.folder.runOnce();
      expect(await pendingCount(knex, caller.appId)).to.equal(0);
      await expectFoldedFiguresMatchSummaries(knex, caller.appId);
      await expectAnalytics(grown);
      await expectMetrics(grown);
    });

    it('reads a summary changed after it was folded as it is now, until the fold folds it again', async function () {
      const knex = app().server.knex;
      const rows = traceRows(caller.appId, 12);
      await storeSpans(knex, rows);
      await app().server.folder.runOnce();
      expect(await pendingCount(knex, caller.appId)).to.equal(0);
      // A late span makes the first trace longer and dearer, and gives it a new root.
      const first = rows[0] as SpanRow;
      const late = spanRow({
        application_id: caller.appId,
        trace_id: first.trace_id,
        span_id: 'ffffffffffffff01',
        service_name: 'late',
        cost: 9,
        start_time_unix_nano: (BigInt(first.start_time_unix_nano) - 60_000_000_000n).toString(),
        end_time_unix_nano: (BigInt(first.end_time_unix_nano) + 5_000_000_000n).toString(),
      });
      const changed = [...rows, late];
      await storeSpans(knex, [late]);
      expect(await pendingCount(knex, caller.appId)).to.equal(1);
      const before = await expectMetrics(changed);
      await app().server.folder.runOnce();
      expect(await pendingCount(knex, caller.appId)).to.equal(0);
      expect(await expectMetrics(changed)).to.deep.equal(before);
    });
  },
  { TRACE_FOLD_INTERVAL_SECONDS: '1' },
);

onEachDatabase('folded trace figures with the fold behind', (app) => {
  let caller: EngineCaller;
  before(async () => {
    caller = await engineCaller(app());
  });
  beforeEach(async () => clearSpans(app().server.knex, caller.appId));
  const { expectMetrics } = suite(app, () => caller);

  it(`reads the summaries while more than ${MAX_PENDING} are pending, the folded figures once they are folded`, async function () {
    this.timeout(120_000);
    const knex = app().server.knex;
    const rows = traceRows(caller.appId, MAX_PENDING + 1);
    for (let offset = 0; offset < rows.length; offset += 2000) await storeSpans(knex, rows.slice(offset, offset + 2000));
    const pending = await statementsDuring(knex, () => expectMetrics(rows));
    expect(pending.some((sql) => sql.includes('ROW_NUMBER()'))).to.equal(true);
    await foldApplication(knex, caller.appId, 5000);
    const folded = await statementsDuring(knex, () => expectMetrics(rows));
    expect(folded.some((sql) => sql.includes('ROW_NUMBER()'))).to.equal(false);
    expect(folded.some((sql) => sql.includes('trace_histograms'))).to.equal(true);
  });
});
