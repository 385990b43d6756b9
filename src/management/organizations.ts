// Organization operations: createOrganization, listOrganizations, getOrganization,
// updateOrganization, deleteOrganization.
import type { Context as KoaContext } from 'koa';
import type { Context as OpenApiContext } from 'openapi-backend';
import * as organizations from '../accounts/organizations.js';
import type { Reply } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { principalOf } from '../operations/request-state.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import { findActiveOrganization, listOrganizationsOfUser, type OrganizationRecord } from '../storage/accounts/organizations.js';
import type { Page } from '../storage/paging.js';
import { slicePage } from '../storage/paging.js';
import { toIsoRequired } from '../storage/time.js';
import { callingUser, pageRequest, pagination, requestScope } from './request.js';

type Schemas = components['schemas'];
type Role = Schemas['Role'];

export function organizationBody(organization: OrganizationRecord, role: Role): Schemas['Organization'] {
  return {
    id: organization.id,
    name: organization.name,
    role,
    created_at: toIsoRequired(organization.created_at),
    updated_at: toIsoRequired(organization.updated_at),
    contract_email: organization.contract_email,
    tax_id: organization.tax_id,
    address: organization.address,
    billing_address: organization.billing_address,
  };
}

function orgIdOf(request: OpenApiContext): string {
  return (request.request.params as { org_id: string }).org_id;
}

export function createOrganization({ knex }: ServiceDeps) {
  return async (request: OpenApiContext, ctx: KoaContext): Promise<Reply> => {
    const { name } = request.request.requestBody as Schemas['OrganizationCreate'];
    const organization = await organizations.createOrganization(knex, callingUser(ctx).userId, name);
    const body: Schemas['OrganizationCreated'] = { id: organization.id, role: 'owner', created_at: toIsoRequired(organization.created_at) };
    return { status: 201, body };
  };
}

export function listOrganizations({ knex }: ServiceDeps) {
  return async (request: OpenApiContext, ctx: KoaContext): Promise<Reply> => {
    const page = pageRequest(request.request.query as operations['listOrganizations']['parameters']['query']);
    const principal = principalOf(ctx);
    let found: Page<OrganizationRecord & { role: Role }>;
    if (principal.kind === 'user') {
      found = await listOrganizationsOfUser(knex, principal.userId, page.window);
    } else {
      // An API key sees its own application's organization, as a member.
      const own = await findActiveOrganization(knex, principal.organizationId);
      const all = own ? [{ ...own, role: 'member' as const }] : [];
      found = { items: slicePage(all, page.window), total: all.length };
    }
    const body: Schemas['OrganizationList'] = {
      organizations: found.items.map((organization) => organizationBody(organization, organization.role)),
      pagination: pagination(page, found.total),
    };
    return { status: 200, body };
  };
}

export function getOrganization({ knex }: ServiceDeps) {
  return async (request: OpenApiContext, ctx: KoaContext): Promise<Reply> => {
    const organization = await findActiveOrganization(knex, orgIdOf(request));
    if (!organization) throw new NotFoundError(organizations.ORGANIZATION_NOT_FOUND);
    // API keys have no role of their own; they read their organization as a member would.
    return { status: 200, body: organizationBody(organization, requestScope(ctx).role ?? 'member') };
  };
}

export function updateOrganization({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const patch = request.request.requestBody as Schemas['OrganizationUpdate'];
    const updated = await organizations.updateOrganization(knex, orgIdOf(request), patch);
    const body: Schemas['OrganizationUpdated'] = { id: updated.id, updated_at: toIsoRequired(updated.updatedAt) };
    return { status: 200, body };
  };
}

export function deleteOrganization({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const deleted = await organizations.deleteOrganization(knex, orgIdOf(request));
    const body: Schemas['OrganizationDeleted'] = { id: deleted.id, message: 'Organization deleted', deleted_at: toIsoRequired(deleted.deletedAt) };
    return { status: 200, body };
  };
}
