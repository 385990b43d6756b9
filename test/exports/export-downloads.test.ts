// Export downloads and the jobs' lifecycle on every database (openapi/engine.yaml, downloadExport,
// cancelExport, tag Exports): a file of several parts served whole and by byte range (206 bodies
// equal the slices of the whole, suffix ranges, a range past the end is a 416, several ranges or
// a stale If-Range the whole file, HEAD without the body); a job not finished is a 409, a
// cancelled one a 410, a finished one cannot be cancelled; the organization's active jobs are
// limited (429); and neither another organization nor another application reaches a job.
import { expect } from 'chai';
import { EXPORTS } from '../../src/storage/exports/export-jobs.js';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization } from '../support/accounts.js';
import type { EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { createExport, download, exportNow, randomSpans, readExport, storedParts, storeRandomSpans } from '../support/exports.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

/** An organization with two applications, each with a key of its own; the first holds the spans. */
async function organization(app: TestServer): Promise<{ caller: EngineCaller; sibling: EngineCaller }> {
  const organizationId = await seedOrganization(app.server.knex, []);
  const caller = async (): Promise<EngineCaller> => {
    const appId = await seedApplication(app.server.knex, organizationId);
    const token = await apiKeyToken(app, await seedApiKey(app.server.knex, appId, ['read:traces']));
    return { appId, headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId } };
  };
  return { caller: await caller(), sibling: await caller() };
}

onEachDatabase(
  'export downloads and lifecycle',
  (app) => {
    let caller: EngineCaller;
    let sibling: EngineCaller;
    let job: Record<string, any>;
    let whole: Buffer;

    before(async () => {
      ({ caller, sibling } = await organization(app()));
      // About 2.5 MB of NDJSON: several parts of 1 MiB at most.
      await storeRandomSpans(app(), randomSpans(caller.appId, 7, 1400));
      job = await exportNow(app(), caller);
      expect(job.state).to.equal('succeeded');
      const file = await download(app(), caller, job.id);
      expect(file.status).to.equal(200);
      whole = file.bytes;
      expect(whole.length)
        .to.equal(job.progress.bytes)
        .and.be.greaterThan(2 * 1024 * 1024);
      expect(await storedParts(app(), job.id)).to.be.greaterThan(2);
    });

    it('serves one range per request as 206, whatever parts it crosses, with its Content-Range', async () => {
      const size = whole.length;
      const etag = (await download(app(), caller, job.id, {}, 'HEAD')).headers.get('etag') as string;
      const cases: Array<[string, number, number]> = [
        ['bytes=0-0', 0, 0],
        ['bytes=0-99', 0, 99],
        ['bytes=1048570-1048600', 1048570, 1048600],
        ['bytes=1000000-2200000', 1000000, 2200000],
        [`bytes=${size - 10}-`, size - 10, size - 1],
        [`bytes=5-${size + 1000}`, 5, size - 1],
        ['bytes=-1', size - 1, size - 1],
        ['bytes=-1500000', size - 1500000, size - 1],
        [`bytes=-${size + 5}`, 0, size - 1],
        ['BYTES = 7-8', 7, 8],
      ];
      for (const [range, start, end] of cases) {
        for (const headers of [{ Range: range }, { Range: range, 'If-Range': etag }] as Array<Record<string, string>>) {
          const part = await download(app(), caller, job.id, headers);
          expect(part.status, range).to.equal(206);
          expect(part.headers.get('content-range'), range).to.equal(`bytes ${start}-${end}/${size}`);
          expect(part.headers.get('content-length'), range).to.equal(String(end - start + 1));
          expect(part.headers.get('etag'), range).to.equal(etag);
          expect(part.bytes.equals(whole.subarray(start, end + 1)), range).to.equal(true);
        }
      }
    });

    it('answers a range past the end 416 with the size, and several ranges, a stale If-Range or an unreadable Range with the whole file', async () => {
      const size = whole.length;
      for (const range of [`bytes=${size}-`, `bytes=${size + 7}-${size + 9}`, 'bytes=-0']) {
        const refused = await download(app(), caller, job.id, { Range: range });
        expect(refused.status, range).to.equal(416);
        expect(refused.headers.get('content-range'), range).to.equal(`bytes */${size}`);
      }
      const wholeFile: Array<Record<string, string>> = [
        { Range: 'bytes=0-1,5-9' },
        { Range: 'bytes=9-5' },
        { Range: 'items=0-5' },
        { Range: 'bytes=abc' },
        { Range: 'bytes=0-5', 'If-Range': `"${job.id}-1"` },
        { Range: 'bytes=0-5', 'If-Range': 'Wed, 21 Oct 2015 07:28:00 GMT' },
      ];
      for (const headers of wholeFile) {
        const answer = await download(app(), caller, job.id, headers);
        expect(answer.status, JSON.stringify(headers)).to.equal(200);
        expect(answer.headers.get('content-range')).to.equal(null);
        expect(answer.bytes.equals(whole), JSON.stringify(headers)).to.equal(true);
      }
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const head = await download(app(), caller, job.id, {}, 'HEAD');
      expect(head.status).to.equal(200);
      expect(head.bytes.length).to.equal(0);
      expect(head.headers.get('content-length')).to.equal(String(whole.length));
      expect(head.headers.get('accept-ranges')).to.equal('bytes');
      expect(head.headers.get('etag')).to.equal(`"${job.id}-${whole.length}"`);
      const range = await download(app(), caller, job.id, { Range: 'bytes=10-19' }, 'HEAD');
      expect([range.status, range.headers.get('content-range'), range.bytes.length]).to.deep.equal([206, `bytes 10-19/${whole.length}`, 0]);
    });

    it('answers a download of a job not finished 409, of a cancelled one 410; cancels once, and never a finished job', async () => {
      const created = await createExport(app(), caller, { format: 'csv' });
      expect(created.status).to.equal(202);
      const id = created.body.id as string;
      expect(created.headers.get('location')).to.equal(`/engine/exports/${id}`);
      expect(created.body).to.include({ state: 'queued', download_path: null, expires_at: null });
      const early = await download(app(), caller, id);
      expect(early.status).to.equal(409);
      expect(JSON.parse(early.bytes.toString())).to.include({ code: 'export_not_finished', export_id: id, state: 'queued' });

      const cancel = () => call(app().url, 'POST', `/engine/exports/${id}/cancel`, { headers: caller.headers });
      const cancelled = await cancel();
      expect(cancelled.status).to.equal(200);
      expect(cancelled.body).to.include({ id, state: 'cancelled', started_at: null });
      const again = await cancel();
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(cancelled.body);
      await app().server.exporter.runOnce();
      expect(await readExport(app(), caller, id)).to.deep.equal(cancelled.body);
      const gone = await download(app(), caller, id);
      expect(gone.status).to.equal(410);
      expect(JSON.parse(gone.bytes.toString())).to.include({ code: 'export_cancelled', state: 'cancelled' });

      const finished = await call(app().url, 'POST', `/engine/exports/${job.id}/cancel`, { headers: caller.headers });
      expect(finished.status).to.equal(409);
      expect(finished.body).to.include({ code: 'export_finished', export_id: job.id, state: 'succeeded' });
      expect((await readExport(app(), caller, job.id)).state).to.equal('succeeded');
    });

    it('deletes what a job cancelled mid-way had written', async () => {
      const created = await createExport(app(), caller);
      const id = created.body.id as string;
      // One pass until some batches are in, then a cancel between two of them.
      const pass = app().server.exporter.runOnce();
      let rows = 0;
      while (rows === 0) {
        rows = (await readExport(app(), caller, id)).progress.rows;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const cancelled = await call(app().url, 'POST', `/engine/exports/${id}/cancel`, { headers: caller.headers });
      expect(cancelled.status).to.equal(200);
      await pass;
      const read = await readExport(app(), caller, id);
      expect(read.state).to.equal('cancelled');
      expect(read.progress.rows, 'stopped mid-way').to.be.greaterThan(0).and.lessThan(job.progress.rows);
      await app().server.exporter.runOnce();
      expect(await storedParts(app(), id)).to.equal(0);
      expect(await storedParts(app(), job.id), 'other files stay').to.be.greaterThan(0);
    });

    it('lists the jobs newest first, by page and by cursor', async () => {
      const all = await call(app().url, 'GET', '/engine/exports', { headers: caller.headers, query: { limit: 100 } });
      expect(all.status).to.equal(200);
      const ids = all.body.data.map((item: { id: string }) => item.id);
      expect(ids).to.include(job.id);
      expect(all.body.pagination).to.deep.equal({ page: 1, limit: 100, total: ids.length });
      const created = all.body.data.map((item: { created_at: string }) => item.created_at);
      expect(created).to.deep.equal([...created].sort().reverse());
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await call(app().url, 'GET', '/engine/exports', { headers: caller.headers, query: { limit: 1, cursor } });
        expect(page.status).to.equal(200);
        walked.push(...page.body.data.map((item: { id: string }) => item.id));
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      expect(walked).to.deep.equal(ids);
      const none = await call(app().url, 'GET', '/engine/exports', { headers: sibling.headers });
      expect(none.body.data).to.deep.equal([]);
    });

    it('limits the jobs queued or running per organization (429 with Retry-After), counting none of another organization', async () => {
      const { caller: own } = await organization(app());
      const first = await createExport(app(), own);
      const second = await createExport(app(), own, { format: 'csv' });
      expect([first.status, second.status]).to.deep.equal([202, 202]);
      const third = await createExport(app(), own);
      expect(third.status).to.equal(429);
      expect(third.headers.get('retry-after')).to.equal('30');
      expect(third.body.detail).to.include('EXPORT_MAX_ACTIVE_PER_ORGANIZATION');
      const { caller: stranger } = await organization(app());
      expect((await createExport(app(), stranger)).status).to.equal(202);
      await call(app().url, 'POST', `/engine/exports/${first.body.id}/cancel`, { headers: own.headers });
      expect((await createExport(app(), own)).status).to.equal(202);
      await app().server.exporter.runOnce();
      // The jobs of an application deleted count no more, and are cancelled by the next pass.
      const { caller: doomed, sibling: survivor } = await organization(app());
      const doomedJobs = [await createExport(app(), doomed), await createExport(app(), doomed)];
      expect((await createExport(app(), survivor)).status).to.equal(429);
      await app().server.knex('applications').where({ id: doomed.appId }).update({ deleted_at: Date.now() });
      expect((await createExport(app(), survivor)).status).to.equal(202);
      await app().server.exporter.runOnce();
      const states = await app()
        .server.knex(EXPORTS)
        .whereIn(
          'id',
          doomedJobs.map((job) => job.body.id),
        )
        .pluck('state');
      expect(states).to.deep.equal(['cancelled', 'cancelled']);
      // Creations sent at once take turns: exactly the limit gets through.
      const { caller: busy } = await organization(app());
      const answers = await Promise.all(Array.from({ length: 6 }, () => createExport(app(), busy)));
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([202, 202, 429, 429, 429, 429]);
    });

    it('keeps jobs from other organizations (404) and API keys of other applications (403, 404 for the job)', async () => {
      const { caller: stranger } = await organization(app());
      const paths: Array<[string, string]> = [
        ['GET', `/engine/exports/${job.id}`],
        ['GET', `/engine/exports/${job.id}/file`],
        ['POST', `/engine/exports/${job.id}/cancel`],
        ['GET', '/engine/exports'],
        ['POST', '/engine/exports'],
      ];
      for (const [method, path] of paths) {
        const query =
          method === 'POST' && path === '/engine/exports' ? { start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-02T00:00:00Z' } : {};
        // Another organization naming this application: as every read, 404.
        const foreign = await call(app().url, method, path, { headers: { ...stranger.headers, 'X-Vendor-App-Id': caller.appId }, query });
        expect(foreign.status, `${method} ${path}`).to.equal(404);
        // A key of another application of the organization naming this one: 403, as the reads.
        const sideways = await call(app().url, method, path, { headers: { ...sibling.headers, 'X-Vendor-App-Id': caller.appId }, query });
        expect(sideways.status, `${method} ${path}`).to.equal(403);
      }
      // A job named under its sibling application, or under another organization's own application: 404.
      for (const other of [sibling, stranger]) {
        for (const [method, path] of paths.slice(0, 3)) {
          const answer = await call(app().url, method, path, { headers: other.headers });
          expect(answer.status, `${method} ${path}`).to.equal(404);
          expect(answer.body.detail).to.equal('Export not found');
        }
      }
      expect((await call(app().url, 'GET', '/engine/exports/exp_00000000000000000000', { headers: caller.headers })).status).to.equal(404);
      expect((await readExport(app(), caller, job.id)).state, 'nothing changed').to.equal('succeeded');
    });
  },
  { EXPORT_INTERVAL_SECONDS: '0', EXPORT_SETTLE_SECONDS: '0', EXPORT_BATCH_ROWS: '500' },
);
