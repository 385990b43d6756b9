// The export jobs' operations (openapi/engine.yaml, tag Exports): createExport, listExports,
// getExport and cancelExport. The query is checked as POST /engine/query and POST /traces check
// theirs (engineRequest: the same 422s, at the same places); the rules are in
// src/exports/export-jobs.ts and the jobs are run by src/jobs/exporter.ts.
import type { components, operations } from '../generated/engine.js';
import { NotFoundError, RequestValidationError, type ValidationIssue } from '../errors.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { columnIssues } from '../exports/columns.js';
import { asOf, cancelExport as cancelJob, createExport as createJob, EXPORT_NOT_FOUND } from '../exports/export-jobs.js';
import { formatOf } from '../exports/formats/index.js';
import { EXPORT_JOB_ORDER, findExportJob, listExportJobs, type ExportJobRecord } from '../storage/exports/export-jobs.js';
import { pageWindow } from '../storage/paging.js';
import { nanosToIso, toIso, toIsoRequired } from '../storage/time.js';
import { engineRequest, requiredWindow, type EngineRequest } from './engine-request.js';
import { listPosition, nextCursor } from './list-cursor.js';

type Schemas = components['schemas'];

/** The path of an export (the 202's Location) and of its file. */
const exportPath = (id: string) => `/engine/exports/${id}`;

/** A job as the document shows it at `now` (a result past its expiry shows `expired`). */
export function exportJobBody(stored: ExportJobRecord, now: number): Schemas['ExportJob'] {
  const job = asOf(stored, now);
  const hasFile = job.state === 'succeeded' || job.state === 'expired';
  return {
    id: job.id,
    application_id: job.applicationId,
    state: job.state,
    grain: job.grain,
    format: job.format,
    compression: job.compression,
    columns: job.columns,
    filter: job.filter === null ? null : (JSON.parse(job.filter) as Schemas['FilterNode']),
    search_child_spans: job.searchChildSpans,
    start_time: nanosToIso(job.startNs),
    end_time: nanosToIso(job.endNs),
    snapshot_time: toIsoRequired(job.createdAt),
    created_at: toIsoRequired(job.createdAt),
    started_at: toIso(job.startedAt),
    finished_at: toIso(job.finishedAt),
    expires_at: toIso(job.expiresAt),
    progress: { rows: job.rows, bytes: job.bytes },
    error: job.error && { code: job.error.code as Schemas['ExportError']['code'], message: job.error.message },
    download_path: hasFile ? `${exportPath(job.id)}/file` : null,
  };
}

/** The application the request names; authorization has resolved its organization. */
function organizationOf(request: { operationId: string; scope?: { organizationId: string } }): string {
  if (!request.scope) throw new Error(`operation ${request.operationId} ran without an authorization scope`);
  return request.scope.organizationId;
}

export function createExport({ knex, config, clock = Date.now }: ServiceDeps): OperationHandler<operations['createExport']> {
  return async (request) => {
    const body = request.body ?? {};
    const grain = body.grain ?? 'spans';
    const format = body.format ?? 'ndjson';
    const issues: ValidationIssue[] = [];
    let parsed: EngineRequest | undefined;
    try {
      parsed = engineRequest({ ...request, body: { filter: body.filter } }, grain === 'traces' ? 'traces' : 'spans');
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      issues.push(...error.issues);
    }
    issues.push(...columnIssues(grain, body.columns));
    if (grain === 'spans' && body.search_child_spans === true)
      issues.push({
        loc: ['body', 'search_child_spans'],
        msg: 'search_child_spans chooses which spans of a trace the filter tests: it needs grain traces',
        type: 'value_error',
      });
    if (!formatOf(format)) issues.push({ loc: ['body', 'format'], msg: `${format} is not available yet`, type: 'value_error' });
    const compression = request.query.compression ?? 'none';
    if (compression !== 'none' && format === 'parquet')
      issues.push({
        loc: ['query', 'compression'],
        msg: 'a Parquet file compresses its own column chunks: compression applies to ndjson and csv',
        type: 'value_error',
      });
    if (issues.length > 0 || !parsed) throw new RequestValidationError(issues);
    const window = requiredWindow(parsed);
    const now = clock();
    const job = await createJob(
      knex,
      {
        applicationId: parsed.applicationId,
        organizationId: organizationOf(request),
        startNs: window.startNs,
        endNs: window.endNs,
        filter: body.filter === undefined || body.filter === null ? null : JSON.stringify(body.filter),
        grain,
        format,
        compression,
        columns: body.columns ?? null,
        searchChildSpans: grain === 'traces' && body.search_child_spans === true,
      },
      config.exports,
      now,
    );
    return { status: 202, body: exportJobBody(job, now), headers: { Location: exportPath(job.id) } };
  };
}

export function listExports({ knex, clock = Date.now }: ServiceDeps): OperationHandler<operations['listExports']> {
  return async (request) => {
    const applicationId = request.headers['x-vendor-app-id'];
    const page = request.query.page ?? 1;
    const limit = request.query.limit ?? 20;
    const position = listPosition(request, 'listExports', [applicationId], EXPORT_JOB_ORDER, { page, limit });
    const { page: readPage, after } = position.request;
    const found = await listExportJobs(knex, applicationId, { limit, window: pageWindow(readPage, limit), ...(after ? { after } : {}) });
    const now = clock();
    const answer: Schemas['ExportJobList'] = {
      data: found.items.map((job) => exportJobBody(job, now)),
      pagination: { page: readPage, limit, total: found.total },
      next_cursor: nextCursor(position, found.nextKey),
    };
    return { status: 200, body: answer };
  };
}

export function getExport({ knex, clock = Date.now }: ServiceDeps): OperationHandler<operations['getExport']> {
  return async (request) => {
    const job = await findExportJob(knex, request.headers['x-vendor-app-id'], request.params.export_id);
    if (!job) throw new NotFoundError(EXPORT_NOT_FOUND);
    return { status: 200, body: exportJobBody(job, clock()) };
  };
}

export function cancelExport({ knex, clock = Date.now }: ServiceDeps): OperationHandler<operations['cancelExport']> {
  return async (request) => {
    const now = clock();
    const job = await cancelJob(knex, request.headers['x-vendor-app-id'], request.params.export_id, now);
    return { status: 200, body: exportJobBody(job, now) };
  };
}
