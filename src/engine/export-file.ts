// An export's file: GET /engine/exports/{export_id}/file (downloadExport, with credentials),
// GET /engine/exports/{export_id}/download (downloadExportByLink, with a signed link's token
// instead), and POST /engine/exports/{export_id}/links (createExportLink), which makes that link.
// Both downloads stream a succeeded export's file from the database, whole or one byte range
// (src/exports/byte-ranges.ts), with a strong ETag; HEAD answers the same headers without
// opening the stream.
import type { Knex } from 'knex';
import type { operations } from '../generated/engine.js';
import { NotFoundError } from '../errors.js';
import type { BodyReply, OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { invalidToken } from '../auth/authenticate.js';
import { InvalidTokenError } from '../auth/tokens.js';
import { byteRange } from '../exports/byte-ranges.js';
import { fileType } from '../exports/compression.js';
import { fileStream } from '../exports/export-file.js';
import { asOf, downloadable, EXPORT_NOT_FOUND } from '../exports/export-jobs.js';
import { formatOf } from '../exports/formats/index.js';
import { activeApplication } from '../storage/accounts/resources.js';
import { findExportJob } from '../storage/exports/export-jobs.js';
import { toIsoRequired } from '../storage/time.js';

interface FileRequest {
  applicationId: string;
  exportId: string;
  range: string | undefined;
  ifRange: string | undefined;
  head: boolean;
}

/** What both downloads read of their request besides the export: the range asked for, and whether it is a HEAD. */
function rangeOf(request: { headers: { range?: string; 'if-range'?: string }; incoming: { method?: string } }) {
  return { range: request.headers.range, ifRange: request.headers['if-range'], head: request.incoming.method === 'HEAD' };
}

/** The reply to a download of the application's export: the file, a range of it, 416, or the 404/409/410 of its state. */
async function exportFileReply({ knex, config, clock = Date.now }: ServiceDeps, request: FileRequest): Promise<BodyReply> {
  const job = await succeededExport(knex, request.applicationId, request.exportId, clock(), config.exports.retentionHours);
  const format = formatOf(job.format);
  if (!format) throw new Error(`export ${job.id} has the format ${job.format}, which this release cannot serve`);
  const { contentType, extension } = fileType(format, job.compression);
  const size = job.bytes;
  // The file of an export never changes once it has succeeded: its id and size name it.
  const etag = `"${job.id}-${size}"`;
  const headers: Record<string, string> = {
    'Accept-Ranges': 'bytes',
    ETag: etag,
    'Content-Type': contentType,
    'Content-Disposition': `attachment; filename="${job.id}.${extension}"`,
  };
  const range = byteRange(request.range, request.ifRange, etag, size);
  if (range.kind === 'unsatisfiable')
    return {
      status: 416,
      headers: { 'Accept-Ranges': 'bytes', 'Content-Range': `bytes */${size}` },
      body: { detail: `the range ${request.range ?? ''} starts past the end of the file (${size} bytes)` },
    };
  const [status, start, end] = range.kind === 'range' ? [206, range.start, range.end] : [200, 0, size - 1];
  headers['Content-Length'] = String(end - start + 1);
  if (range.kind === 'range') headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
  return { status, headers, body: request.head ? undefined : fileStream(knex, job.id, start, end) };
}

async function succeededExport(knex: Knex, applicationId: string, exportId: string, now: number, retentionHours: number) {
  const stored = await findExportJob(knex, applicationId, exportId);
  if (!stored) throw new NotFoundError(EXPORT_NOT_FOUND);
  return downloadable(asOf(stored, now), retentionHours);
}

export function downloadExport(deps: ServiceDeps): OperationHandler<operations['downloadExport']> {
  return async (request) =>
    exportFileReply(deps, { applicationId: request.headers['x-vendor-app-id'], exportId: request.params.export_id, ...rangeOf(request) });
}

/** The seconds a link works when `expires_in` is not given (the document's default). */
const DEFAULT_LINK_SECONDS = 3600;

export function createExportLink(deps: ServiceDeps): OperationHandler<operations['createExportLink']> {
  const { knex, config, tokens, clock = Date.now } = deps;
  return async (request) => {
    const applicationId = request.headers['x-vendor-app-id'];
    const now = clock();
    const job = await succeededExport(knex, applicationId, request.params.export_id, now, config.exports.retentionHours);
    // JWT times are whole seconds: the answer says the second the token's `exp` names.
    const wanted = Math.floor(now / 1000) + (request.query.expires_in ?? DEFAULT_LINK_SECONDS);
    const expiresAtSeconds = job.expiresAt === null ? wanted : Math.min(wanted, Math.floor(job.expiresAt / 1000));
    const token = await tokens.signExportLink({ exportId: job.id, applicationId, expiresAtSeconds });
    return {
      status: 201,
      body: {
        export_id: job.id,
        download_path: `/engine/exports/${encodeURIComponent(job.id)}/download?token=${encodeURIComponent(token)}`,
        expires_at: toIsoRequired(expiresAtSeconds * 1000),
      },
    };
  };
}

export function downloadExportByLink(deps: ServiceDeps): OperationHandler<operations['downloadExportByLink']> {
  return async (request) => {
    let link;
    try {
      link = await deps.tokens.verifyExportLink(request.query.token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw invalidToken(error.reason, error.message);
      throw error;
    }
    // A link names one export: another id in the path is not what it was made for.
    if (link.exportId !== request.params.export_id) throw invalidToken('invalid_claims', 'the link was made for another export');
    if (!(await activeApplication(deps.knex, link.applicationId))) throw new NotFoundError(EXPORT_NOT_FOUND);
    return exportFileReply(deps, { applicationId: link.applicationId, exportId: link.exportId, ...rangeOf(request) });
  };
}
