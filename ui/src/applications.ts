// The applications the signed-in user can see, with their organizations: what the application
// picker offers and what the views' `app` query parameter names.
import { call, management } from './api';
import type { components } from '../../src/generated/management';

export type Organization = components['schemas']['Organization'];
export type Application = components['schemas']['Application'];

export interface OrganizationWithApplications {
  organization: Organization;
  applications: Application[];
}

/** Every page of a list, following `next_cursor` (lists hold at most 100 items a page). */
async function allPages<T>(
  first: () => Promise<{ data: T[]; next_cursor: string | null }>,
  next: (cursor: string) => Promise<{ data: T[]; next_cursor: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let page = await first();
  items.push(...page.data);
  while (page.next_cursor) {
    page = await next(page.next_cursor);
    items.push(...page.data);
  }
  return items;
}

export async function listOrganizations(): Promise<Organization[]> {
  return allPages(
    async () => {
      const page = await call(management.GET('/organizations', { params: { query: { limit: 100 } } }));
      return { data: page.organizations, next_cursor: page.next_cursor };
    },
    async (cursor) => {
      const page = await call(management.GET('/organizations', { params: { query: { limit: 100, cursor } } }));
      return { data: page.organizations, next_cursor: page.next_cursor };
    },
  );
}

export async function listApplications(organizationId: string): Promise<Application[]> {
  return allPages(
    () => call(management.GET('/applications', { params: { query: { organization_id: organizationId, limit: 100 } } })),
    (cursor) => call(management.GET('/applications', { params: { query: { organization_id: organizationId, limit: 100, cursor } } })),
  );
}

export async function listOrganizationsWithApplications(): Promise<OrganizationWithApplications[]> {
  const organizations = await listOrganizations();
  return Promise.all(organizations.map(async (organization) => ({ organization, applications: await listApplications(organization.id) })));
}
