// Application operations: createApplication, listApplications, getApplication,
// updateApplication, deleteApplication.
import * as applications from '../accounts/applications.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { principalOf } from '../operations/request-state.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import { APPLICATION_ORDER, findActiveApplication, listApplications as listApplicationRows, type ApplicationFilter, type ApplicationRecord } from '../storage/accounts/applications.js';
import { toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];

function applicationBody(application: ApplicationRecord, defaultRetentionDays: number): Schemas['Application'] {
  return {
    id: application.id,
    organization_id: application.organization_id,
    name: application.name,
    region: application.region,
    pricing_plan: application.pricing_plan,
    retention_days: application.retention_days ?? defaultRetentionDays,
    indexed_attributes: application.indexed_attributes.paths,
    created_at: toIsoRequired(application.created_at),
    updated_at: toIsoRequired(application.updated_at),
  };
}

export function createApplication({ knex, config }: ServiceDeps): OperationHandler<operations['createApplication']> {
  return async (request) => {
    const input = request.body;
    const application = await applications.createApplication(knex, {
      organizationId: input.organization_id,
      name: input.name,
      region: input.region,
      pricingPlan: input.pricing_plan ?? 'free',
      retentionDays: input.retention_days,
      indexedAttributes: input.indexed_attributes,
    });
    return { status: 201, body: applicationBody(application, config.retention.defaultDays) };
  };
}

export function listApplications({ knex, config }: ServiceDeps): OperationHandler<operations['listApplications']> {
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
      data: found.items.map((item) => applicationBody(item, config.retention.defaultDays)),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function getApplication({ knex, config }: ServiceDeps): OperationHandler<operations['getApplication']> {
  return async (request) => {
    const application = await findActiveApplication(knex, request.params.app_id);
    if (!application) throw new NotFoundError(applications.APPLICATION_NOT_FOUND);
    return { status: 200, body: applicationBody(application, config.retention.defaultDays) };
  };
}

export function updateApplication({ knex }: ServiceDeps): OperationHandler<operations['updateApplication']> {
  return async (request) => {
    const { name, retention_days, indexed_attributes } = request.body;
    const updated = await applications.updateApplication(knex, request.params.app_id, { name, retentionDays: retention_days, indexedAttributes: indexed_attributes });
    const body: Schemas['ApplicationUpdated'] = { id: updated.id, name: updated.name, updated_at: toIsoRequired(updated.updated_at) };
    // A rename answers exactly as before these fields existed; a retention or index change echoes the value.
    if (retention_days !== undefined) body.retention_days = retention_days;
    if (indexed_attributes !== undefined) body.indexed_attributes = updated.indexed_attributes.paths;
    return { status: 200, body };
  };
}

export function deleteApplication({ knex }: ServiceDeps): OperationHandler<operations['deleteApplication']> {
  return async (request) => {
    const deleted = await applications.deleteApplication(knex, request.params.app_id);
    const body: Schemas['ApplicationDeleted'] = { id: deleted.id, message: 'Application deleted', deleted_at: toIsoRequired(deleted.deletedAt) };
    return { status: 200, body };
  };
}
