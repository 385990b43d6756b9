// The span store's contract (src/storage/spans/span-store.ts), checked through the interface
// alone: what the engine, ingestion and the retention job rely on, and what a second span engine
// would have to keep (the plans come from the read planner, src/traces/read-planner.ts, as the
// engine's do). Nothing here reads a table or assumes how receive positions are made
// beyond what the interface says (decimal text, growing per application, not dense).
import { expect } from 'chai';
import type { SpanRow, SpanStore, StoredSpan } from '../../../src/storage/spans/span-store.js';
import { sqlSpanStore } from '../../../src/storage/spans/sql-span-store.js';
import { analyticsPlan } from '../../../src/traces/analytics.js';
import { metricsPlan } from '../../../src/traces/trace-metrics.js';
import { spanRow } from '../../support/span-rows.js';
import { onEachDatabase } from '../../support/test-server.js';

/** The engines under contract: each builds a store on a test database's connection. */
const ENGINES: Array<{ name: string; open: (knex: Parameters<typeof sqlSpanStore>[0]) => SpanStore }> = [
  { name: 'SQL', open: sqlSpanStore },
];

const HOUR = 3_600_000_000_000n;
const SECOND = 1_000_000_000n;
// A whole hour, so that every source a read may choose can answer it.
const START = 1_763_798_400_000_000_000n;

for (const engine of ENGINES) {
  onEachDatabase(`span store contract (${engine.name})`, (app) => {
    const store = () => engine.open(app().server.knex);
    let counter = 0;

    /** An application of its own per test: the stores share one database. */
    function application(): string {
      counter += 1;
      return `app_store_${counter}`;
    }

    /** A trace of `spans` spans: a root of `service`, its children one second apart, costs 1, 2, 3, … */
    function trace(applicationId: string, traceNumber: number, service: string, spans: number, at: bigint): SpanRow[] {
      const traceId = traceNumber.toString(16).padStart(32, '0');
      return Array.from({ length: spans }, (_, index) =>
        spanRow({
          application_id: applicationId,
          trace_id: traceId,
          span_id: (traceNumber * 100 + index + 1).toString(16).padStart(16, '0'),
          parent_span_id: index === 0 ? null : (traceNumber * 100 + 1).toString(16).padStart(16, '0'),
          start_time_unix_nano: (at + BigInt(index) * SECOND).toString(),
          end_time_unix_nano: (at + BigInt(index) * SECOND + 500_000_000n).toString(),
          duration_ms: 500,
          service_name: service,
          span_kind: index === 0 ? 'SPAN_KIND_SERVER' : 'SPAN_KIND_INTERNAL',
          cost: index + 1,
        }),
      );
    }

    const window = (applicationId: string) => ({ applicationId, startNs: START, endNs: START + HOUR, filter: null, indexedSlots: [] });

    async function spanCount(applicationId: string): Promise<number> {
      return (await store().spanPage({ ...window(applicationId), page: 1, limit: 1 })).total;
    }

    async function analyticsCount(applicationId: string): Promise<number> {
      const query = {
        ...window(applicationId),
        grain: 'spans' as const,
        groupBy: [],
        measures: [{ fn: 'count' as const }],
        orderBy: { measure: 0, direction: 'desc' as const },
        rowLimit: 10,
        widthNs: HOUR,
      };
      const rows = await store().analytics(query, analyticsPlan(query));
      return rows.groups.flatMap((group) => group.points).reduce((sum, point) => sum + Number(point.values[0] ?? 0), 0);
    }

    it('stores a span once however often it is sent, and every read agrees on it', async () => {
      const appId = application();
      const first = trace(appId, 1, 'checkout', 3, START + 60n * SECOND);
      const second = trace(appId, 2, 'search', 2, START + 120n * SECOND);
      await store().store([...first, first[0]]);
      // An exporter's retry, with the second trace added.
      await store().store([...first, ...second]);

      expect(await spanCount(appId)).to.equal(5);
      expect(await analyticsCount(appId)).to.equal(5);
      const traces = await store().tracePage({ ...window(appId), searchChildSpans: false, page: 1, limit: 10 });
      expect(traces.total).to.equal(2);
      expect(traces.items.map((item) => [item.service_name, Number(item.spans_count), Number(item.total_cost)])).to.deep.equal([
        ['search', 2, 3],
        ['checkout', 3, 6],
      ]);
      const metrics = await store().metrics(window(appId), metricsPlan(window(appId)));
      expect(metrics.count).to.equal(2);
      expect(metrics.figures.spans.max).to.equal(3);
      const detail = await store().trace({ applicationId: appId, traceId: first[0].trace_id, limit: 10 });
      expect(detail?.spans.map((span) => span.span_id)).to.deep.equal(first.map((span) => span.span_id));
      expect(await store().trace({ applicationId: appId, traceId: 'f'.repeat(32), limit: 10 })).to.equal(undefined);
    });

    it('pages spans newest first and traces latest first, with a key to go on from', async () => {
      const appId = application();
      await store().store([...trace(appId, 3, 'a', 2, START + 10n * SECOND), ...trace(appId, 4, 'b', 2, START + 20n * SECOND)]);
      const firstPage = await store().spanPage({ ...window(appId), page: 1, limit: 3 });
      expect(firstPage.total).to.equal(4);
      const starts = firstPage.items.map((span) => BigInt(span.start_time_unix_nano));
      expect(starts).to.deep.equal([...starts].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
      expect(firstPage.nextKey).to.not.equal(null);
      const rest = await store().spanPage({ ...window(appId), page: 2, limit: 3, after: firstPage.nextKey ?? undefined });
      expect(rest.items).to.have.length(1);
      expect(rest.nextKey).to.equal(null);
      const seen = new Set([...firstPage.items, ...rest.items].map((span) => span.span_id));
      expect(seen.size).to.equal(4);
    });

    it('gives receive positions that grow per application, newest first in recent spans and ascending after a position', async () => {
      const appId = application();
      const live = store().live(appId);
      const before = await live.latestSeq();
      await store().store(trace(appId, 5, 'a', 2, START));
      await store().store(trace(appId, 6, 'a', 2, START + SECOND));
      const latest = await live.latestSeq();
      expect(BigInt(latest) > BigInt(before)).to.equal(true);

      const after: StoredSpan[] = await live.spansAfter(before, 100);
      expect(after).to.have.length(4);
      const positions = after.map((span) => BigInt(span.seq));
      expect(positions).to.deep.equal([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      // The first batch was received first.
      expect(after.slice(0, 2).map((span) => span.trace_id)).to.deep.equal([after[0].trace_id, after[0].trace_id]);
      expect(await live.spansAfter(latest, 100)).to.deep.equal([]);
      expect(await live.countBetween(before, latest)).to.equal(4);

      const recent = await store().recentSpans({ applicationId: appId, startNs: undefined, endNs: undefined, page: 1, limit: 10 });
      expect(recent.total).to.equal(4);
      expect(recent.items.map((span) => span.seq)).to.deep.equal(after.map((span) => span.seq).reverse());
    });

    it('purges in bounded batches, and every read forgets the purged spans', async () => {
      const appId = application();
      await store().store([...trace(appId, 7, 'old', 3, START), ...trace(appId, 8, 'new', 2, START + 1800n * SECOND)]);
      let rounds = 0;
      for (;;) {
        const { deleted, full } = await store().purge({ applicationId: appId, beforeNs: START + 900n * SECOND, limit: 2 });
        rounds += 1;
        expect(deleted).to.be.at.most(2);
        if (!full) break;
        expect(rounds).to.be.below(10);
      }
      expect(rounds).to.be.at.least(2);
      expect(await spanCount(appId)).to.equal(2);
      expect(await analyticsCount(appId)).to.equal(2);
      const metrics = await store().metrics(window(appId), metricsPlan(window(appId)));
      expect(metrics.count).to.equal(1);
      expect(await store().trace({ applicationId: appId, traceId: (7).toString(16).padStart(32, '0'), limit: 10 })).to.equal(undefined);

      await store().purge({ applicationId: appId, beforeNs: null, limit: 100 });
      expect(await spanCount(appId)).to.equal(0);
      expect((await store().metrics(window(appId), metricsPlan(window(appId)))).count).to.equal(0);
    });
  });
}
