// /ui/organizations/:orgId: one organization. Its members and applications, its spend per
// application (SpendOverview: period, date and currency in the URL), and the way to its prices page (/ui/organizations/:orgId/prices), for everyone in it; for an owner also its details form, the member controls, the audit log and deletion (the
// owner-only operations of openapi/management.yaml). A member is not shown what the service would refuse.
import { useLocation, useRoute } from 'preact-iso';
import { call, management } from '../api';
import { useAsync } from '../use-async';
import { mayManageOrganization } from '../management';
import { ActionError } from '../components/action-error';
import { ApplicationTable } from '../components/application-table';
import { AuditLog } from '../components/audit-log';
import { ConfirmButton } from '../components/confirm-button';
import { MemberTable } from '../components/member-table';
import { OrganizationSettingsForm } from '../components/organization-settings-form';
import { RoleBadge } from '../components/role-badge';
import { SpendOverview } from '../components/spend-overview';
import { useAction } from '../components/use-action';
import { LoadFailure } from '../components/load-failure';
import { formatIsoText } from '../time-format';
import { useTimeZone } from '../use-time-zone';
// Its styles, ui/src/views/management.css, come with the first view (imported by ui/src/views/home.tsx):
// a lazily loaded view's own CSS import would not be injected.

const ORGANIZATION_SPEND_DIMENSIONS = ['application' as const];

export function OrganizationView() {
  const { orgId } = useRoute().params;
  const { route } = useLocation();
  const organization = useAsync(() => call(management.GET('/organizations/{org_id}', { params: { path: { org_id: orgId } } })), [orgId]);
  const user = useAsync(() => call(management.GET('/users/me')), []);
  const deletion = useAction();
  const zone = useTimeZone();

  if (organization.error) {
    return <LoadFailure title="Organization" what="organization" message={organization.error.message} />;
  }
  if (!organization.data) return <p aria-busy="true">Loading the organization…</p>;
  const org = organization.data;
  const owner = mayManageOrganization(org.role);
  const remove = async () => {
    if (await deletion.run(() => call(management.DELETE('/organizations/{org_id}', { params: { path: { org_id: org.id } } }))))
      route('/ui/');
  };

  return (
    <section aria-labelledby="organization-heading">
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/ui/">Organizations</a> <span aria-hidden="true">›</span> <span aria-current="page">{org.name}</span>
      </nav>
      <h1 id="organization-heading">
        {org.name} <RoleBadge role={org.role} />
      </h1>
      <p class="muted">
        <code>{org.id}</code>, created {formatIsoText(org.created_at, zone)}
      </p>

      <h2>Applications</h2>
      <ApplicationTable organizationId={org.id} />

      <h2>Spend</h2>
      <SpendOverview organizationId={org.id} dimensions={ORGANIZATION_SPEND_DIMENSIONS} />

      <h2>Prices</h2>
      <p>
        <a href={`/ui/organizations/${org.id}/prices`}>Prices of LLM calls</a>
        <span class="muted">
          : the effective price of a model, the organization's price entries{owner ? ' (to edit)' : ''}, and the calls left unpriced.
        </span>
      </p>

      <h2>Members</h2>
      <MemberTable organizationId={org.id} mayManage={owner} currentUserId={user.data?.id} />

      {owner && (
        <>
          <h2>Organization details</h2>
          <OrganizationSettingsForm organization={org} onSaved={organization.reload} />

          <h2>Audit log</h2>
          <p class="muted">Every change made in this organization, newest first: who, when, and what changed.</p>
          <AuditLog organizationId={org.id} currentUserId={user.data?.id} />

          <h2>Delete the organization</h2>
          <p class="muted">An organization can be deleted once it has no applications left.</p>
          <ConfirmButton
            label="Delete organization"
            question={`Delete ${org.name} for good?`}
            confirmLabel="Yes, delete the organization"
            busy={deletion.busy}
            onConfirm={remove}
          />
          <ActionError error={deletion.error} context="The organization was not deleted" />
        </>
      )}
    </section>
  );
}
