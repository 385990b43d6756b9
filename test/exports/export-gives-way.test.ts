// An export job gives way to ingestion (src/jobs/exporter.ts), on every database: while the
// process stores spans, the worker waits after each batch as long as the batch took (at most
// GIVE_WAY_MAX_MS) before the next, and not at all when ingestion is quiet; the file is the same
// either way.
import { expect } from 'chai';
import { spanRecord, traceSummary } from '../../src/engine/wire.js';
import { Exporter, GIVE_WAY_MAX_MS } from '../../src/jobs/exporter.js';
import { sqlSpanStore } from '../../src/storage/spans/sql-span-store.js';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization } from '../support/accounts.js';
import type { EngineCaller } from '../support/auth.js';
import { createExport, download, randomSpans, readExport, storeRandomSpans } from '../support/exports.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const BATCH_ROWS = 200;

onEachDatabase(
  'export jobs give way to ingestion',
  (app) => {
    let caller: EngineCaller;

    before(async () => {
      const organizationId = await seedOrganization(app().server.knex, []);
      const appId = await seedApplication(app().server.knex, organizationId);
      const token = await apiKeyToken(app(), await seedApiKey(app().server.knex, appId, ['read:traces']));
      caller = { appId, headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId } };
      await storeRandomSpans(app(), randomSpans(appId, 21, 1000));
    });

    /** Runs one export with its own worker, ingestion busy or not; the waits it asked for, and the file. */
    async function exportWith(server: TestServer, busy: boolean) {
      const waits: number[] = [];
      let busyChecks = 0;
      const exporter = new Exporter({
        knex: server.server.knex,
        spans: sqlSpanStore(server.server.knex),
        logger: server.server.logger,
        config: { ...server.config.exports, batchRows: BATCH_ROWS },
        records: { spans: spanRecord, traces: traceSummary },
        ingestBusy: () => {
          busyChecks += 1;
          return busy;
        },
        giveWay: async (ms) => {
          waits.push(ms);
        },
      });
      const created = await createExport(server, caller, { format: 'ndjson' });
      expect(created.status, created.text).to.equal(202);
      const batches = await exporter.runOnce();
      const job = await readExport(server, caller, created.body.id as string);
      expect(job.state).to.equal('succeeded');
      const file = await download(server, caller, job.id as string);
      return { waits, busyChecks, batches, rows: job.progress.rows as number, file: file.bytes };
    }

    it('waits after each batch but the last as long as the batch took while ingestion is busy, and never when it is quiet', async () => {
      const busy = await exportWith(app(), true);
      const quiet = await exportWith(app(), false);
      // The last batch is the first with fewer records than asked for (none when they divide evenly): it closes the file.
      const batches = Math.floor(busy.rows / BATCH_ROWS) + 1;
      expect(busy.rows).to.be.above(3 * BATCH_ROWS);
      expect([busy.batches, quiet.batches]).to.deep.equal([batches, batches]);
      expect(busy.waits).to.have.length(batches - 1);
      for (const ms of busy.waits) expect(ms).to.be.above(0).and.at.most(GIVE_WAY_MAX_MS);
      expect(quiet.waits).to.deep.equal([]);
      expect(quiet.busyChecks, 'ingestion asked about after each batch but the last').to.equal(batches - 1);
      expect(quiet.file.equals(busy.file), 'the same file either way').to.equal(true);
    });
  },
  { EXPORT_INTERVAL_SECONDS: '0', EXPORT_SETTLE_SECONDS: '0' },
);
