// The bytes an organization keeps and the results' expiry, on every database (openapi/engine.yaml,
// tag Exports): a job whose next batch would take its organization past
// EXPORT_MAX_BYTES_PER_ORGANIZATION stops `failed` with `byte_limit` and its file is deleted,
// while results that fit are kept and counted; a result expires EXPORT_RETENTION_HOURS after it
// succeeded (410, its file deleted, its bytes no longer counted), and its record is purged a week
// later (404); a regex filter past the statement time limit fails the job with `time_limit`. The
// service's clock is moved instead of waiting.
import { expect } from 'chai';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { download, exportNow, randomSpans, readExport, storedParts, storeRandomSpans } from '../support/exports.js';
import { call } from '../support/contract.js';
import { onEachDatabase } from '../support/test-server.js';

const HOUR = 3_600_000;
const MAX_BYTES = 60_000;
let shift = 0;
const clock = () => Date.now() + shift;

onEachDatabase(
  'export limits and expiry',
  (app) => {
    let caller: EngineCaller;
    let small: Record<string, any>;
    const SMALL = { columns: ['trace_id', 'span_id'] };

    before(async () => {
      shift = 0;
      caller = await engineCaller(app());
      await storeRandomSpans(app(), randomSpans(caller.appId, 11, 120));
      small = await exportNow(app(), caller, SMALL);
      expect(small.state).to.equal('succeeded');
      expect(small.progress.bytes)
        .to.be.greaterThan(10_000)
        .and.lessThan(MAX_BYTES / 2);
    });

    it('stops a job whose next batch would pass the organization’s bytes kept, failed with byte_limit, and deletes what it wrote', async () => {
      const full = await exportNow(app(), caller);
      expect(full).to.include({ state: 'failed', download_path: null, expires_at: null });
      expect(full.error.code).to.equal('byte_limit');
      expect(full.error.message).to.include('EXPORT_MAX_BYTES_PER_ORGANIZATION');
      expect(full.finished_at).to.be.a('string');
      // It stopped after batches that fitted beside the small result.
      expect(full.progress.rows).to.be.greaterThan(0);
      expect(small.progress.bytes + full.progress.bytes).to.be.at.most(MAX_BYTES);
      await app().server.exporter.runOnce();
      expect(await storedParts(app(), full.id)).to.equal(0);
      const gone = await download(app(), caller, full.id);
      expect(gone.status).to.equal(410);
      expect(JSON.parse(gone.bytes.toString())).to.include({ code: 'export_failed', state: 'failed' });
      // The small result is still there, and still counted: a second one fits, a third does not.
      expect((await download(app(), caller, small.id)).status).to.equal(200);
      expect((await exportNow(app(), caller, SMALL)).state).to.equal('succeeded');
      const third = await exportNow(app(), caller, SMALL);
      expect(third.state).to.equal('failed');
      expect(third.error.code).to.equal('byte_limit');
    });

    it('fails a job whose regex filter runs past the statement time limit with time_limit', async () => {
      // Long values and a pattern slow enough to pass a 1 ms limit on both databases (test/engine/regex-filter.test.ts).
      const slow = await engineCaller(app());
      const note = `d${'abc'.repeat(4000)}`;
      const rows = randomSpans(slow.appId, 3, 70).map((row) => ({ ...row, span_attributes: JSON.stringify({ note }) }));
      await storeRandomSpans(app(), rows);
      const job = await exportNow(app(), slow, { filter: { field: 'span_attributes.note', op: 'regex', value: 'a.*b.*c.*d' } });
      expect(job).to.include({ state: 'failed', download_path: null });
      expect(job.error.code).to.equal('time_limit');
      expect(job.error.message).to.include('time limit of 1 ms');
    });

    it('expires a result EXPORT_RETENTION_HOURS after it succeeded (410, file deleted, bytes freed), and purges its record a week later', async () => {
      const expiresAt = Date.parse(small.finished_at) + 2 * HOUR;
      expect(Date.parse(small.expires_at)).to.equal(expiresAt);
      shift = expiresAt - 1000 - Date.now();
      expect((await readExport(app(), caller, small.id)).state).to.equal('succeeded');
      // Every result of this suite is past its expiry; read before any pass has marked it, it is expired already.
      shift = 3 * HOUR;
      expect((await readExport(app(), caller, small.id)).state).to.equal('expired');
      const gone = await download(app(), caller, small.id);
      expect(gone.status).to.equal(410);
      const problem = JSON.parse(gone.bytes.toString());
      expect(problem).to.include({ code: 'export_expired', export_id: small.id, state: 'expired' });
      expect(problem.detail).to.include(small.expires_at);
      const cancel = await call(app().url, 'POST', `/engine/exports/${small.id}/cancel`, { headers: caller.headers });
      expect(cancel.status).to.equal(409);
      expect(cancel.body).to.include({ code: 'export_finished', state: 'expired' });
      await app().server.exporter.runOnce();
      const expired = await readExport(app(), caller, small.id);
      expect(expired).to.include({ state: 'expired', download_path: `/engine/exports/${small.id}/file` });
      expect(await storedParts(app(), small.id)).to.equal(0);
      // The expired results count no more: what did not fit before fits now.
      const refit = await exportNow(app(), caller, SMALL);
      expect(refit.state, JSON.stringify(refit.error)).to.equal('succeeded');

      shift = expiresAt + 7 * 24 * HOUR - 1000 - Date.now();
      await app().server.exporter.runOnce();
      expect((await readExport(app(), caller, small.id)).state, 'kept 7 days after expiry').to.equal('expired');
      shift += 2000;
      await app().server.exporter.runOnce();
      const purged = await call(app().url, 'GET', `/engine/exports/${small.id}`, { headers: caller.headers });
      expect(purged.status).to.equal(404);
      const listed = await call(app().url, 'GET', '/engine/exports', { headers: caller.headers, query: { limit: 100 } });
      const ids = listed.body.data.map((job: { id: string }) => job.id);
      expect(ids).to.include(refit.id).and.not.include(small.id);
    });
  },
  {
    EXPORT_INTERVAL_SECONDS: '0',
    EXPORT_SETTLE_SECONDS: '0',
    EXPORT_BATCH_ROWS: '20',
    EXPORT_MAX_BYTES_PER_ORGANIZATION: String(MAX_BYTES),
    EXPORT_RETENTION_HOURS: '2',
    EXPORT_MAX_ACTIVE_PER_ORGANIZATION: '10',
    REGEX_STATEMENT_TIMEOUT_MS: '1',
  },
  { clock },
);
