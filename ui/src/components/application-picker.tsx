// Chooses the application a view shows: its id lives in the URL (`?app=`), so a view can be shared.
import { useLocation } from 'preact-iso';
import { listOrganizationsWithApplications } from '../applications';
import { useAsync } from '../use-async';

/** The `app` query parameter of the current URL. */
export function useSelectedApplication(): string | undefined {
  return useLocation().query.app || undefined;
}

/** The current path and query with some query parameters changed (undefined removes one). */
export function withQuery(path: string, query: Record<string, string>, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) next.delete(name);
    else next.set(name, value);
  }
  const text = next.toString();
  return text ? `${path}?${text}` : path;
}

export function ApplicationPicker() {
  const { path, query, route } = useLocation();
  const applications = useAsync(listOrganizationsWithApplications, []);
  if (applications.error) return <span role="alert">Applications could not be loaded: {applications.error.message}</span>;
  if (!applications.data) return <span aria-busy="true">Loading applications…</span>;
  const groups = applications.data.filter((group) => group.applications.length > 0);
  if (groups.length === 0)
    return (
      <span>
        No application yet: <a href="/ui/">create one</a>.
      </span>
    );
  return (
    <label class="picker">
      Application{' '}
      <select
        value={query.app ?? ''}
        onChange={(event) => route(withQuery(path, query, { app: (event.target as HTMLSelectElement).value || undefined }))}
      >
        <option value="">Choose…</option>
        {groups.map((group) => (
          <optgroup key={group.organization.id} label={group.organization.name}>
            {group.applications.map((application) => (
              <option key={application.id} value={application.id}>
                {application.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}
