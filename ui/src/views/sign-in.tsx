// Signing in (docs/dashboard.md, "Signing in"). A one-time link from `npm run sign-in-link` opens
// /ui/sign-in#link=<token>: the token is in the fragment, which browsers never send to the server,
// and is exchanged once for a session token by POST /ui/session.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { problemMessage } from '../api';
import { startSession } from '../session';

async function exchange(link: string): Promise<void> {
  const response = await fetch('/ui/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link }) });
  const body = (await response.json().catch(() => null)) as { access_token?: string; expires_in?: number } | null;
  if (!response.ok || !body?.access_token || !body.expires_in) throw new Error(problemMessage(response.status, body));
  startSession(body.access_token, body.expires_in);
}

/** The link's token in the fragment, removed from the address bar and history at once. */
function takeLinkFromFragment(): string | undefined {
  const link = new URLSearchParams(location.hash.slice(1)).get('link') ?? undefined;
  if (link) history.replaceState(history.state, '', location.pathname + location.search);
  return link;
}

export function SignIn() {
  const { route } = useLocation();
  const [link] = useState(takeLinkFromFragment);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(Boolean(link));
  useEffect(() => {
    if (!link) return;
    exchange(link).then(
      () => route('/ui/', true),
      (error: Error) => {
        setProblem(error.message);
        setBusy(false);
      },
    );
  }, [link]);
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to spanledger</h1>
      {busy && <p aria-busy="true">Signing in…</p>}
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      {!busy && (
        <section>
          <h2>With a sign-in link</h2>
          <p>On the machine running the service, print a one-time link for your user and open it in this browser:</p>
          <pre>
            <code>npm run --silent sign-in-link -- --sub alice --name Alice</code>
          </pre>
        </section>
      )}
    </main>
  );
}
