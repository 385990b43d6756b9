// Export jobs across processes on every database (src/exports/README.md, "Resuming"): a job whose
// instance stops after some batches is finished by the next instance started on the same
// database, and one whose instance dies holding its lease is taken over once the lease has
// expired; either way the file is byte for byte that of an uninterrupted export of the same data
// (NDJSON, and CSV, whose header must be written once).
import { expect } from 'chai';
import { EXPORTS } from '../../src/storage/exports/export-jobs.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { testDatabases } from '../support/databases.js';
import { createExport, download, randomSpans, readExport, storeRandomSpans, WINDOW } from '../support/exports.js';
import { oneDatabase, type OneDatabase, type TestServer } from '../support/test-server.js';

/** The files compared: each format, and a gzip one (one gzip member a batch). */
const KINDS: Array<{ format: string; compression?: string }> = [
  { format: 'ndjson' },
  { format: 'csv' },
  { format: 'parquet' },
  { format: 'csv', compression: 'gzip' },
];
const nameOf = (kind: { format: string; compression?: string }) => (kind.compression ? `${kind.format}.gz` : kind.format);
const queryOf = (kind: { compression?: string }) => (kind.compression ? { ...WINDOW, compression: kind.compression } : WINDOW);

for (const database of testDatabases()) {
  describe(`export jobs across instances [${database.name}]`, function () {
    let instances: OneDatabase;
    const start = (clock?: () => number) => instances.start(clock);
    const stop = (app: TestServer) => instances.stop(app);

    before(async () => {
      instances = await oneDatabase(database, {
        EXPORT_INTERVAL_SECONDS: '0',
        EXPORT_SETTLE_SECONDS: '0',
        EXPORT_BATCH_ROWS: '40',
        EXPORT_MAX_ACTIVE_PER_ORGANIZATION: '10',
      });
    });
    after(async () => {
      await instances.drop();
    });

    /** Uninterrupted files of each format, to compare with. */
    async function references(app: TestServer, caller: EngineCaller): Promise<Map<string, Buffer>> {
      const files = new Map<string, Buffer>();
      for (const kind of KINDS) {
        const created = await createExport(app, caller, { format: kind.format }, queryOf(kind));
        await app.server.exporter.runOnce();
        expect((await readExport(app, caller, created.body.id)).state).to.equal('succeeded');
        files.set(nameOf(kind), (await download(app, caller, created.body.id)).bytes);
      }
      return files;
    }

    /**
     * Starts a pass, and stops the instance as soon as `id` has committed a batch (read from the
     * table: an HTTP round trip in this process leaves the worker time for many batches).
     */
    async function stopPartway(app: TestServer, id: string): Promise<void> {
      const pass = app.server.exporter.runOnce();
      for (;;) {
        const row = (await app.server.knex(EXPORTS).where({ id }).first('rows_written')) as { rows_written: number | string };
        if (Number(row.rows_written) > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await stop(app);
      await pass;
    }

    it('finishes a job its stopped instance left mid-way, with the bytes of an uninterrupted run', async () => {
      let app = await start();
      const caller = await engineCaller(app);
      await storeRandomSpans(app, randomSpans(caller.appId, 5, 150));
      const expected = await references(app, caller);
      const total = expected.get('ndjson')!.toString().split('\n').length - 1;
      for (const kind of KINDS) {
        const format = nameOf(kind);
        const id = (await createExport(app, caller, { format: kind.format }, queryOf(kind))).body.id as string;
        await stopPartway(app, id);
        const next = await start();
        // The process that stopped let the job go mid-way.
        const left = await readExport(next, caller, id);
        expect(left.state, format).to.equal('running');
        expect(left.progress.rows, format).to.be.greaterThan(0).and.lessThan(total);
        await next.server.exporter.runOnce();
        expect((await readExport(next, caller, id)).state, format).to.equal('succeeded');
        const file = await download(next, caller, id);
        expect(file.bytes.equals(expected.get(format)!), `${format}: the same bytes`).to.equal(true);
        app = next;
      }
      await stop(app);
    });

    it('takes over a job whose instance died holding its lease, once the lease has expired', async () => {
      const app = await start();
      const caller = await engineCaller(app);
      await storeRandomSpans(app, randomSpans(caller.appId, 9, 120));
      const expected = await references(app, caller);
      const id = (await createExport(app, caller, { format: 'csv' })).body.id as string;
      await stopPartway(app, id);
      const next = await start();
      // As a process that died mid-batch leaves it: held, its lease running on.
      await next.server
        .knex(EXPORTS)
        .where({ id })
        .update({ lease_owner: 'dead-host:1:000000000000', lease_expires_at: Date.now() + 30_000 });
      const held = await readExport(next, caller, id);
      await next.server.exporter.runOnce();
      expect(await readExport(next, caller, id), 'not taken while the lease runs').to.deep.equal(held);
      await stop(next);
      // 31 s on, the lease has expired: the next instance takes the job and finishes it.
      const later = await start(() => Date.now() + 31_000);
      await later.server.exporter.runOnce();
      expect((await readExport(later, caller, id)).state).to.equal('succeeded');
      expect((await download(later, caller, id)).bytes.equals(expected.get('csv')!)).to.equal(true);
    });
  });
}
