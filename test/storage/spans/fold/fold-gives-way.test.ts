// The trace fold gives way to ingestion (src/ingest/ingest-activity.ts, foldApplication in
// src/storage/spans/fold/trace-folding.ts), on every database: spans stored over OTLP/HTTP or
// OTLP/gRPC by the official exporters leave their traces pending while the service still counts
// ingestion as busy (its clock held still), and a pass of the background fold folds them once
// ingestion has been quiet for QUIET_AFTER_MS. A backlog of GIVE_WAY_BELOW or more is folded
// whatever ingestion does, and nothing stops a fold outside the server (no activity given).
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { GIVE_WAY_RECHECK_MS } from '../../../../src/jobs/trace-folder.js';
import { IngestActivity, QUIET_AFTER_MS } from '../../../../src/ingest/ingest-activity.js';
import { storeSpans } from '../../../../src/storage/spans/writes/span-writer.js';
import type { SpanRow } from '../../../../src/storage/spans/span-row.js';
import { FOLD_STATE } from '../../../../src/storage/spans/fold/trace-figures.js';
import { foldApplication, GIVE_WAY_BELOW } from '../../../../src/storage/spans/fold/trace-folding.js';
import { engineCaller } from '../../../support/auth.js';
import { metadataOf } from '../../../support/grpc.js';
import { expectExported, exportSpans, recordSpans } from '../../../support/otel.js';
import { spanRow } from '../../../support/span-rows.js';
import { statementsDuring } from '../../../support/statements.js';
import { onEachDatabase } from '../../../support/test-server.js';

const T0 = 1795355100; // seconds: 2026-11-22

async function pendingTraces(knex: Knex, applicationId: string): Promise<number> {
  const [row] = (await knex('traces').where({ application_id: applicationId, folded: FOLD_STATE.pending }).count({ n: '*' })) as Array<{
    n: number | string;
  }>;
  return Number(row?.n ?? 0);
}

/** Two traces of two spans each, recorded by the SDK. */
function twoTraces() {
  return recordSpans({ 'service.name': 'checkout' }, (tracer) => {
    for (const offset of [0, 1]) {
      const root = tracer.startSpan(`GET /cart/${offset}`, { startTime: [T0 + offset, 0] });
      tracer
        .startSpan('SELECT cart', { startTime: [T0 + offset, 1_000_000] }, trace.setSpan(context.active(), root))
        .end([T0 + offset, 2_000_000]);
      root.end([T0 + offset, 5_000_000]);
    }
  });
}

describe('IngestActivity', () => {
  it('is busy while a store runs and for QUIET_AFTER_MS after the last one ends', async () => {
    let now = 1_000;
    const activity = new IngestActivity(() => now);
    expect(activity.busy()).to.equal(false);
    let finish: () => void = () => undefined;
    const first = activity.during(() => new Promise<void>((resolve) => (finish = resolve)));
    const second = activity.during(async () => 'stored');
    expect(await second).to.equal('stored');
    now += 10 * QUIET_AFTER_MS;
    expect(activity.busy(), 'the first store still runs').to.equal(true);
    finish();
    await first;
    now += QUIET_AFTER_MS - 1;
    expect(activity.busy()).to.equal(true);
    now += 1;
    expect(activity.busy()).to.equal(false);
    // A store that fails counts as ended too.
    await activity.during(() => Promise.reject(new Error('database unavailable'))).catch(() => undefined);
    expect(activity.busy()).to.equal(true);
    now += QUIET_AFTER_MS;
    expect(activity.busy()).to.equal(false);
  });
});

/** The servers' clock: held still, so that ingestion counts as busy until a test moves it on. */
let now = Date.UTC(2026, 10, 22, 12);

onEachDatabase(
  'the trace fold gives way to ingestion',
  (app) => {
    const exporters: Array<[string, (headers: Record<string, string>) => SpanExporter]> = [
      ['OTLP/HTTP', (headers) => new ProtoTraceExporter({ url: `${app().url}/v1/traces`, headers })],
      ['OTLP/gRPC', (headers) => new GrpcTraceExporter({ url: `http://${app().grpcAddress}`, metadata: metadataOf(headers) })],
    ];
    for (const [transport, exporterFor] of exporters) {
      it(`folds the traces of an ${transport} export only once ingestion has been quiet`, async () => {
        const caller = await engineCaller(app());
        const exporter = exporterFor(caller.headers);
        try {
          expectExported(await exportSpans(exporter, await twoTraces()));
        } finally {
          await exporter.shutdown();
        }
        const { knex, folder } = app().server;
        expect(await pendingTraces(knex, caller.appId)).to.equal(2);
        // The pass looks again every GIVE_WAY_RECHECK_MS while ingestion counts as busy (the clock
        // held still): at this application's backlog only, not at every application's.
        const pass = folder.runOnce();
        await new Promise((resolve) => setTimeout(resolve, GIVE_WAY_RECHECK_MS / 2));
        const meanwhile = await statementsDuring(knex, () => new Promise((resolve) => setTimeout(resolve, 3 * GIVE_WAY_RECHECK_MS)));
        expect(meanwhile.filter((sql) => sql.includes('`traces`')).length, 'looked at again').to.be.within(1, 4);
        expect(
          meanwhile.filter((sql) => sql.includes('applications')),
          'every application probed again',
        ).to.deep.equal([]);
        expect(await pendingTraces(knex, caller.appId), 'folded while ingestion is busy').to.equal(2);
        now += QUIET_AFTER_MS;
        expect(await pass).to.equal(2);
        expect(await pendingTraces(knex, caller.appId)).to.equal(0);
      });
    }

    it(`folds a backlog of ${GIVE_WAY_BELOW} or more while ingestion is busy, a smaller one only once it is quiet`, async function () {
      this.timeout(120_000);
      const { knex } = app().server;
      const caller = await engineCaller(app());
      const start = BigInt(T0) * 1_000_000_000n;
      const rows = Array.from({ length: 2 * GIVE_WAY_BELOW }, (_, i) =>
        spanRow({
          application_id: caller.appId,
          trace_id: `${i + 1}`.padStart(32, 'b'),
          span_id: `${i + 1}`.padStart(16, '0'),
          start_time_unix_nano: (start + BigInt(i) * 1_000_000n).toString(),
          end_time_unix_nano: (start + BigInt(i) * 1_000_000n + 500n).toString(),
        }),
      );
      const store = async (part: SpanRow[]) => {
        for (let offset = 0; offset < part.length; offset += 2000) await storeSpans(knex, part.slice(offset, offset + 2000));
      };
      const busy = { ingestBusy: () => true };
      await store(rows.slice(0, GIVE_WAY_BELOW + 1));
      expect(await foldApplication(knex, caller.appId, 3000, busy)).to.equal(GIVE_WAY_BELOW + 1);
      await store(rows.slice(GIVE_WAY_BELOW + 1));
      expect(await foldApplication(knex, caller.appId, 3000, busy)).to.equal(0);
      expect(await pendingTraces(knex, caller.appId)).to.equal(GIVE_WAY_BELOW - 1);
      // Outside the server nothing is known of ingestion: the fold folds everything.
      expect(await foldApplication(knex, caller.appId, 3000)).to.equal(GIVE_WAY_BELOW - 1);
      expect(await pendingTraces(knex, caller.appId)).to.equal(0);
    });
  },
  // The other background jobs off: their polls would be counted among the statements the pass sends.
  {
    GRPC_PORT: '0',
    REPRICING_INTERVAL_SECONDS: '0',
    INDEXING_BACKFILL_INTERVAL_SECONDS: '0',
    BUDGET_EVALUATION_INTERVAL_SECONDS: '0',
    WEBHOOK_DELIVERY_INTERVAL_SECONDS: '0',
    RETENTION_PURGE_INTERVAL_SECONDS: '0',
  },
  { clock: () => now },
);
