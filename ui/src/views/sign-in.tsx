// Signing in (docs/dashboard.md, "Signing in"), two ways:
// - with the OpenID Connect provider /ui/config.json names, when there is one: "Sign in with …"
//   runs the authorization code flow with PKCE (ui/src/oidc-sign-in.ts), which comes back to
//   /ui/sign-in/callback with the code in the fragment. A browser that last signed in that way
//   tries it first without a click (prompt=none, ui/src/silent-sign-in.ts), never in a loop;
// - with a one-time link from `npm run sign-in-link`, which opens /ui/sign-in#link=<token> (and
//   `&next=<page>`, the dashboard page it opens, as seed:demo's link names its traces): the
//   token is in the fragment, which browsers never send to the server, and is exchanged once by
//   POST /ui/session for the service's session (its cookies) and a first access token.
// Shown at the page the user asked for, the view keeps it: that tab opens it once a link signs in
// (in any tab), and the link's tab goes there too (ui/src/return-path.ts).
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { problemMessage } from '../api';
import {
  CALLBACK_PATH,
  completeOidcSignIn,
  SignInError,
  startOidcSignIn,
  takeCallbackParameters,
  worthShowing,
  type OidcProvider,
} from '../oidc-sign-in';
import { rememberReturnPath, safeReturnPath, takeReturnPath } from '../return-path';
import { csrfToken, startCookieSession } from '../session';
import { silentSignInAllowed, silentSignInWanted } from '../silent-sign-in';
import { useAsync } from '../use-async';

async function exchange(link: string): Promise<void> {
  const response = await fetch('/ui/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ link }),
  });
  const body = (await response.json().catch(() => null)) as { access_token?: string; expires_in?: number } | null;
  if (!response.ok || !body?.access_token || !body.expires_in) throw new Error(problemMessage(response.status, body));
  // Without the cookies no other tab, and no later token, would be signed in.
  if (!csrfToken()) {
    throw new Error('The browser did not keep the session cookie: open the dashboard over https, or at http://localhost or 127.0.0.1');
  }
  startCookieSession(body.access_token, body.expires_in);
}

/** What a link carries in the fragment: its token, and the page it opens (`next`, optional). */
interface FragmentLink {
  link?: string;
  next?: string;
}

/** The link's token (and page) in the fragment, removed from the address bar and history at once. */
function takeLinkFromFragment(): FragmentLink {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const link = fragment.get('link') ?? undefined;
  if (link) history.replaceState(history.state, '', location.pathname + location.search);
  return { link, next: fragment.get('next') ?? undefined };
}

/** Whether this page is a sign-in in progress (a link, or the provider's answer), which must not be replaced by the current session. */
export function signInPending(): boolean {
  if (location.pathname === CALLBACK_PATH) return true;
  return location.pathname === '/ui/sign-in' && new URLSearchParams(location.hash.slice(1)).has('link');
}

/** The provider's answer when this page is the sign-in callback (taken out of the URL at once). */
function takeProviderAnswer(): URLSearchParams | undefined {
  return location.pathname === CALLBACK_PATH ? takeCallbackParameters() : undefined;
}

async function loadProvider(): Promise<OidcProvider | null> {
  const response = await fetch('/ui/config.json');
  if (!response.ok) throw new Error(`the dashboard settings could not be read (${response.status})`);
  return ((await response.json()) as { oidc: OidcProvider | null }).oidc;
}

export function SignIn() {
  const { route, url } = useLocation();
  const [{ link, next }] = useState(takeLinkFromFragment);
  const [answer] = useState(takeProviderAnswer);
  // Decided as the view opens: a sign-out later in this tab load does not start one.
  const [silent] = useState(() => !link && !answer && silentSignInWanted());
  const settings = useAsync(loadProvider, []);
  const provider = settings.data ?? null;
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(Boolean(link || answer || silent));

  const fail = (error: Error) => {
    setProblem(error.message);
    setBusy(false);
  };

  useEffect(() => {
    if (!link) rememberReturnPath(url);
  }, [url]);

  useEffect(() => {
    if (!link) return;
    exchange(link).then(() => {
      // A page the link names wins over one a signed-out tab asked for; that one is forgotten either way.
      const asked = takeReturnPath();
      route(next ? safeReturnPath(next) : asked, true);
    }, fail);
  }, [link]);

  useEffect(() => {
    if (!answer || settings.loading) return;
    if (!provider) {
      // An answer from a provider this dashboard no longer signs in with: nothing to complete.
      fail(settings.error ?? new Error('Signing in with an identity provider is not configured'));
      route('/ui/sign-in', true);
      return;
    }
    completeOidcSignIn(provider, answer).then(
      (returnTo) => route(returnTo, true),
      (error: Error) => {
        if (error instanceof SignInError && !worthShowing(error)) setBusy(false);
        else fail(error);
        // A silent sign-in's tab shows the sign-in view at the page it was asked for.
        route((error instanceof SignInError && error.silentReturnTo) || '/ui/sign-in', true);
      },
    );
  }, [answer, settings.loading]);

  useEffect(() => {
    if (!silent || settings.loading) return;
    if (!provider || !silentSignInAllowed(provider)) return void setBusy(false);
    // The page leaves for the provider, which sends it back to the callback at once either way.
    startOidcSignIn(provider, location.pathname + location.search, { silent: true }).catch(() => setBusy(false));
  }, [silent, settings.loading]);

  const signInWithProvider = (chosen: OidcProvider) => {
    setProblem(undefined);
    setBusy(true);
    // The page leaves for the provider; it only comes back here on failure.
    startOidcSignIn(chosen, location.pathname + location.search).catch(fail);
  };

  return (
    <main id="main" class="sign-in">
      <h1>Sign in to spanledger</h1>
      {busy && <p aria-busy="true">{answer && provider ? `Signing in with ${provider.name}…` : 'Signing in…'}</p>}
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      {!busy && provider && (
        <section aria-labelledby="sign-in-provider">
          <h2 id="sign-in-provider">With {provider.name}</h2>
          <p>
            <button type="button" class="primary" onClick={() => signInWithProvider(provider)}>
              Sign in with {provider.name}
            </button>
          </p>
        </section>
      )}
      {!busy && (
        <section aria-labelledby="sign-in-link">
          <h2 id="sign-in-link">With a sign-in link</h2>
          <p>On the machine running the service, print a one-time link for your user and open it in this browser:</p>
          <pre>
            <code>npm run --silent sign-in-link -- --sub alice --name Alice</code>
          </pre>
        </section>
      )}
    </main>
  );
}
