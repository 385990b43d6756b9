// An owner edits the organization: its name, contract e-mail, tax id, address and billing
// address (what updateOrganization allows). Only the fields changed are sent.
import { useState } from 'preact/hooks';
import { call, management } from '../api';
import type { Organization } from '../applications';
import type { components } from '../../../src/generated/management';
import { ActionError } from './action-error';
import { useAction } from './use-action';

type Address = components['schemas']['Address'];
type OrganizationUpdate = components['schemas']['OrganizationUpdate'];

const ADDRESS_FIELDS: Array<[keyof Address, string]> = [
  ['street', 'Street'],
  ['city', 'City'],
  ['state', 'State'],
  ['postal_code', 'Postal code'],
  ['country', 'Country'],
];

interface Draft {
  name: string;
  contract_email: string;
  tax_id: string;
  address: Address;
  billing_address: Address;
}

function draftOf(organization: Organization): Draft {
  const { name, contract_email, tax_id, address, billing_address } = organization;
  return { name, contract_email, tax_id, address: { ...address }, billing_address: { ...billing_address } };
}

/** The update to send: the fields that differ from the organization as loaded (addresses field by field). */
function changes(before: Draft, after: Draft): OrganizationUpdate {
  const update: OrganizationUpdate = {};
  if (after.name !== before.name) update.name = after.name;
  if (after.contract_email !== before.contract_email) update.contract_email = after.contract_email;
  if (after.tax_id !== before.tax_id) update.tax_id = after.tax_id;
  for (const which of ['address', 'billing_address'] as const) {
    const changed = ADDRESS_FIELDS.filter(([field]) => after[which][field] !== before[which][field]);
    if (changed.length) update[which] = Object.fromEntries(changed.map(([field]) => [field, after[which][field]]));
  }
  return update;
}

function AddressFields({ legend, value, onChange }: { legend: string; value: Address; onChange(next: Address): void }) {
  return (
    <fieldset class="form-grid">
      <legend>{legend}</legend>
      {ADDRESS_FIELDS.map(([field, label]) => (
        <label key={field}>
          {label}
          <input
            maxLength={255}
            value={value[field]}
            onInput={(event) => onChange({ ...value, [field]: (event.target as HTMLInputElement).value })}
          />
        </label>
      ))}
    </fieldset>
  );
}

export function OrganizationSettingsForm({ organization, onSaved }: { organization: Organization; onSaved(): void }) {
  const [draft, setDraft] = useState(() => draftOf(organization));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const set = (patch: Partial<Draft>) => {
    setSaved(false);
    setDraft({ ...draft, ...patch });
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const update = changes(draftOf(organization), draft);
    if (Object.keys(update).length === 0) return setSaved(true);
    if (
      await action.run(() =>
        call(management.PATCH('/organizations/{org_id}', { params: { path: { org_id: organization.id } }, body: update })),
      )
    ) {
      setSaved(true);
      onSaved();
    }
  };
  return (
    <form class="settings-form" onSubmit={submit} aria-label="Organization details">
      <div class="form-grid">
        <label>
          Name
          <input required maxLength={255} value={draft.name} onInput={(event) => set({ name: (event.target as HTMLInputElement).value })} />
        </label>
        <label>
          Contract e-mail
          <input
            maxLength={255}
            value={draft.contract_email}
            onInput={(event) => set({ contract_email: (event.target as HTMLInputElement).value })}
          />
        </label>
        <label>
          Tax id
          <input maxLength={50} value={draft.tax_id} onInput={(event) => set({ tax_id: (event.target as HTMLInputElement).value })} />
        </label>
      </div>
      <AddressFields legend="Address" value={draft.address} onChange={(address) => set({ address })} />
      <AddressFields legend="Billing address" value={draft.billing_address} onChange={(billing_address) => set({ billing_address })} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Save organization
        </button>
        <span role="status" class="ok">
          {saved && !action.error ? 'Saved' : ''}
        </span>
      </div>
      <ActionError error={action.error} context="The organization was not saved" />
    </form>
  );
}
