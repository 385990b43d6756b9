// /ui/applications/:appId: one application. Its settings, deletion, links to its data, its spend
// per service, model, SKU, provider, resource type or indexed attribute (SpendOverview, the view in the URL), its usage
// and daily span quota state, and its API keys; a new or rotated secret is shown once, above the keys (KeySecretPanel), and is held only
// in this view's state: leaving or reloading forgets it.
import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { call, management } from '../api';
import { useAsync } from '../use-async';
import { ActionError } from '../components/action-error';
import { ApiKeyTable } from '../components/api-key-table';
import { ApplicationLinks } from '../components/application-links';
import { ApplicationSettingsForm } from '../components/application-settings-form';
import { ApplicationUsage, QuotaState } from '../components/application-usage';
import { ConfirmButton } from '../components/confirm-button';
import { KeySecretPanel, type RevealedSecret } from '../components/key-secret-panel';
import { SpendOverview } from '../components/spend-overview';
import type { SpendGroupBy } from '../spend';
import { useAction } from '../components/use-action';
import { LoadFailure } from '../components/load-failure';
import { formatIsoText } from '../time-format';
import { useTimeZone } from '../use-time-zone';
// Its styles, ui/src/views/management.css, come with the first view (imported by ui/src/views/home.tsx):
// a lazily loaded view's own CSS import would not be injected.

async function loadApplication(appId: string) {
  const application = await call(management.GET('/applications/{app_id}', { params: { path: { app_id: appId } } }));
  const organization = await call(management.GET('/organizations/{org_id}', { params: { path: { org_id: application.organization_id } } }));
  return { application, organization };
}

const APPLICATION_SPEND_DIMENSIONS: SpendGroupBy[] = ['service', 'model', 'sku', 'provider', 'resource_type'];

export function ApplicationView() {
  const { appId } = useRoute().params;
  const { route } = useLocation();
  const loaded = useAsync(() => loadApplication(appId), [appId]);
  const [secret, setSecret] = useState<RevealedSecret>();
  const deletion = useAction();
  const zone = useTimeZone();

  if (loaded.error) {
    return <LoadFailure title="Application" what="application" message={loaded.error.message} />;
  }
  if (!loaded.data) return <p aria-busy="true">Loading the application…</p>;
  const { application, organization } = loaded.data;
  const remove = async () => {
    if (await deletion.run(() => call(management.DELETE('/applications/{app_id}', { params: { path: { app_id: application.id } } }))))
      route(`/ui/organizations/${organization.id}`);
  };

  return (
    <section aria-labelledby="application-heading">
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/ui/">Organizations</a> <span aria-hidden="true">›</span>{' '}
        <a href={`/ui/organizations/${organization.id}`}>{organization.name}</a> <span aria-hidden="true">›</span>{' '}
        <span aria-current="page">{application.name}</span>
      </nav>
      <h1 id="application-heading">{application.name}</h1>
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{application.id}</code>
        </dd>
        <dt>Region</dt>
        <dd>{application.region}</dd>
        <dt>Pricing plan</dt>
        <dd>{application.pricing_plan}</dd>
        <dt>Created</dt>
        <dd>{formatIsoText(application.created_at, zone)}</dd>
        <dt>Daily span quota</dt>
        <dd>
          <QuotaState application={application} />
        </dd>
        <dt>Data</dt>
        <dd>
          <ApplicationLinks applicationId={application.id} name={application.name} />
        </dd>
      </dl>

      <h2>Spend</h2>
      <SpendOverview
        organizationId={organization.id}
        applicationId={application.id}
        dimensions={APPLICATION_SPEND_DIMENSIONS}
        attributes={application.indexed_attributes}
      />

      <h2>Usage</h2>
      <ApplicationUsage application={application} />

      <h2>API keys</h2>
      {secret && <KeySecretPanel key={`${secret.apiKey}:${secret.apiSecret}`} secret={secret} onDismiss={() => setSecret(undefined)} />}
      <ApiKeyTable
        applicationId={application.id}
        onSecret={setSecret}
        onDeleted={(apiKey) => {
          if (secret?.apiKey === apiKey) setSecret(undefined);
        }}
      />

      <h2>Settings</h2>
      <p class="muted">Region and pricing plan are fixed at creation.</p>
      <ApplicationSettingsForm application={application} onSaved={loaded.reload} />

      <h2>Delete the application</h2>
      <p class="muted">Its API keys are deleted with it and its spans can no longer be read.</p>
      <ConfirmButton
        label="Delete application"
        question={`Delete ${application.name} for good?`}
        confirmLabel="Yes, delete the application"
        busy={deletion.busy}
        onConfirm={remove}
      />
      <ActionError error={deletion.error} context="The application was not deleted" />
    </section>
  );
}
