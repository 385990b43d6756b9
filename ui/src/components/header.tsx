// The top bar: where the user can go, the zone every time is written in, who they are, and
// sign-out (which ends the session in every tab, and the provider's session too after a sign-in
// with a provider that offers it).
import { useLocation } from 'preact-iso';
import { call, management } from '../api';
import { providerSignOutUrl } from '../oidc-sign-in';
import { signOut as endEverywhere } from '../session';
import { zoneName, type ZoneChoice } from '../time-format';
import { useAsync } from '../use-async';
import { sharedViewQuery } from '../view-query';
import { withQuery } from './application-picker';

/**
 * Each view of the top bar and the paths that belong to it (one trace belongs to Traces). Traces
 * and Metrics read the same window and filter: a link between them keeps them (`shares`).
 */
const VIEWS = [
  { path: '/ui/', label: 'Organizations', covers: /^\/ui\/($|organizations\/|applications\/)/, shares: false },
  { path: '/ui/traces', label: 'Traces', covers: /^\/ui\/traces(\/|$)/, shares: true },
  { path: '/ui/metrics', label: 'Metrics', covers: /^\/ui\/metrics$/, shares: true },
  { path: '/ui/live', label: 'Live', covers: /^\/ui\/live$/, shares: false },
];

/** The data views whose query a shared link carries (one trace's page has the application only). */
const SHARING_PATHS = /^\/ui\/(traces|metrics)$/;

async function signOut(): Promise<void> {
  const ended = await endEverywhere();
  // The provider signs the user out and sends the browser back to the sign-in view.
  if (ended?.providerSignOut) location.assign(providerSignOutUrl(ended.providerSignOut));
}

interface HeaderProps {
  zoneChoice: ZoneChoice;
  onZoneChoice(choice: ZoneChoice): void;
}

export function Header({ zoneChoice, onZoneChoice }: HeaderProps) {
  const { path, query } = useLocation();
  const user = useAsync(() => call(management.GET('/users/me')), []);
  // The chosen application follows the user from view to view.
  const app = query.app;
  return (
    <header class="topbar">
      <a class="brand" href="/ui/">
        spanledger
      </a>
      <nav aria-label="Views">
        <ul>
          {VIEWS.map((view) => (
            <li key={view.path}>
              <a
                href={
                  view.shares && SHARING_PATHS.test(path)
                    ? withQuery(view.path, sharedViewQuery(query), {})
                    : withQuery(view.path, {}, { app })
                }
                aria-current={view.covers.test(path) ? 'page' : undefined}
              >
                {view.label}
              </a>
            </li>
          ))}
          <li>
            <a href="/docs" target="_blank" rel="noopener">
              API docs
            </a>
          </li>
        </ul>
      </nav>
      <label class="zone-choice">
        Times in
        <select
          value={zoneChoice}
          data-testid="zone-choice"
          onChange={(event) => onZoneChoice((event.target as HTMLSelectElement).value === 'utc' ? 'utc' : 'local')}
        >
          <option value="local">local time ({zoneName(undefined)})</option>
          <option value="utc">UTC</option>
        </select>
      </label>
      <div class="user">
        <span data-testid="user-name">{user.data ? (user.data.name ?? user.data.email ?? user.data.id) : ''}</span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </header>
  );
}
