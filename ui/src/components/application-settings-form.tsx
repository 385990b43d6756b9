// The application's mutable settings (updateApplication): its name, how many days its spans are
// kept, its daily span quota (empty: none), and up to 3 indexed attribute paths. Only the fields changed are sent; region and pricing
// plan are fixed at creation and shown, not offered.
import { useState } from 'preact/hooks';
import { call, management } from '../api';
import type { Application } from '../applications';
import type { components } from '../../../src/generated/management';
import { ActionError } from './action-error';
import { useAction } from './use-action';

type ApplicationUpdate = components['schemas']['ApplicationUpdate'];
const INDEXED_SLOTS = 3;

function paddedSlots(paths: string[]): string[] {
  return [...paths, ...Array<string>(INDEXED_SLOTS).fill('')].slice(0, INDEXED_SLOTS);
}

export function ApplicationSettingsForm({ application, onSaved }: { application: Application; onSaved(): void }) {
  const [name, setName] = useState(application.name);
  const [retention, setRetention] = useState(String(application.retention_days));
  const [quota, setQuota] = useState(application.daily_span_quota === null ? '' : String(application.daily_span_quota));
  const [indexed, setIndexed] = useState(() => paddedSlots(application.indexed_attributes));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const update: ApplicationUpdate = {};
    if (name.trim() !== application.name) update.name = name.trim();
    if (Number(retention) !== application.retention_days) update.retention_days = Number(retention);
    const dailySpanQuota = quota.trim() === '' ? null : Number(quota);
    if (dailySpanQuota !== application.daily_span_quota) update.daily_span_quota = dailySpanQuota;
    const paths = indexed.map((path) => path.trim()).filter(Boolean);
    if (paths.join('\n') !== application.indexed_attributes.join('\n')) update.indexed_attributes = paths;
    if (Object.keys(update).length === 0) return setSaved(true);
    if (
      await action.run(() =>
        call(management.PATCH('/applications/{app_id}', { params: { path: { app_id: application.id } }, body: update })),
      )
    ) {
      setSaved(true);
      onSaved();
    }
  };
  return (
    <form class="settings-form" onSubmit={submit} aria-label="Application settings">
      <div class="form-grid">
        <label>
          Name
          <input required maxLength={255} value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Retention (days)
          <input
            type="number"
            required
            min={1}
            max={3650}
            step={1}
            value={retention}
            onInput={(event) => setRetention((event.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Daily span quota (empty: none)
          <input
            type="number"
            min={1}
            max={1000000000000}
            step={1}
            value={quota}
            placeholder="none"
            onInput={(event) => setQuota((event.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <fieldset class="form-grid">
        <legend>Indexed attributes (up to 3, e.g. span_attributes.gen_ai.request.model)</legend>
        {indexed.map((path, slot) => (
          <label key={slot}>
            Path {slot + 1}
            <input
              maxLength={255}
              value={path}
              placeholder="span_attributes.…"
              onInput={(event) =>
                setIndexed(indexed.map((old, index) => (index === slot ? (event.target as HTMLInputElement).value : old)))
              }
            />
          </label>
        ))}
      </fieldset>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Save application
        </button>
        <span role="status" class="ok">
          {saved && !action.error ? 'Saved' : ''}
        </span>
      </div>
      <ActionError error={action.error} context="The application was not saved" />
    </form>
  );
}
