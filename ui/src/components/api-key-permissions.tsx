// The permissions a key may hold, as checkboxes in a fieldset named by its legend, with the
// service's objection to them (a 422 at `permissions`, in words) inside it.
import { useId } from 'preact/hooks';
import { ASSIGNABLE_PERMISSIONS, type AssignablePermission } from '../management';

const DESCRIPTIONS: Record<AssignablePermission, string> = {
  'write:traces': 'send spans (exporters)',
  'read:traces': 'query traces and metrics',
  'read:applications': 'read this application',
  'update:applications': 'change this application',
  'read:organizations': 'read the organization',
  'update:organizations': 'change the organization',
};

export function ApiKeyPermissions({
  legend,
  value,
  onChange,
  issue,
}: {
  legend: string;
  value: AssignablePermission[];
  onChange(next: AssignablePermission[]): void;
  issue?: string;
}) {
  const issueId = useId();
  return (
    <fieldset class="permissions" aria-invalid={issue ? true : undefined} aria-describedby={issue ? issueId : undefined}>
      <legend>{legend}</legend>
      {issue && (
        <p class="error field-issue" id={issueId}>
          {issue}
        </p>
      )}
      {ASSIGNABLE_PERMISSIONS.map((permission) => (
        <label key={permission}>
          <input
            type="checkbox"
            checked={value.includes(permission)}
            onChange={(event) => {
              const checked = (event.target as HTMLInputElement).checked;
              onChange(checked ? [...value, permission] : value.filter((held) => held !== permission));
            }}
          />
          <code>{permission}</code> <span class="muted">{DESCRIPTIONS[permission]}</span>
        </label>
      ))}
    </fieldset>
  );
}
