// The top bar: where the user can go, who they are, and sign-out (which forgets the token).
import { useLocation } from 'preact-iso';
import { call, management } from '../api';
import { endSession } from '../session';
import { useAsync } from '../use-async';
import { withQuery } from './application-picker';

const VIEWS = [
  { path: '/ui/', label: 'Organizations' },
  { path: '/ui/traces', label: 'Traces' },
  { path: '/ui/metrics', label: 'Metrics' },
  { path: '/ui/live', label: 'Live' },
];

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
              <a href={withQuery(view.path, {}, { app })} aria-current={path === view.path ? 'page' : undefined}>
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
        <span data-testid="user-name">{user.data ? user.data.name ?? user.data.email ?? user.data.id : ''}</span>
        <button type="button" onClick={() => endSession()}>
          Sign out
        </button>
      </div>
    </header>
  );
}
