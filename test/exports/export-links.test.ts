// Download links of exports on every database (openapi/engine.yaml, createExportLink and
// downloadExportByLink): a link serves the file without credentials, whole, by range and as
// HEAD, exactly as the authenticated download; it lives `expires_in` seconds, never past the
// result's expiry; a link changed, expired, made for another export or sent as a bearer token is
// refused (401), and so is a bearer token sent as a link; a link stops at the result's expiry
// (410) and with its application (404); only the application's readers make links.
import { expect } from 'chai';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization } from '../support/accounts.js';
import type { EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { createExport, download, downloadByLink, exportNow, randomSpans, storeRandomSpans } from '../support/exports.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

async function readerOf(app: TestServer, organizationId: string, permissions = ['read:traces']): Promise<EngineCaller> {
  const appId = await seedApplication(app.server.knex, organizationId);
  const token = await apiKeyToken(app, await seedApiKey(app.server.knex, appId, permissions));
  return { appId, headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId } };
}

onEachDatabase(
  'export download links',
  (app) => {
    let caller: EngineCaller;
    let organizationId: string;
    let job: Record<string, any>;
    let whole: Buffer;

    const makeLink = (id: string, query: Record<string, string> = {}, who: EngineCaller = caller) =>
      call(app().url, 'POST', `/engine/exports/${id}/links`, { headers: who.headers, query });

    before(async () => {
      organizationId = await seedOrganization(app().server.knex, []);
      caller = await readerOf(app(), organizationId);
      await storeRandomSpans(app(), randomSpans(caller.appId, 11, 900));
      job = await exportNow(app(), caller, { format: 'csv' });
      expect(job.state).to.equal('succeeded');
      whole = (await download(app(), caller, job.id)).bytes;
      expect(whole.length)
        .to.equal(job.progress.bytes)
        .and.be.greaterThan(1024 * 1024);
    });

    it('serves the file without credentials, whole, by range and as HEAD, as the authenticated download does', async () => {
      const before = Date.now();
      const made = await makeLink(job.id);
      expect(made.status, made.text).to.equal(201);
      expect(made.body.export_id).to.equal(job.id);
      expect(made.body.download_path).to.match(new RegExp(`^/engine/exports/${job.id}/download\\?token=[\\w.-]+$`));
      // An hour unless asked otherwise, to the second the token names.
      const expiresAt = Date.parse(made.body.expires_at);
      expect(expiresAt % 1000).to.equal(0);
      expect(expiresAt).to.be.within(Math.floor(before / 1000) * 1000 + 3_600_000, Date.now() + 3_600_000);

      const file = await downloadByLink(app(), made.body.download_path);
      expect(file.status).to.equal(200);
      expect(file.bytes.equals(whole)).to.equal(true);
      expect(file.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
      expect(file.headers.get('content-disposition')).to.equal(`attachment; filename="${job.id}.csv"`);
      const etag = file.headers.get('etag') as string;
      expect(etag).to.equal(`"${job.id}-${whole.length}"`);
      const part = await downloadByLink(app(), made.body.download_path, { Range: 'bytes=1048000-1049000', 'If-Range': etag });
      expect([part.status, part.headers.get('content-range')]).to.deep.equal([206, `bytes 1048000-1049000/${whole.length}`]);
      expect(part.bytes.equals(whole.subarray(1048000, 1049001))).to.equal(true);
      const past = await downloadByLink(app(), made.body.download_path, { Range: `bytes=${whole.length}-` });
      expect([past.status, past.headers.get('content-range')]).to.deep.equal([416, `bytes */${whole.length}`]);
      const head = await downloadByLink(app(), made.body.download_path, {}, 'HEAD');
      expect([head.status, head.bytes.length, head.headers.get('content-length')]).to.deep.equal([200, 0, String(whole.length)]);
      // Credentials and an application header sent along change nothing.
      const stranger = await readerOf(app(), await seedOrganization(app().server.knex, []));
      const withOthers = await downloadByLink(app(), made.body.download_path, stranger.headers);
      expect([withOthers.status, withOthers.bytes.equals(whole)]).to.deep.equal([200, true]);
    });

    it('lives expires_in seconds (60 to 86400), never past the result, each call a new link', async () => {
      const before = Math.floor(Date.now() / 1000) * 1000;
      const short = await makeLink(job.id, { expires_in: '60' });
      expect(short.status, short.text).to.equal(201);
      expect(Date.parse(short.body.expires_at)).to.be.within(before + 60_000, Date.now() + 60_000);
      const again = await makeLink(job.id, { expires_in: '60' });
      expect(again.body.download_path).not.to.equal(short.body.download_path);
      for (const refused of ['59', '86401', '0', 'soon', '1.5']) {
        const answer = await makeLink(job.id, { expires_in: refused });
        expect(answer.status, refused).to.equal(422);
        expect(answer.body.detail[0].loc, answer.text).to.deep.equal(['query', 'expires_in']);
      }
      // A day asked, the result kept less: the link ends with the result, to its second.
      const resultEnds = Date.parse(job.expires_at);
      const long = await makeLink(job.id, { expires_in: '86400' });
      expect(Date.parse(long.body.expires_at)).to.equal(Math.floor(resultEnds / 1000) * 1000);
      expect(Date.parse(long.body.expires_at)).to.be.below(Date.now() + 86_400_000);
    });

    it('refuses a link changed, expired, made for another export or sent as a bearer token, and a bearer token sent as a link (401)', async () => {
      const { download_path: path } = (await makeLink(job.id)).body as { download_path: string };
      const token = new URL(path, app().url).searchParams.get('token') as string;
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
      const expired = await app().server.tokens.signExportLink({
        exportId: job.id,
        applicationId: caller.appId,
        expiresAtSeconds: Math.floor(Date.now() / 1000) - 3600,
      });
      const other = await exportNow(app(), caller, { format: 'ndjson' });
      const bearer = (caller.headers.Authorization as string).slice('Bearer '.length);
      const refusedLinks: Array<[string, string]> = [
        ['a changed signature', `/engine/exports/${job.id}/download?token=${header}.${payload}.${flipped}`],
        ['a changed payload', `/engine/exports/${job.id}/download?token=${header}.${payload.slice(0, -2)}.${signature}`],
        ['an expired link', `/engine/exports/${job.id}/download?token=${expired}`],
        ["another export's path", `/engine/exports/${other.id}/download?token=${token}`],
        ['an API token', `/engine/exports/${job.id}/download?token=${bearer}`],
        ['no JWT', `/engine/exports/${job.id}/download?token=abc`],
      ];
      for (const [name, refusedPath] of refusedLinks) {
        const answer = await downloadByLink(app(), refusedPath);
        expect(answer.status, name).to.equal(401);
        expect(answer.headers.get('www-authenticate'), name).to.match(/^Bearer error="invalid_token"/);
      }
      const missing = await downloadByLink(app(), `/engine/exports/${job.id}/download`);
      expect(missing.status).to.equal(422);
      // The link's token is no bearer token.
      const asBearer = await call(app().url, 'GET', `/engine/exports/${job.id}`, {
        headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': caller.appId },
      });
      expect(asBearer.status).to.equal(401);
    });

    it('makes no link of a job not finished (409) or cancelled (410); a link stops when the result expires (410) and with its application (404)', async () => {
      const created = await createExport(app(), caller);
      const id = created.body.id as string;
      const early = await makeLink(id);
      expect([early.status, early.body.code]).to.deep.equal([409, 'export_not_finished']);
      await call(app().url, 'POST', `/engine/exports/${id}/cancel`, { headers: caller.headers });
      const cancelled = await makeLink(id);
      expect([cancelled.status, cancelled.body.code]).to.deep.equal([410, 'export_cancelled']);

      // A result of its own application, so that its expiry and deletion leave the other tests alone.
      const owner = await readerOf(app(), organizationId);
      await storeRandomSpans(app(), randomSpans(owner.appId, 12, 50));
      const finished = await exportNow(app(), owner);
      const link = await makeLink(finished.id, {}, owner);
      expect((await downloadByLink(app(), link.body.download_path)).status).to.equal(200);
      await app()
        .server.knex('exports')
        .where({ id: finished.id })
        .update({ expires_at: Date.now() - 1000 });
      const expired = await downloadByLink(app(), link.body.download_path);
      expect([expired.status, JSON.parse(expired.bytes.toString()).code]).to.deep.equal([410, 'export_expired']);
      expect((await makeLink(finished.id, {}, owner)).status).to.equal(410);
      await app().server.knex('applications').where({ id: owner.appId }).update({ deleted_at: Date.now() });
      const deleted = await downloadByLink(app(), link.body.download_path);
      expect(deleted.status).to.equal(404);
    });

    it("makes links for the application's readers only: 403 for a key of a sibling application or without read:traces, 404 outside the organization", async () => {
      const sibling = await readerOf(app(), organizationId);
      const writer = await readerOf(app(), organizationId, ['write:traces']);
      const stranger = await readerOf(app(), await seedOrganization(app().server.knex, []));
      const naming = (who: EngineCaller) => ({ ...who, headers: { ...who.headers, 'X-Vendor-App-Id': caller.appId } });
      expect((await makeLink(job.id, {}, naming(sibling))).status).to.equal(403);
      expect((await makeLink(job.id, {}, { ...writer, headers: writer.headers })).status).to.equal(403);
      expect((await makeLink(job.id, {}, naming(stranger))).status).to.equal(404);
      // A job under another application's own name: 404.
      const own = await makeLink(job.id, {}, sibling);
      expect([own.status, own.body.detail]).to.deep.equal([404, 'Export not found']);
      const unauthenticated = await call(app().url, 'POST', `/engine/exports/${job.id}/links`, {
        headers: { 'X-Vendor-App-Id': caller.appId },
      });
      expect(unauthenticated.status).to.equal(401);
    });
  },
  { EXPORT_INTERVAL_SECONDS: '0', EXPORT_SETTLE_SECONDS: '0', EXPORT_BATCH_ROWS: '500' },
);
