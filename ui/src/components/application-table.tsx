// The organization's applications, each linking to its settings and keys and to its data, and a
// form to create one (members and owners alike may: createApplication is `x-organization-role:
// member`). Region and pricing plan are chosen here for good: they cannot change afterwards.
import { useState } from 'preact/hooks';
import { call, management } from '../api';
import { listApplications } from '../applications';
import { PRICING_PLANS, REGIONS, type PricingPlan, type Region } from '../management';
import { useAsync } from '../use-async';
import { ActionError } from './action-error';
import { ApplicationLinks } from './application-links';
import { useAction } from './use-action';

function ApplicationCreateForm({ organizationId, onCreated }: { organizationId: string; onCreated(): void }) {
  const [name, setName] = useState('');
  const [region, setRegion] = useState<Region>('US');
  const [plan, setPlan] = useState<PricingPlan>('free');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (
      await action.run(() =>
        call(
          management.POST('/applications', { body: { organization_id: organizationId, name: name.trim(), region, pricing_plan: plan } }),
        ),
      )
    ) {
      setName('');
      onCreated();
    }
  };
  return (
    <form class="inline-form" onSubmit={submit} aria-label="Create an application">
      <label>
        Name
        <input required maxLength={255} value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
      </label>
      <label>
        Region
        <select value={region} onChange={(event) => setRegion((event.target as HTMLSelectElement).value as Region)}>
          {REGIONS.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <label>
        Pricing plan
        <select value={plan} onChange={(event) => setPlan((event.target as HTMLSelectElement).value as PricingPlan)}>
          {PRICING_PLANS.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="primary" disabled={action.busy}>
        Create application
      </button>
      <ActionError error={action.error} context="The application was not created" />
    </form>
  );
}

export function ApplicationTable({ organizationId }: { organizationId: string }) {
  const applications = useAsync(() => listApplications(organizationId), [organizationId]);
  return (
    <>
      {applications.error && (
        <p role="alert" class="error">
          Applications could not be loaded: {applications.error.message}
        </p>
      )}
      {!applications.data && !applications.error && <p aria-busy="true">Loading applications…</p>}
      {applications.data && applications.data.length === 0 && <p>No application yet.</p>}
      {applications.data && applications.data.length > 0 && (
        <table class="management-table" data-testid="applications">
          <caption class="visually-hidden">Applications</caption>
          <thead>
            <tr>
              <th scope="col">Application</th>
              <th scope="col">Region</th>
              <th scope="col">Pricing plan</th>
              <th scope="col" class="number">
                Retention (days)
              </th>
              <th scope="col">Data</th>
            </tr>
          </thead>
          <tbody>
            {applications.data.map((application) => (
              <tr key={application.id}>
                <td>
                  <a href={`/ui/applications/${application.id}`}>{application.name}</a>
                </td>
                <td>{application.region}</td>
                <td>{application.pricing_plan}</td>
                <td class="number">{application.retention_days}</td>
                <td>
                  <ApplicationLinks applicationId={application.id} name={application.name} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ApplicationCreateForm organizationId={organizationId} onCreated={applications.reload} />
    </>
  );
}
