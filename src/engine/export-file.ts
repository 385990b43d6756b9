// GET /engine/exports/{export_id}/file (downloadExport): a succeeded export's file, streamed from
// the database, whole or one byte range (src/exports/byte-ranges.ts), with a strong ETag; HEAD
// answers the same headers without opening the stream.
import type { operations } from '../generated/engine.js';
import { NotFoundError } from '../errors.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { byteRange } from '../exports/byte-ranges.js';
import { fileStream } from '../exports/export-file.js';
import { asOf, downloadable, EXPORT_NOT_FOUND } from '../exports/export-jobs.js';
import { formatOf } from '../exports/formats/index.js';
import { findExportJob } from '../storage/exports/export-jobs.js';

export function downloadExport({ knex, config, clock = Date.now }: ServiceDeps): OperationHandler<operations['downloadExport']> {
  return async (request) => {
    const stored = await findExportJob(knex, request.headers['x-vendor-app-id'], request.params.export_id);
    if (!stored) throw new NotFoundError(EXPORT_NOT_FOUND);
    const job = downloadable(asOf(stored, clock()), config.exports.retentionHours);
    const format = formatOf(job.format);
    if (!format) throw new Error(`export ${job.id} has the format ${job.format}, which this release cannot serve`);
    const size = job.bytes;
    // The file of an export never changes once it has succeeded: its id and size name it.
    const etag = `"${job.id}-${size}"`;
    const headers: Record<string, string> = {
      'Accept-Ranges': 'bytes',
      ETag: etag,
      'Content-Type': format.contentType,
      'Content-Disposition': `attachment; filename="${job.id}.${format.extension}"`,
    };
    const range = byteRange(request.headers.range, request.headers['if-range'], etag, size);
    if (range.kind === 'unsatisfiable')
      return {
        status: 416,
        headers: { 'Accept-Ranges': 'bytes', 'Content-Range': `bytes */${size}` },
        body: { detail: `the range ${request.headers.range ?? ''} starts past the end of the file (${size} bytes)` },
      };
    const [status, start, end] = range.kind === 'range' ? [206, range.start, range.end] : [200, 0, size - 1];
    headers['Content-Length'] = String(end - start + 1);
    if (range.kind === 'range') headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    const head = request.incoming.method === 'HEAD';
    return { status, headers, body: head ? undefined : fileStream(knex, job.id, start, end) };
  };
}
