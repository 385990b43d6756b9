// Compressed exports (openapi/engine.yaml, createExport `compression`), on every database: a gzip
// NDJSON or CSV file is, once gunzipped, exactly the uncompressed file of the same export, in
// several gzip members (one a batch) that one gunzip reads as one stream; it is served as
// application/gzip named <id>.<format>.gz, counts its compressed bytes, and serves byte ranges
// of them; Parquet with gzip, or an unknown compression, is a 422.
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { createExport, download, exportNow, randomSpans, storeRandomSpans, WINDOW } from '../support/exports.js';
import { onEachDatabase } from '../support/test-server.js';

/** The gzip members of a file: each starts with the magic bytes 1f 8b and deflate (08). */
function members(file: Buffer): number {
  let count = 0;
  for (let at = file.indexOf('1f8b08', 0, 'hex'); at !== -1; at = file.indexOf('1f8b08', at + 1, 'hex')) count += 1;
  return count;
}

onEachDatabase(
  'compressed exports',
  (app) => {
    let caller: EngineCaller;

    before(async () => {
      caller = await engineCaller(app());
      await storeRandomSpans(app(), randomSpans(caller.appId, 31, 400));
    });

    for (const [format, body] of [
      ['ndjson', { format: 'ndjson' }],
      ['csv', { format: 'csv', columns: ['trace_id', 'span_id', 'span_name', 'span_attributes', 'cost'] }],
    ] as const) {
      it(`writes a gzip ${format} file that gunzips to the uncompressed file, several members read as one`, async () => {
        const plain = await exportNow(app(), caller, body);
        const zipped = await exportNow(app(), caller, body, { ...WINDOW, compression: 'gzip' });
        expect([plain.compression, zipped.compression]).to.deep.equal(['none', 'gzip']);
        expect(zipped.progress.rows).to.equal(plain.progress.rows).and.be.greaterThan(1000);
        const plainFile = (await download(app(), caller, plain.id)).bytes;
        const file = await download(app(), caller, zipped.id);
        expect(file.status).to.equal(200);
        expect(file.headers.get('content-type')).to.equal('application/gzip');
        expect(file.headers.get('content-disposition')).to.equal(`attachment; filename="${zipped.id}.${format}.gz"`);
        expect(file.bytes.length).to.equal(zipped.progress.bytes);
        expect(file.bytes.length * 5, 'at least five times smaller').to.be.below(plainFile.length);
        // 500 records a batch: a member each, the file's head with the first.
        expect(members(file.bytes)).to.be.at.least(Math.ceil(zipped.progress.rows / 500));
        expect(gunzipSync(file.bytes).equals(plainFile)).to.equal(true);
        // Ranges count the compressed bytes.
        const part = await download(app(), caller, zipped.id, { Range: 'bytes=10-99' });
        expect([part.status, part.headers.get('content-range')]).to.deep.equal([206, `bytes 10-99/${file.bytes.length}`]);
        expect(part.bytes.equals(file.bytes.subarray(10, 100))).to.equal(true);
      });
    }

    it('refuses gzip for Parquet, which compresses its own column chunks, and an unknown compression (422)', async () => {
      const parquet = await createExport(app(), caller, { format: 'parquet' }, { ...WINDOW, compression: 'gzip' });
      expect(parquet.status).to.equal(422);
      expect(parquet.body.detail.map((issue: { loc: unknown }) => issue.loc)).to.deep.equal([['query', 'compression']]);
      const unknown = await createExport(app(), caller, { format: 'csv' }, { ...WINDOW, compression: 'zip' });
      expect(unknown.status).to.equal(422);
      expect(unknown.body.detail[0].loc).to.deep.equal(['query', 'compression']);
      // Parquet without compression, or with none, is made as before.
      const none = await createExport(app(), caller, { format: 'parquet' }, { ...WINDOW, compression: 'none' });
      expect([none.status, none.body.compression]).to.deep.equal([202, 'none']);
    });
  },
  { EXPORT_INTERVAL_SECONDS: '0', EXPORT_SETTLE_SECONDS: '0', EXPORT_BATCH_ROWS: '500' },
);
