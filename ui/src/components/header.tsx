// The top bar: where the user can go, who they are, and sign-out (which ends the session in every
// tab, and the provider's session too after a sign-in with a provider that offers it).
import { useLocation } from 'preact-iso';
import { call, management } from '../api';
import { providerSignOutUrl } from '../oidc-sign-in';
import { signOut as endEverywhere } from '../session';
import { useAsync } from '../use-async';
import { withQuery } from './application-picker';

/** Each view of the top bar and the paths that belong to it (one trace belongs to Traces). */
const VIEWS = [
  { path: '/ui/', label: 'Organizations', covers: /^\/ui\/($|organizations\/|applications\/)/ },
  { path: '/ui/traces', label: 'Traces', covers: /^\/ui\/traces(\/|$)/ },
  { path: '/ui/metrics', label: 'Metrics', covers: /^\/ui\/metrics$/ },
  { path: '/ui/live', label: 'Live', covers: /^\/ui\/live$/ },
];

async function signOut(): Promise<void> {
  const ended = await endEverywhere();
  // The provider signs the user out and sends the browser back to the sign-in view.
  if (ended?.providerSignOut) location.assign(providerSignOutUrl(ended.providerSignOut));
}

export function Header() {
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
              <a href={withQuery(view.path, {}, { app })} aria-current={view.covers.test(path) ? 'page' : undefined}>
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
      <div class="user">
        <span data-testid="user-name">{user.data ? (user.data.name ?? user.data.email ?? user.data.id) : ''}</span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </header>
  );
}
