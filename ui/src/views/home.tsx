// /ui/: the organizations the user belongs to, their role in each and their applications, and a
// form to create an organization (docs/dashboard.md, "Organizations, members, applications and
// API keys").
import { useLocation } from 'preact-iso';
import { listOrganizationsWithApplications } from '../applications';
import { useAsync } from '../use-async';
import { OrganizationCreateForm } from '../components/organization-create-form';
import { RoleBadge } from '../components/role-badge';
import { formatIsoText } from '../time-format';
import { useTimeZone } from '../use-time-zone';
// The styles of every management view, this one and the lazily loaded organization and application
// views (whose own CSS imports would not be injected).

export function Home() {
  const { route } = useLocation();
  const organizations = useAsync(listOrganizationsWithApplications, []);
  const zone = useTimeZone();
  return (
    <section aria-labelledby="organizations-heading">
      <h1 id="organizations-heading">Organizations</h1>
      {organizations.error && (
        <p role="alert" class="error">
          Organizations could not be loaded: {organizations.error.message}
        </p>
      )}
      {!organizations.data && !organizations.error && <p aria-busy="true">Loading organizations…</p>}
      {organizations.data && organizations.data.length === 0 && (
        <p>You belong to no organization yet. Create one to add applications and API keys.</p>
      )}
      {organizations.data && organizations.data.length > 0 && (
        <table class="management-table">
          <caption class="visually-hidden">Your organizations</caption>
          <thead>
            <tr>
              <th scope="col">Organization</th>
              <th scope="col">Your role</th>
              <th scope="col">Applications</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {organizations.data.map(({ organization, applications }) => (
              <tr key={organization.id}>
                <td>
                  <a href={`/ui/organizations/${organization.id}`}>{organization.name}</a>
                </td>
                <td>
                  <RoleBadge role={organization.role} />
                </td>
                <td>
                  {applications.length === 0 ? (
                    <span class="muted">none</span>
                  ) : (
                    <ul class="inline-list">
                      {applications.map((application) => (
                        <li key={application.id}>
                          <a href={`/ui/applications/${application.id}`}>{application.name}</a>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td class="nowrap">{formatIsoText(organization.created_at, zone)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>New organization</h2>
      <p class="muted">You become its owner: you manage its members and settings.</p>
      <OrganizationCreateForm onCreated={(id) => route(`/ui/organizations/${id}`)} />
    </section>
  );
}
