// Creates an organization (any signed-in user may; the creator becomes its owner) and hands its id
// to the caller, which opens it.
import { useState } from 'preact/hooks';
import { call, management } from '../api';
import { ActionError } from './action-error';
import { useAction } from './use-action';

export function OrganizationCreateForm({ onCreated }: { onCreated(organizationId: string): void }) {
  const [name, setName] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    let id = '';
    const done = await action.run(async () => {
      id = (await call(management.POST('/organizations', { body: { name: name.trim() } }))).id;
    });
    if (done) onCreated(id);
  };
  return (
    <form class="inline-form" onSubmit={submit} aria-label="Create an organization">
      <label>
        Name
        <input required maxLength={255} value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" class="primary" disabled={action.busy}>
        Create organization
      </button>
      <ActionError error={action.error} context="The organization was not created" />
    </form>
  );
}
