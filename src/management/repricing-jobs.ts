// Re-pricing job operations: createRepricingJob, listRepricingJobs, getRepricingJob,
// cancelRepricingJob (openapi/management.yaml). The rules are in src/accounts/repricing-jobs.ts;
// the jobs are run by src/jobs/repricer.ts.
import * as repricing from '../accounts/repricing-jobs.js';
import { NotFoundError, RequestValidationError, type ValidationIssue } from '../errors.js';
import type { components, operations } from '../generated/management.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { rfc3339ToNanos } from '../request/time-window.js';
import {
  findRepricingJob,
  listRepricingJobs as listJobRows,
  REPRICING_JOB_ORDER,
  type RepricingJobRecord,
} from '../storage/repricing/repricing-jobs.js';
import { nanosToIso, toIso, toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];

// The span start times the service stores: OTLP's are unsigned, the columns signed 64-bit.
const EARLIEST_NS = 0n;
const LATEST_NS = 2n ** 63n - 1n;

/** The window of a creation, `[from, to)` in nanoseconds, with the rules the document cannot express. */
function repricingWindow(body: Schemas['RepricingJobCreate']): repricing.RepricingWindow {
  const issues: ValidationIssue[] = [];
  const bounded = (field: 'from' | 'to'): bigint => {
    const ns = rfc3339ToNanos(body[field]);
    if (ns < EARLIEST_NS || ns > LATEST_NS)
      issues.push({
        loc: ['body', field],
        msg: `must lie between ${nanosToIso(EARLIEST_NS)} and ${nanosToIso(LATEST_NS)}, the span start times the service stores`,
        type: 'value_error',
      });
    return ns;
  };
  const fromNs = bounded('from');
  const toNs = bounded('to');
  if (issues.length === 0 && toNs <= fromNs)
    issues.push({ loc: ['body', 'to'], msg: 'to must be after from (the window is [from, to))', type: 'value_error' });
  if (issues.length > 0) throw new RequestValidationError(issues);
  return { fromNs, toNs };
}

function jobBody(job: RepricingJobRecord): Schemas['RepricingJob'] {
  return {
    id: job.id,
    application_id: job.applicationId,
    from: nanosToIso(job.fromNs),
    to: nanosToIso(job.toNs),
    status: job.status,
    spans_examined: job.spansExamined,
    spans_repriced: job.spansRepriced,
    hours_done: job.hoursDone,
    hours_total: job.hoursTotal,
    created_at: toIsoRequired(job.createdAt),
    started_at: toIso(job.startedAt),
    finished_at: toIso(job.finishedAt),
    error: job.error,
  };
}

export function createRepricingJob({ knex }: ServiceDeps): OperationHandler<operations['createRepricingJob']> {
  return async (request) => {
    const applicationId = request.params.app_id;
    const job = await repricing.createRepricingJob(knex, applicationId, repricingWindow(request.body));
    const location = `/applications/${encodeURIComponent(applicationId)}/repricing-jobs/${job.id}`;
    return { status: 202, body: jobBody(job), headers: { Location: location } };
  };
}

export function listRepricingJobs({ knex }: ServiceDeps): OperationHandler<operations['listRepricingJobs']> {
  return async (request) => {
    const applicationId = request.params.app_id;
    const page = pageRequest(request, REPRICING_JOB_ORDER, [applicationId]);
    const found = await listJobRows(knex, applicationId, page);
    const body: Schemas['RepricingJobList'] = {
      data: found.items.map(jobBody),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function getRepricingJob({ knex }: ServiceDeps): OperationHandler<operations['getRepricingJob']> {
  return async (request) => {
    const job = await findRepricingJob(knex, request.params.app_id, request.params.job_id);
    if (!job) throw new NotFoundError(repricing.REPRICING_JOB_NOT_FOUND);
    return { status: 200, body: jobBody(job) };
  };
}

export function cancelRepricingJob({ knex }: ServiceDeps): OperationHandler<operations['cancelRepricingJob']> {
  return async (request) => {
    const job = await repricing.cancelRepricingJob(knex, request.params.app_id, request.params.job_id);
    return { status: 200, body: jobBody(job) };
  };
}
