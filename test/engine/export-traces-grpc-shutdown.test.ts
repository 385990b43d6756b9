// Graceful shutdown covers OTLP/gRPC: an export in flight when the service is told to stop is
// completed (its spans committed, its caller answered OK) before the database pool closes.
// The export is held in flight by a transaction of the test's own that it must wait for.
import { status as Status, type ServiceError } from '@grpc/grpc-js';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { engineCaller } from '../support/auth.js';
import { testDatabases } from '../support/databases.js';
import { rawExport } from '../support/grpc.js';
import { recordSpans } from '../support/otel.js';
import { spanRow } from '../support/span-rows.js';
import { startTestServer } from '../support/test-server.js';

/** Whether an export is now waiting on the test's transaction (for the pool, or for a row lock). */
async function exportIsWaiting(knex: Knex): Promise<boolean> {
  const pool = (knex.client as { pool: { numPendingAcquires(): number } }).pool;
  if (pool.numPendingAcquires() > 0) return true; // SQLite: its one connection is the test's
  if (knex.client.config.client !== 'mysql2') return false;
  // The test's own insert has finished: an INSERT into spans still running is the export's.
  const [rows] = await knex.raw(
    `SELECT COUNT(*) AS n FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE 'INSERT%INTO spans%'`,
  );
  return Number(rows[0].n) > 0;
}

function sqliteOrMysqlKnex(databaseUrl: string): Knex {
  if (databaseUrl.startsWith('mysql:')) return knexFactory({ client: 'mysql2', connection: databaseUrl, pool: { min: 0, max: 1 } });
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: databaseUrl.replace(/^sqlite:(\/\/)?/, '') },
    useNullAsDefault: true,
  });
}

for (const database of testDatabases()) {
  describe(`OTLP/gRPC graceful shutdown [${database.name}]`, () => {
    it('completes an export in flight before the service stops', async function () {
      this.timeout(60_000);
      const running = await startTestServer(database, { GRPC_PORT: '0' });
      try {
        const caller = await engineCaller(running);
        const spans = await recordSpans({ 'service.name': 'shutdown' }, (tracer) => {
          for (let index = 0; index < 3; index += 1)
            tracer.startSpan(`work ${index}`, { startTime: [1795355100, index] }).end([1795355100, index + 10]);
        });
        const knex = running.server.knex;
        // The first span's row, uncommitted: the export waits on it (a row lock on MariaDB,
        // the one connection on SQLite), and stores it itself once the test rolls it back.
        const first = spans[0]?.spanContext() as { traceId: string; spanId: string };
        const trx = await knex.transaction();
        await trx('spans').insert(spanRow({ application_id: caller.appId, trace_id: first.traceId, span_id: first.spanId }));
        const exported = rawExport(
          running.grpcAddress as string,
          ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array,
          caller.headers,
        ).then(({ error }) => error);
        let settled: ServiceError | null | undefined;
        void exported.then((error) => (settled = error));
        while (settled === undefined && !(await exportIsWaiting(knex))) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(settled, 'the export ended before it could be held in flight').to.equal(undefined);

        const closing = running.server.close();
        await trx.rollback();
        expect(await exported).to.equal(null);
        await closing;
        // Closed: the port takes no more calls.
        const { error: after } = await rawExport(running.grpcAddress as string, new Uint8Array(), caller.headers);
        expect(after?.code).to.equal(Status.UNAVAILABLE);

        const reader = sqliteOrMysqlKnex(running.config.databaseUrl as string);
        try {
          const stored: Array<{ span_id: string }> = await reader('spans').where({ application_id: caller.appId }).select('span_id');
          expect(stored.map((row) => row.span_id).sort()).to.deep.equal(spans.map((span) => span.spanContext().spanId).sort());
        } finally {
          await reader.destroy();
        }
      } finally {
        await running.stop();
      }
    });
  });
}
