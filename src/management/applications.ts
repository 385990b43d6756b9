// Application operations: createApplication, listApplications, getApplication,
// updateApplication, deleteApplication.
import type { Context as KoaContext } from 'koa';
import type { Context as OpenApiContext } from 'openapi-backend';
import * as applications from '../accounts/applications.js';
import type { Reply } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { principalOf } from '../operations/request-state.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import { findActiveApplication, listApplications as listApplicationRows, type ApplicationFilter, type ApplicationRecord } from '../storage/accounts/applications.js';
import { toIsoRequired } from '../storage/time.js';
import { pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];

function applicationBody(application: ApplicationRecord, defaultRetentionDays: number): Schemas['Application'] {
  return {
    id: application.id,
    organization_id: application.organization_id,
    name: application.name,
    region: application.region,
    pricing_plan: application.pricing_plan,
    retention_days: application.retention_days ?? defaultRetentionDays,
    created_at: toIsoRequired(application.created_at),
    updated_at: toIsoRequired(application.updated_at),
  };
}

function appIdOf(request: OpenApiContext): string {
  return (request.request.params as { app_id: string }).app_id;
}

export function createApplication({ knex, config }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const input = request.request.requestBody as Schemas['ApplicationCreate'];
    const application = await applications.createApplication(knex, {
      organizationId: input.organization_id,
      name: input.name,
      region: input.region,
      pricingPlan: input.pricing_plan ?? 'free',
      retentionDays: input.retention_days,
    });
    return { status: 201, body: applicationBody(application, config.retention.defaultDays) };
  };
}

export function listApplications({ knex, config }: ServiceDeps) {
  return async (request: OpenApiContext, ctx: KoaContext): Promise<Reply> => {
    const query = (request.request.query ?? {}) as NonNullable<operations['listApplications']['parameters']['query']>;
    const page = pageRequest(query);
    const principal = principalOf(ctx);
    const filter: ApplicationFilter = {
      // Users see their organizations' applications; an API key sees its own application only.
      ...(principal.kind === 'user' ? { memberUserId: principal.userId } : { applicationId: principal.applicationId }),
      organizationId: query.organization_id,
      region: query.region,
      pricingPlan: query.pricing_plan,
    };
    const found = await listApplicationRows(knex, filter, page.window);
    const body: Schemas['ApplicationList'] = { data: found.items.map((item) => applicationBody(item, config.retention.defaultDays)), pagination: pagination(page, found.total) };
    return { status: 200, body };
  };
}

export function getApplication({ knex, config }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const application = await findActiveApplication(knex, appIdOf(request));
    if (!application) throw new NotFoundError(applications.APPLICATION_NOT_FOUND);
    return { status: 200, body: applicationBody(application, config.retention.defaultDays) };
  };
}

export function updateApplication({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const { name, retention_days } = request.request.requestBody as Schemas['ApplicationUpdate'];
    const updated = await applications.updateApplication(knex, appIdOf(request), {
      ...(name !== undefined && { name }),
      ...(retention_days !== undefined && { retention_days }),
    });
    const body: Schemas['ApplicationUpdated'] = { id: updated.id, name: updated.name, updated_at: toIsoRequired(updated.updated_at) };
    // A rename answers exactly as before this field existed; a retention change echoes the value.
    if (retention_days !== undefined) body.retention_days = retention_days;
    return { status: 200, body };
  };
}

export function deleteApplication({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const deleted = await applications.deleteApplication(knex, appIdOf(request));
    const body: Schemas['ApplicationDeleted'] = { id: deleted.id, message: 'Application deleted', deleted_at: toIsoRequired(deleted.deletedAt) };
    return { status: 200, body };
  };
}
