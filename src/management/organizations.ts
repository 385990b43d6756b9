// Organization operations: createOrganization, listOrganizations, getOrganization,
// updateOrganization, deleteOrganization.
import * as organizations from '../accounts/organizations.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { principalOf } from '../operations/request-state.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import {
  findActiveOrganization,
  listOrganizationsOfUser,
  ORGANIZATION_ORDER,
  type OrganizationRecord,
} from '../storage/accounts/organizations.js';
import type { ListPage } from '../storage/paging.js';
import { slicePage } from '../storage/paging.js';
import { toIsoRequired } from '../storage/time.js';
import { callingUser, nextCursor, pageRequest, pagination, requestScope } from './request.js';

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

export function createOrganization({ knex }: ServiceDeps): OperationHandler<operations['createOrganization']> {
  return async (request) => {
    const { name } = request.body;
    const organization = await organizations.createOrganization(knex, callingUser(request).userId, name);
    const body: Schemas['OrganizationCreated'] = { id: organization.id, role: 'owner', created_at: toIsoRequired(organization.created_at) };
    return { status: 201, body };
  };
}

export function listOrganizations({ knex }: ServiceDeps): OperationHandler<operations['listOrganizations']> {
  return async (request) => {
    const principal = principalOf(request);
    const page = pageRequest(request, ORGANIZATION_ORDER, [
      principal.kind === 'user' ? ['user', principal.userId] : ['api_key', principal.organizationId],
    ]);
    let found: ListPage<OrganizationRecord & { role: Role }>;
    if (principal.kind === 'user') {
      found = await listOrganizationsOfUser(knex, principal.userId, page);
    } else {
      // An API key sees its own application's organization, as a member: one page at most.
      const own = await findActiveOrganization(knex, principal.organizationId);
      const all = own ? [{ ...own, role: 'member' as const }] : [];
      found = { items: page.after ? [] : slicePage(all, page.window), total: all.length, nextKey: null };
    }
    const body: Schemas['OrganizationList'] = {
      organizations: found.items.map((organization) => organizationBody(organization, organization.role)),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function getOrganization({ knex }: ServiceDeps): OperationHandler<operations['getOrganization']> {
  return async (request) => {
    const organization = await findActiveOrganization(knex, request.params.org_id);
    if (!organization) throw new NotFoundError(organizations.ORGANIZATION_NOT_FOUND);
    // API keys have no role of their own; they read their organization as a member would.
    return { status: 200, body: organizationBody(organization, requestScope(request).role ?? 'member') };
  };
}

export function updateOrganization({ knex }: ServiceDeps): OperationHandler<operations['updateOrganization']> {
  return async (request) => {
    const updated = await organizations.updateOrganization(knex, request.params.org_id, request.body);
    const body: Schemas['OrganizationUpdated'] = { id: updated.id, updated_at: toIsoRequired(updated.updatedAt) };
    return { status: 200, body };
  };
}

export function deleteOrganization({ knex }: ServiceDeps): OperationHandler<operations['deleteOrganization']> {
  return async (request) => {
    const deleted = await organizations.deleteOrganization(knex, request.params.org_id);
    const body: Schemas['OrganizationDeleted'] = {
      id: deleted.id,
      message: 'Organization deleted',
      deleted_at: toIsoRequired(deleted.deletedAt),
    };
    return { status: 200, body };
  };
}
