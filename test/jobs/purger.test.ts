// Retention on every database: the purger removes the spans past their application's retention
// (and every span of a deleted application) from every engine endpoint, keeps the younger ones,
// leaves trace summaries equal to a recomputation from the spans that remain, and stays right
// beside concurrent ingestion and beside a second purger on its own connection pool.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { deleteApplication } from '../../src/accounts/applications.js';
import { createLogger } from '../../src/logger.js';
import { purgeBefore, RetentionPurger } from '../../src/jobs/purger.js';
import { bigintAsText, openDatabase } from '../../src/storage/database.js';
import { purgeBatch } from '../../src/storage/spans/writes/span-purge.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { foldApplication, foldBatch } from '../../src/storage/spans/fold/trace-folding.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { captureLogs, LEVEL } from '../support/log-capture.js';
import { expectedMetrics, expectedTraces } from '../support/reference-evaluator.js';
import { expectFoldedFiguresMatchSummaries, expectSummariesMatchSpans } from '../support/summary-check.js';
import { spanRow } from '../support/span-rows.js';
import { sqlSpanStore } from '../../src/storage/spans/sql-span-store.js';
import { testDatabases } from '../support/databases.js';
import { onEachDatabase, startTestServer, type TestServer } from '../support/test-server.js';

const DAY = 86_400_000_000_000n;
const EVERYTHING = { start_time: '0001-01-01T00:00:00Z', end_time: '9999-12-31T23:59:59Z' };
const ALL_TIME = { startNs: -(2n ** 63n), endNs: 2n ** 63n };
const RETENTION_DAYS = 7;
const BATCH = 25;

function daysAgo(days: number, plusNs = 0n): bigint {
  return BigInt(Date.now()) * 1_000_000n - BigInt(days) * DAY + plusNs;
}

const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');

/**
 * The roll-ups' span counts, per width and bucket, must equal the spans that remain: the rows of
 * purged buckets are gone (below the purge edge) and no row above the edge was touched.
 */
async function expectRollupCountsMatchSpans(knex: Knex, applicationId: string): Promise<void> {
  const starts = (
    (await knex('spans')
      .where('application_id', applicationId)
      .select({ start: bigintAsText(knex, 'start_time_unix_nano') })) as Array<{ start: string }>
  ).map((row) => row.start);
  for (const widthS of [60, 3600]) {
    const widthNs = BigInt(widthS) * 1_000_000_000n;
    const expected = new Map<string, number>();
    for (const start of starts) {
      const bucket = ((BigInt(start) / widthNs) * widthNs).toString();
      expected.set(bucket, (expected.get(bucket) ?? 0) + 1);
    }
    const rows = (await knex('span_rollups')
      .where({ application_id: applicationId, bucket_width_s: widthS })
      .select({ bucket: bigintAsText(knex, 'bucket_start_unix_nano') }, 'span_count')) as Array<{
      bucket: string;
      span_count: number | string;
    }>;
    const stored = new Map<string, number>();
    for (const row of rows) stored.set(row.bucket, (stored.get(row.bucket) ?? 0) + Number(row.span_count));
    expect(Object.fromEntries(stored), `width ${widthS}`).to.deep.equal(Object.fromEntries(expected));
  }
}

async function spanCount(knex: Knex, applicationId: string): Promise<number> {
  const [{ count }] = await knex('spans').where('application_id', applicationId).count({ count: '*' });
  return Number(count);
}

/** An OTLP/JSON request body holding the given spans of one service. */
function otlpJson(spans: Array<{ traceId: string; spanId: string; parentSpanId?: string; startNs: bigint; failed?: boolean }>) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
        scopeSpans: [
          {
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: 'work',
              kind: 1,
              startTimeUnixNano: span.startNs.toString(),
              endTimeUnixNano: (span.startNs + 1_000_000n).toString(),
              ...(span.failed && { status: { code: 2, message: 'failed' } }),
            })),
          },
        ],
      },
    ],
  };
}

async function ingest(app: TestServer, caller: EngineCaller, body: unknown): Promise<void> {
  const response = await call(app.url, 'POST', '/v1/traces', { headers: caller.headers, json: body });
  expect(response.status, response.text).to.equal(200);
}

async function setRetention(knex: Knex, applicationId: string, days: number): Promise<void> {
  await knex('applications').where('id', applicationId).update({ retention_days: days });
}

/** Traces with old spans only, old and young ones, and young ones only; costs exact in binary; failed spans among both. */
function mixedRows(applicationId: string) {
  const old = (days: number) => daysAgo(RETENTION_DAYS + days).toString();
  const young = daysAgo(1).toString();
  // Every third span failed: purged ones among them must leave error_count.
  const span = (trace: number, id: number, startNs: string, extra: Partial<SpanRow> = {}) =>
    spanRow({
      application_id: applicationId,
      trace_id: hex(trace, 32),
      span_id: hex(id, 16),
      start_time_unix_nano: startNs,
      cost: 0.25 * id,
      ...(id % 3 === 0 && { status_code: 'STATUS_CODE_ERROR' }),
      ...extra,
    });
  const rows = [
    // 1: every span old: its summary must go.
    span(1, 1, old(3)),
    span(1, 2, old(3), { parent_span_id: hex(1, 16) }),
    // 2: an old root and an old child go; a young SERVER child becomes the root.
    span(2, 3, old(2)),
    span(2, 4, old(2), { parent_span_id: hex(3, 16) }),
    span(2, 5, young, { parent_span_id: hex(3, 16), span_kind: 'SPAN_KIND_SERVER', span_name: 'late server' }),
    span(2, 6, young, { parent_span_id: hex(5, 16) }),
    // 3: a young root keeps its trace, an old child of it goes (its range shrinks).
    span(3, 7, young),
    span(3, 8, old(1), { parent_span_id: hex(7, 16) }),
    // 4: all young.
    span(4, 9, young),
    span(4, 10, young, { parent_span_id: hex(9, 16) }),
  ];
  const cutoff = daysAgo(RETENTION_DAYS);
  return { rows, young: rows.filter((row) => BigInt(row.start_time_unix_nano) >= cutoff) };
}

onEachDatabase(
  'retention purger',
  (app) => {
    const knex = () => app().server.knex;
    /** Spans the service's own purger removed, for the /metrics check. */
    let purgedByService = 0;
    const purgeOnce = async () => {
      const purged = await app().server.purger.runOnce();
      purgedByService += purged;
      return purged;
    };

    it('removes the spans past retention from every engine endpoint and keeps the younger ones', async () => {
      const caller = await engineCaller(app());
      const other = await engineCaller(app());
      await setRetention(knex(), caller.appId, RETENTION_DAYS);
      const { rows, young } = mixedRows(caller.appId);
      // The other application keeps the default (30 days): its spans of the same age stay.
      const otherRows = mixedRows(other.appId).rows;
      await storeSpans(knex(), [...rows, ...otherRows]);
      const spanIds = async (path: string, method: string, query: Record<string, string | number>) => {
        const response = await call(app().url, method, path, {
          query: { ...query, limit: 100 },
          headers: caller.headers,
          ...(method === 'POST' && { json: {} }),
        });
        expect(response.status, response.text).to.equal(200);
        return response.body.data.map((span: { span_id: string }) => span.span_id).sort();
      };
      expect(await spanIds('/engine/query', 'POST', EVERYTHING)).to.have.length(rows.length);

      expect(await purgeOnce()).to.be.at.least(rows.length - young.length);

      const youngIds = young.map((row) => row.span_id).sort();
      expect(await spanIds('/engine/query', 'POST', EVERYTHING)).to.deep.equal(youngIds);
      expect(await spanIds('/traces/live', 'GET', {})).to.deep.equal(youngIds);
      const traces = await call(app().url, 'POST', '/traces', { query: { ...EVERYTHING, limit: 100 }, headers: caller.headers, json: {} });
      expect(traces.status, traces.text).to.equal(200);
      const expected = expectedTraces(young, ALL_TIME, null, false);
      expect(traces.body.data.map((trace: { trace_id: string }) => trace.trace_id)).to.deep.equal(expected.map((trace) => trace.trace_id));
      expect(
        traces.body.data.map((trace: { spans_count: number; total_cost: number; error_count: number; span_name: string }) => [
          trace.spans_count,
          trace.total_cost,
          trace.error_count,
          trace.span_name,
        ]),
      ).to.deep.equal(expected.map((trace) => [trace.spans_count, trace.total_cost, trace.error_count, trace.span_name]));
      const metrics = await call(app().url, 'POST', '/engine/metrics', { query: EVERYTHING, headers: caller.headers, json: {} });
      expect(metrics.status, metrics.text).to.equal(200);
      const wanted = expectedMetrics(young, ALL_TIME, null);
      expect([metrics.body.trace_count, metrics.body.cost.max, metrics.body.spans_per_trace.max]).to.deep.equal([
        wanted.trace_count,
        wanted.cost.max,
        wanted.spans_per_trace.max,
      ]);
      await expectSummariesMatchSpans(knex(), caller.appId);
      expect(await spanCount(knex(), other.appId)).to.equal(otherRows.length);
      await expectSummariesMatchSpans(knex(), other.appId);
    });

    it('removes every span and summary of a deleted application, young ones too', async () => {
      const caller = await engineCaller(app());
      const { rows } = mixedRows(caller.appId);
      await storeSpans(knex(), rows);
      await deleteApplication(knex(), caller.appId);
      expect(await purgeOnce()).to.be.at.least(rows.length);
      expect(await spanCount(knex(), caller.appId)).to.equal(0);
      expect(await knex()('traces').where('application_id', caller.appId)).to.deep.equal([]);
    });

    it('loses no young span and counts nothing twice while ingestion runs beside the purge', async () => {
      const caller = await engineCaller(app());
      await setRetention(knex(), caller.appId, RETENTION_DAYS);
      const TRACES = 40;
      const OLD_PER_TRACE = 10;
      const ROUNDS = 15;
      const old = Array.from({ length: TRACES * OLD_PER_TRACE }, (_, index) =>
        spanRow({
          application_id: caller.appId,
          trace_id: hex((index % TRACES) + 1, 32),
          span_id: hex(1_000 + index, 16),
          parent_span_id: index < TRACES ? null : hex(1_000 + (index % TRACES), 16),
          start_time_unix_nano: daysAgo(RETENTION_DAYS + 1, BigInt(index)).toString(),
          cost: 1,
          status_code: index % 2 === 0 ? 'STATUS_CODE_ERROR' : 'STATUS_CODE_OK',
        }),
      );
      await storeSpans(knex(), old);
      // Each round sends one young span into every trace through POST /v1/traces and, at the
      // same time, the purger deletes a batch of the old spans of the same traces: every batch
      // runs beside an ingestion (on MariaDB truly at once; SQLite interleaves their statements).
      const cutoff = purgeBefore({ id: caller.appId, retention_days: RETENTION_DAYS, deleted: false }, 30, Date.now());
      let purged = 0;
      let round = 0;
      for (let more = true; round < ROUNDS || more; round += 1) {
        expect(round, 'the purge ends').to.be.below(ROUNDS + old.length);
        const spans = Array.from({ length: TRACES }, (_, trace) => ({
          traceId: hex(trace + 1, 32),
          spanId: hex(50_000 + round * TRACES + trace, 16),
          startNs: daysAgo(1, BigInt(round)),
          failed: trace % 3 === 0,
        }));
        const [batch] = await Promise.all([
          purgeBatch(knex(), { applicationId: caller.appId, beforeNs: cutoff, limit: BATCH }),
          ingest(app(), caller, otlpJson(spans)),
        ]);
        purged += batch.deleted;
        more = batch.full;
      }

      expect(purged).to.equal(old.length);
      expect(await spanCount(knex(), caller.appId)).to.equal(TRACES * round);
      const query = await call(app().url, 'POST', '/engine/query', {
        query: { ...EVERYTHING, limit: 1 },
        headers: caller.headers,
        json: {},
      });
      expect(query.body.total).to.equal(TRACES * round);
      await expectSummariesMatchSpans(knex(), caller.appId);
      const traces = await call(app().url, 'POST', '/traces', { query: { ...EVERYTHING, limit: 100 }, headers: caller.headers, json: {} });
      expect(traces.body.data.map((trace: { spans_count: number }) => trace.spans_count)).to.deep.equal(Array(TRACES).fill(round));
    });

    it('stays right with two purgers on their own connection pools deleting the same spans', async () => {
      const caller = await engineCaller(app());
      await setRetention(knex(), caller.appId, RETENTION_DAYS);
      await purgeOnce();
      const TRACES = 30;
      const rows = Array.from({ length: TRACES * 8 }, (_, index) =>
        spanRow({
          application_id: caller.appId,
          trace_id: hex(index % TRACES, 32),
          span_id: hex(index + 1, 16),
          parent_span_id: index < TRACES ? null : hex((index % TRACES) + 1, 16),
          // Every fourth span is young: each trace keeps some.
          start_time_unix_nano: (index % 4 === 3 ? daysAgo(1, BigInt(index)) : daysAgo(RETENTION_DAYS + 2, BigInt(index))).toString(),
          cost: 0.5,
        }),
      );
      await storeSpans(knex(), rows);
      const { config, database } = app();
      // Another instance's pool on MariaDB. better-sqlite3 waits for a lock synchronously, which
      // would stall the one event loop both pools share here: on SQLite the purgers share the
      // single connection (SQLite serves one process; its transactions still interleave).
      const secondPool = database === 'sqlite' ? knex() : openDatabase(config.databaseUrl, config.dataDir);
      const second = new RetentionPurger({
        knex: secondPool,
        spans: sqlSpanStore(secondPool),
        logger: createLogger('silent'),
        config: config.retention,
      });
      // Half the traces folded before: the purge takes their figures out, or leaves them pending.
      await foldBatch(knex(), caller.appId, TRACES / 2);
      try {
        // A trace fold beside the purgers, on the second pool.
        const [first, other] = await Promise.all([purgeOnce(), second.runOnce(), foldApplication(secondPool, caller.appId, 7)]);
        const young = rows.filter((row) => BigInt(row.start_time_unix_nano) >= daysAgo(RETENTION_DAYS));
        expect(first + other).to.equal(rows.length - young.length);
        expect(await spanCount(knex(), caller.appId)).to.equal(young.length);
        await expectSummariesMatchSpans(knex(), caller.appId);
        await expectFoldedFiguresMatchSummaries(knex(), caller.appId);
        await expectRollupCountsMatchSpans(knex(), caller.appId);
      } finally {
        await second.stop();
        if (secondPool !== knex()) await secondPool.destroy();
      }
    });

    it('raises the purge edge to the whole hour it cuts at, and never lowers it when retention_days is raised', async () => {
      const caller = await engineCaller(app());
      await setRetention(knex(), caller.appId, RETENTION_DAYS);
      const span = (id: number, startNs: bigint) =>
        spanRow({ application_id: caller.appId, trace_id: hex(id, 32), span_id: hex(id, 16), start_time_unix_nano: startNs.toString() });
      await storeSpans(knex(), [span(1, daysAgo(RETENTION_DAYS + 1)), span(2, daysAgo(1))]);
      const edge = async () => {
        const [row] = (await knex()('applications')
          .where({ id: caller.appId })
          .select({ edge: bigintAsText(knex(), 'spans_purged_before') })) as Array<{ edge: string | null }>;
        return row?.edge === null || row?.edge === undefined ? null : BigInt(row.edge);
      };
      const before = daysAgo(RETENTION_DAYS);
      await purgeOnce();
      const raised = await edge();
      const HOUR = 3_600_000_000_000n;
      expect(raised !== null && raised % HOUR === 0n && raised <= before && raised > before - HOUR, String(raised)).to.equal(true);
      expect(await spanCount(knex(), caller.appId)).to.equal(1);
      // Retention raised: the next cut is weeks earlier; a span older still is purged, the edge stays.
      await setRetention(knex(), caller.appId, 30);
      await storeSpans(knex(), [span(3, daysAgo(31))]);
      await purgeOnce();
      expect(await spanCount(knex(), caller.appId)).to.equal(1);
      expect(await edge()).to.equal(raised);
    });

    it('counts the purged spans on /metrics', async () => {
      const response = await fetch(new URL('/metrics', app().url));
      const text = await response.text();
      expect(purgedByService).to.be.greaterThan(0);
      expect(text).to.match(/^# TYPE spanledger_retention_purged_spans_total counter$/m);
      expect(text).to.include(`\nspanledger_retention_purged_spans_total ${purgedByService}\n`);
    });
  },
  { RETENTION_PURGE_INTERVAL_SECONDS: '0', RETENTION_PURGE_BATCH_SIZE: String(BATCH) },
);

for (const database of testDatabases()) {
  describe(`retention purger in the background [${database.name}]`, () => {
    it('runs every RETENTION_PURGE_INTERVAL_SECONDS, and shutdown waits for the batch in flight', async () => {
      const running = await startTestServer(database, { RETENTION_PURGE_INTERVAL_SECONDS: '1', RETENTION_PURGE_BATCH_SIZE: '10' });
      try {
        const knex = running.server.knex;
        const caller = await engineCaller(running);
        await setRetention(knex, caller.appId, 1);
        const old = Array.from({ length: 30 }, (_, index) =>
          spanRow({
            application_id: caller.appId,
            trace_id: hex(index % 3, 32),
            span_id: hex(index + 1, 16),
            start_time_unix_nano: daysAgo(2, BigInt(index)).toString(),
          }),
        );
        await storeSpans(knex, old);
        // No fixed wait: the background pass is awaited as long as it takes, within the test's timeout.
        while ((await spanCount(knex, caller.appId)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await knex('traces').where('application_id', caller.appId)).to.deep.equal([]);

        await storeSpans(knex, old);
        const pass = running.server.purger.runOnce();
        while ((await spanCount(knex, caller.appId)) === old.length) await new Promise((resolve) => setImmediate(resolve));
        const closing = running.server.close();
        // The pass ends after its batch in flight, before the pool closes: no error, nothing half done.
        const purged = await pass;
        await closing;
        expect(purged).to.be.within(0, old.length);
      } finally {
        await running.stop();
      }
    });

    it('logs a failed pass, undoes its batch, and goes on at the next interval', async () => {
      const logs = captureLogs('info');
      const running = await startTestServer(
        database,
        { RETENTION_PURGE_INTERVAL_SECONDS: '1', RETENTION_PURGE_BATCH_SIZE: '10' },
        { logger: logs.logger },
      );
      try {
        const knex = running.server.knex;
        const caller = await engineCaller(running);
        await setRetention(knex, caller.appId, 1);
        const old = Array.from({ length: 30 }, (_, index) =>
          spanRow({
            application_id: caller.appId,
            trace_id: hex((index % 3) + 1, 32),
            span_id: hex(index + 1, 16),
            start_time_unix_nano: daysAgo(2, BigInt(index)).toString(),
          }),
        );
        await storeSpans(knex, old);
        // The summaries table gone: each batch deletes its spans, then fails on the summaries.
        await knex.schema.renameTable('traces', 'traces_away');
        const failures = () => logs.lines().filter((line) => line.msg === 'retention purge failed' && line.level === LEVEL.error);
        while (failures().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        await knex.schema.renameTable('traces_away', 'traces');
        expect(failures()[0].err).to.be.an('object');
        while ((await spanCount(knex, caller.appId)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await knex('traces').where('application_id', caller.appId)).to.deep.equal([]);
        // A failed batch is rolled back whole: had its deletes stayed, uncounted, the counter of
        // the batches that committed would fall short of the 30 spans.
        const metrics = await (await fetch(new URL('/metrics', running.url))).text();
        expect(metrics).to.include(`\nspanledger_retention_purged_spans_total ${old.length}\n`);
        // A pass logs its total once it is over, which may be a statement after its last delete.
        while (!logs.lines().some((line) => line.msg === 'retention purge')) await new Promise((resolve) => setTimeout(resolve, 20));
        const logged = logs.lines().filter((line) => line.msg === 'retention purge' || line.msg === 'retention purge failed');
        expect(logged.reduce((sum, line) => sum + Number(line.purged_spans), 0)).to.equal(old.length);
      } finally {
        await running.stop();
      }
    });
  });
}
