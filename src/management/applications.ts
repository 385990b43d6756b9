// Application operations: createApplication, listApplications, getApplication,
// updateApplication, deleteApplication. Every representation carries the daily span quota and
// today's state against it (./usage.ts).
import * as applications from '../accounts/applications.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { principalOf } from '../operations/request-state.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import {
  APPLICATION_ORDER,
  findActiveApplication,
  listApplications as listApplicationRows,
  type ApplicationFilter,
  type ApplicationRecord,
} from '../storage/accounts/applications.js';
import { toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';
import { quotaStates } from './usage.js';

type Schemas = components['schemas'];

function applicationBody(
  application: ApplicationRecord,
  defaultRetentionDays: number,
  quotaState: Schemas['ApplicationQuotaState'],
): Schemas['Application'] {
  return {
    id: application.id,
    organization_id: application.organization_id,
    name: application.name,
    region: application.region,
    pricing_plan: application.pricing_plan,
    retention_days: application.retention_days ?? defaultRetentionDays,
    indexed_attributes: application.indexed_attributes.paths,
    daily_span_quota: application.daily_span_quota,
    quota_state: quotaState,
    created_at: toIsoRequired(application.created_at),
    updated_at: toIsoRequired(application.updated_at),
  };
}

/** The applications' representations, with their quota states read in one statement. */
async function applicationBodies(deps: ServiceDeps, applications: ApplicationRecord[]): Promise<Array<Schemas['Application']>> {
  const states = await quotaStates(deps.knex, applications, (deps.clock ?? Date.now)());
  return applications.map((application) =>
    applicationBody(application, deps.config.retention.defaultDays, states.get(application.id) as Schemas['ApplicationQuotaState']),
  );
}

async function oneApplicationBody(deps: ServiceDeps, application: ApplicationRecord): Promise<Schemas['Application']> {
  const [body] = await applicationBodies(deps, [application]);
  return body as Schemas['Application'];
}

export function createApplication(deps: ServiceDeps): OperationHandler<operations['createApplication']> {
  const { knex } = deps;
  return async (request) => {
    const input = request.body;
    const application = await applications.createApplication(knex, {
      organizationId: input.organization_id,
      name: input.name,
      region: input.region,
      pricingPlan: input.pricing_plan ?? 'free',
      retentionDays: input.retention_days,
      indexedAttributes: input.indexed_attributes,
      dailySpanQuota: input.daily_span_quota,
    });
    return { status: 201, body: await oneApplicationBody(deps, application) };
  };
}

export function listApplications(deps: ServiceDeps): OperationHandler<operations['listApplications']> {
  const { knex } = deps;
  return async (request) => {
    const { query } = request;
    const principal = principalOf(request);
    const filter: ApplicationFilter = {
      // Users see their organizations' applications; an API key sees its own application only.
      ...(principal.kind === 'user' ? { memberUserId: principal.userId } : { applicationId: principal.applicationId }),
      organizationId: query.organization_id,
      region: query.region,
      pricingPlan: query.pricing_plan,
    };
    const page = pageRequest(request, APPLICATION_ORDER, [filter]);
    const found = await listApplicationRows(knex, filter, page);
    const body: Schemas['ApplicationList'] = {
      data: await applicationBodies(deps, found.items),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function getApplication(deps: ServiceDeps): OperationHandler<operations['getApplication']> {
  return async (request) => {
    const application = await findActiveApplication(deps.knex, request.params.app_id);
    if (!application) throw new NotFoundError(applications.APPLICATION_NOT_FOUND);
    return { status: 200, body: await oneApplicationBody(deps, application) };
  };
}

export function updateApplication({ knex }: ServiceDeps): OperationHandler<operations['updateApplication']> {
  return async (request) => {
    const { name, retention_days, indexed_attributes, daily_span_quota } = request.body;
    const updated = await applications.updateApplication(knex, request.params.app_id, {
      name,
      retentionDays: retention_days,
      indexedAttributes: indexed_attributes,
      dailySpanQuota: daily_span_quota,
    });
    const body: Schemas['ApplicationUpdated'] = { id: updated.id, name: updated.name, updated_at: toIsoRequired(updated.updated_at) };
    // A rename answers exactly as before these fields existed; a retention or index change echoes the value.
    if (retention_days !== undefined) body.retention_days = retention_days;
    if (indexed_attributes !== undefined) body.indexed_attributes = updated.indexed_attributes.paths;
    if (daily_span_quota !== undefined) body.daily_span_quota = updated.daily_span_quota;
    return { status: 200, body };
  };
}

export function deleteApplication({ knex }: ServiceDeps): OperationHandler<operations['deleteApplication']> {
  return async (request) => {
    const deleted = await applications.deleteApplication(knex, request.params.app_id);
    const body: Schemas['ApplicationDeleted'] = {
      id: deleted.id,
      message: 'Application deleted',
      deleted_at: toIsoRequired(deleted.deletedAt),
    };
    return { status: 200, body };
  };
}
