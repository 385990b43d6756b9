// An application's API keys: create one (name, permissions, optional expiry), edit (expiry set,
// moved or cleared too), rotate its secret (optionally leaving the old one a grace period), delete
// it. A new or rotated secret is handed to `onSecret`, which shows it once (KeySecretPanel). Every
// key operation is `x-organization-role: member`, so members and owners see the same controls.
// The list is read again after each action, when the page becomes visible again and every
// KEYS_REFRESH_MS while it is visible, so "Last used" follows the keys' use without a reload.
import { useState } from 'preact/hooks';
import { call, management } from '../api';
import { listApiKeys, type ApiKey, type AssignablePermission } from '../management';
import { expiryFromInput, expiryInputValue, GRACE_CHOICES, isExpired } from '../key-lifecycle';
import { useAsync } from '../use-async';
import { useRefreshWhileVisible } from '../use-refresh-while-visible';
import { ActionError } from './action-error';
import { ApiKeyPermissions } from './api-key-permissions';
import { placeIssues } from '../validation-messages';
import { ConfirmButton } from './confirm-button';
import type { RevealedSecret } from './key-secret-panel';
import { useAction } from './use-action';
import { formatIsoText, inputZoneLabel } from '../time-format';
import { useTimeZone, useZonedText } from '../use-time-zone';

/** The fields of the key forms a 422 can name beside them. */
const KEY_FIELDS = ['permissions'] as const;

/** What the form says above its buttons: the service's message, the issues of no field, or where to look. */
function formError(error: string, issues: ReturnType<typeof placeIssues>): string {
  if (issues.rest.length > 0) return issues.rest.join('; ');
  return Object.keys(issues.byField).length > 0 ? 'correct the field marked above' : error;
}

function ApiKeyCreateForm({ applicationId, onCreated }: { applicationId: string; onCreated(secret: RevealedSecret): void }) {
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<AssignablePermission[]>(['write:traces']);
  const [expiry, setExpiry] = useZonedText(() => '');
  const zone = useTimeZone();
  const action = useAction();
  const issues = placeIssues(action.issues, KEY_FIELDS);
  const submit = async (event: Event) => {
    event.preventDefault();
    let created: RevealedSecret | undefined;
    const done = await action.run(async () => {
      const expiresAt = expiryFromInput(expiry, zone);
      const body = { app_id: applicationId, name: name.trim(), permissions, ...(expiresAt ? { expires_at: expiresAt } : {}) };
      const key = await call(management.POST('/api-keys', { body }));
      created = {
        name: key.name,
        apiKey: key.api_key,
        apiSecret: key.api_secret,
        permissions: key.permissions,
        reason: 'created',
        expiresAt: key.expires_at,
      };
    });
    if (done && created) {
      setName('');
      setExpiry('');
      onCreated(created);
    }
  };
  return (
    <form class="key-form" onSubmit={submit} aria-label="Create an API key">
      <label>
        Key name
        <input required maxLength={255} value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
      </label>
      <ApiKeyPermissions
        legend="Permissions of the new key"
        value={permissions}
        onChange={setPermissions}
        issue={issues.byField.permissions}
      />
      <ExpiryField value={expiry} onChange={setExpiry} />
      <button type="submit" class="primary" disabled={action.busy}>
        Create API key
      </button>
      <ActionError error={action.error && formError(action.error, issues)} context="The key was not created" />
    </form>
  );
}

/** The key's expiry in the page's zone; empty means the key never expires. */
function ExpiryField({ value, onChange }: { value: string; onChange(value: string): void }) {
  const zone = useTimeZone();
  return (
    <label>
      Expires ({inputZoneLabel(zone)}; empty: never)
      <input type="datetime-local" value={value} onInput={(event) => onChange((event.target as HTMLInputElement).value)} />
    </label>
  );
}

function ApiKeyEditForm({ apiKey, onDone }: { apiKey: ApiKey; onDone(saved: boolean): void }) {
  const [name, setName] = useState(apiKey.name);
  const [permissions, setPermissions] = useState<AssignablePermission[]>(apiKey.permissions);
  const zone = useTimeZone();
  const shownExpiry = expiryInputValue(apiKey.expires_at, zone);
  const [expiry, setExpiry] = useZonedText((shown) => expiryInputValue(apiKey.expires_at, shown));
  const action = useAction();
  const issues = placeIssues(action.issues, KEY_FIELDS);
  const submit = async (event: Event) => {
    event.preventDefault();
    // Sent only when changed: an expiry already past may not be sent again (it must lie ahead).
    const body = { name: name.trim(), permissions, ...(expiry !== shownExpiry ? { expires_at: expiryFromInput(expiry, zone) } : {}) };
    if (await action.run(() => call(management.PATCH('/api-keys/{api_key}', { params: { path: { api_key: apiKey.api_key } }, body }))))
      onDone(true);
  };
  return (
    <form class="key-form" onSubmit={submit} aria-label={`Edit ${apiKey.name}`}>
      <label>
        Key name
        <input required maxLength={255} value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
      </label>
      <ApiKeyPermissions
        legend={`Permissions of ${apiKey.name}`}
        value={permissions}
        onChange={setPermissions}
        issue={issues.byField.permissions}
      />
      <ExpiryField value={expiry} onChange={setExpiry} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Save key
        </button>
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
      <ActionError error={action.error && formError(action.error, issues)} context="The key was not saved" />
    </form>
  );
}

function ApiKeyRow({
  apiKey,
  onChanged,
  onSecret,
  onDeleted,
}: {
  apiKey: ApiKey;
  onChanged(): void;
  onSecret(secret: RevealedSecret): void;
  onDeleted(apiKey: string): void;
}) {
  const [editing, setEditing] = useState(false);
  const [graceSeconds, setGraceSeconds] = useState(0);
  const action = useAction();
  const rotate = async () => {
    let rotated: RevealedSecret | undefined;
    await action.run(async () => {
      // Without a grace, no body: the rotation the service always did.
      const body = graceSeconds > 0 ? { grace_period_seconds: graceSeconds } : undefined;
      const answer = await call(
        management.POST('/api-keys/{api_key}/rotate-secret', { params: { path: { api_key: apiKey.api_key } }, body }),
      );
      rotated = {
        name: apiKey.name,
        apiKey: answer.api_key,
        apiSecret: answer.api_secret,
        permissions: apiKey.permissions,
        reason: 'rotated',
        expiresAt: apiKey.expires_at,
        previousSecretWorksUntil: answer.rotation_grace_ends_at ?? null,
      };
    });
    setGraceSeconds(0);
    if (rotated) onSecret(rotated);
  };
  const expired = isExpired(apiKey);
  const zone = useTimeZone();
  const remove = async () => {
    if (await action.run(() => call(management.DELETE('/api-keys/{api_key}', { params: { path: { api_key: apiKey.api_key } } }))))
      onDeleted(apiKey.api_key);
  };
  return (
    <tr>
      <td>{apiKey.name}</td>
      <td>
        <code>{apiKey.api_key}</code>
        {apiKey.rotation_grace_ends_at && (
          <div class="muted">Previous secret works until {formatIsoText(apiKey.rotation_grace_ends_at, zone)}</div>
        )}
      </td>
      <td>
        <ul class="plain-list">
          {apiKey.permissions.map((permission) => (
            <li key={permission}>
              <code>{permission}</code>
            </li>
          ))}
        </ul>
      </td>
      <td class="nowrap">{formatIsoText(apiKey.created_at, zone)}</td>
      <td data-testid="key-last-used">
        {apiKey.last_used_at ? formatIsoText(apiKey.last_used_at, zone) : <span class="muted">never</span>}
      </td>
      <td data-testid="key-expiry">
        {apiKey.expires_at === null ? (
          <span class="muted">never</span>
        ) : (
          <>
            {expired && <span class="expired-badge">Expired</span>}{' '}
            <time dateTime={apiKey.expires_at}>{formatIsoText(apiKey.expires_at, zone)}</time>
          </>
        )}
      </td>
      <td>
        {editing ? (
          <ApiKeyEditForm
            apiKey={apiKey}
            onDone={(saved) => {
              setEditing(false);
              if (saved) onChanged();
            }}
          />
        ) : (
          <div class="row-actions">
            <button type="button" aria-label={`Edit ${apiKey.name}`} onClick={() => setEditing(true)}>
              Edit
            </button>
            <ConfirmButton
              label="Rotate secret"
              accessibleLabel={`Rotate secret of ${apiKey.name}`}
              question="A new secret replaces the current one."
              confirmLabel="Yes, rotate"
              busy={action.busy}
              onConfirm={rotate}
            >
              <label>
                The current secret
                <select
                  value={String(graceSeconds)}
                  onChange={(event) => setGraceSeconds(Number((event.target as HTMLSelectElement).value))}
                >
                  {GRACE_CHOICES.map((choice) => (
                    <option key={choice.seconds} value={String(choice.seconds)}>
                      {choice.label}
                    </option>
                  ))}
                </select>
              </label>
            </ConfirmButton>
            <ConfirmButton
              label="Delete"
              accessibleLabel={`Delete ${apiKey.name}`}
              question="Exporters and tokens using this key are refused at once."
              confirmLabel="Yes, delete the key"
              busy={action.busy}
              onConfirm={remove}
            />
          </div>
        )}
        <ActionError error={action.error} />
      </td>
    </tr>
  );
}

/**
 * How often the visible list is read again. The service records a key's use at most once a minute,
 * so a shorter interval would mostly read the same list.
 */
export const KEYS_REFRESH_MS = 30_000;

export function ApiKeyTable({
  applicationId,
  onSecret,
  onDeleted,
}: {
  applicationId: string;
  onSecret(secret: RevealedSecret): void;
  onDeleted(apiKey: string): void;
}) {
  const keys = useAsync(() => listApiKeys(applicationId), [applicationId]);
  useRefreshWhileVisible(keys.refresh, KEYS_REFRESH_MS);
  return (
    <>
      {keys.error && (
        <p role="alert" class="error">
          API keys could not be loaded: {keys.error.message}
        </p>
      )}
      {!keys.data && !keys.error && <p aria-busy="true">Loading API keys…</p>}
      {keys.data && keys.data.length === 0 && <p>No API key yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <table class="management-table" data-testid="api-keys">
          <caption class="visually-hidden">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Permissions</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((apiKey) => (
              <ApiKeyRow
                key={apiKey.api_key}
                apiKey={apiKey}
                onChanged={keys.reload}
                onSecret={(secret) => {
                  onSecret(secret);
                  keys.reload();
                }}
                onDeleted={(deleted) => {
                  onDeleted(deleted);
                  keys.reload();
                }}
              />
            ))}
          </tbody>
        </table>
      )}
      <h3>New API key</h3>
      <ApiKeyCreateForm
        applicationId={applicationId}
        onCreated={(secret) => {
          onSecret(secret);
          keys.reload();
        }}
      />
    </>
  );
}
