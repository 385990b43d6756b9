// Who is signed in, for this page (docs/dashboard.md, "Signing in"). Two kinds of session:
// - a link sign-in's: the service keeps it, named by an HttpOnly cookie this page never sees; the
//   page asks POST /ui/session/token for a short-lived access token when it needs one and keeps it
//   in memory only, so every tab of the browser is signed in, and none holds a long-lived secret;
// - a provider sign-in's: the provider's access token, kept in this tab's sessionStorage as before
//   (it survives a reload and ends with the tab), with the ID token for the provider's sign-out;
//   other tabs sign in with the provider's own session (ui/src/silent-sign-in.ts).
// Sign-out in one tab signs every tab out at once (BroadcastChannel) and stops silent provider
// sign-ins, and a link sign-in in one tab signs in the tabs waiting on the sign-in view.
import { useEffect, useState } from 'preact/hooks';
import { forgetProvider } from './silent-sign-in';

/** What signing out at the OpenID Connect provider needs (RP-Initiated Logout 1.0), kept from sign-in. */
export interface ProviderSignOut {
  /** The provider's end_session_endpoint, from its discovery document. */
  endSessionEndpoint: string;
  /** The ID token of the sign-in, sent back as id_token_hint; never a bearer token. */
  idToken: string;
  clientId: string;
}

export interface Session {
  token: string;
  /** Epoch milliseconds after which the token is no longer accepted. */
  expiresAt: number;
  /** `cookie`: minted from the service's session; `provider`: the provider's token, this tab only. */
  kind: 'cookie' | 'provider';
  /** Only for a provider sign-in whose provider advertises an end_session_endpoint. */
  providerSignOut?: ProviderSignOut;
}

/** undefined while the page still asks the service whether its session goes on. */
type State = Session | null | undefined;

const PROVIDER_KEY = 'spanledger.session';
const CSRF_COOKIE = 'spanledger_csrf';
/** A token this close to its expiry is replaced before use. */
const RENEW_MARGIN_MS = 30_000;

let state: State = undefined;
const listeners = new Set<() => void>();
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('spanledger.session') : undefined;

function set(next: State): void {
  state = next;
  for (const listener of listeners) listener();
}

/** The provider session this tab keeps, if still valid; null for none, an expired one or a value this page did not write. */
function storedProviderSession(): Session | null {
  const raw = sessionStorage.getItem(PROVIDER_KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as Session | null;
    if (typeof session?.token === 'string' && typeof session.expiresAt === 'number') return { ...session, kind: 'provider' };
  } catch {
    // Not JSON: treated as no session.
  }
  return null;
}

/** The session's CSRF token (the service sets it beside the HttpOnly session cookie); none: no session. */
export function csrfToken(): string | undefined {
  const found = document.cookie.split('; ').find((entry) => entry.startsWith(`${CSRF_COOKIE}=`));
  return found?.slice(CSRF_COOKIE.length + 1) || undefined;
}

/** An access token from the service's session; null when there is none any more. */
async function requestToken(): Promise<Session | null> {
  const csrf = csrfToken();
  if (!csrf) return null;
  const response = await fetch('/ui/session/token', { method: 'POST', headers: { 'X-CSRF-Token': csrf } });
  const body = (await response.json().catch(() => null)) as { access_token?: string; expires_in?: number } | null;
  if (response.status === 401 || response.status === 403) return null;
  if (!response.ok || !body?.access_token || !body.expires_in) throw new Error(`the session's token could not be had (${response.status})`);
  return { token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000, kind: 'cookie' };
}

let renewing: Promise<Session | null> | undefined;

/** One token request at a time, whoever asks; the session ends when the service says it has. */
function renew(): Promise<Session | null> {
  renewing ??= requestToken()
    .then(
      (session) => {
        set(session);
        return session;
      },
      // The service could not be reached: keep what there is, the next call tries again.
      () => state ?? null,
    )
    .finally(() => (renewing = undefined));
  return renewing;
}

/** Decides, once at start, whether this page is signed in: a provider session of this tab, else the service's session. */
export function resumeSession(): Promise<unknown> {
  const provider = storedProviderSession();
  if (provider && provider.expiresAt > Date.now()) {
    set(provider);
    return Promise.resolve();
  }
  sessionStorage.removeItem(PROVIDER_KEY);
  return renew();
}

/** Starts signed out, without asking the service: a sign-in link or a provider's answer is about to sign in. */
export function startSignedOut(): void {
  set(null);
}

/** The current session, null when signed out (or still deciding), without asking the service. */
export function readSession(): Session | null {
  return state ?? null;
}

/** A token good for the next request: the current one, or a new one from the service's session when it is about to expire. */
export async function currentToken(): Promise<string | undefined> {
  if (state?.kind === 'cookie' && state.expiresAt - RENEW_MARGIN_MS <= Date.now()) await renew();
  if (state?.kind === 'provider' && state.expiresAt <= Date.now()) endSession();
  return state?.token;
}

/**
 * After a 401: a session of the service may still mint a token (this one expired); a provider's
 * token is forgotten in this tab, whose sign-in view then tries the provider's session once.
 */
export function tokenRefused(): void {
  if (state?.kind === 'cookie') void renew();
  else if (state) endSession();
}

/** After a link sign-in (POST /ui/session set the cookies): this tab's first token, and the waiting tabs sign in. */
export function startCookieSession(token: string, expiresInSeconds: number): void {
  sessionStorage.removeItem(PROVIDER_KEY);
  // The browser's last sign-in is no longer the provider's: once this session ends, no silent one.
  forgetProvider();
  set({ token, expiresAt: Date.now() + expiresInSeconds * 1000, kind: 'cookie' });
  channel?.postMessage('signed-in');
}

/** After a provider sign-in: this tab only, as the provider's token is kept. */
export function startProviderSession(token: string, expiresInSeconds: number, providerSignOut?: ProviderSignOut): void {
  const session: Session = {
    token,
    expiresAt: Date.now() + expiresInSeconds * 1000,
    kind: 'provider',
    ...(providerSignOut ? { providerSignOut } : {}),
  };
  sessionStorage.setItem(PROVIDER_KEY, JSON.stringify(session));
  set(session);
}

/** Forgets the session in this tab and answers what it was: the provider's session may outlive the access token. */
export function endSession(): Session | null {
  const ended = state?.kind === 'provider' ? state : (storedProviderSession() ?? state ?? null);
  sessionStorage.removeItem(PROVIDER_KEY);
  set(null);
  return ended;
}

/**
 * Signs out: ends the service's session (its cookies go with it) and every tab's; answers the
 * session that ended, for the provider's sign-out.
 */
export async function signOut(): Promise<Session | null> {
  const csrf = csrfToken();
  if (csrf) await fetch('/ui/session', { method: 'DELETE', headers: { 'X-CSRF-Token': csrf } }).catch(() => undefined);
  // Before the other tabs hear of it, so that none signs in again with the provider's session.
  forgetProvider();
  const ended = endSession();
  channel?.postMessage('signed-out');
  return ended;
}

channel?.addEventListener('message', (event: MessageEvent) => {
  if (event.data === 'signed-out') {
    // Also here: this tab may not see the other tab's localStorage change yet.
    forgetProvider();
    endSession();
  } else if (event.data === 'signed-in' && !state) void renew();
  else if (event.data === 'signed-in' && state?.kind === 'cookie') {
    // The browser's session changed hands (a link of another user): the views start over with it.
    set(undefined);
    void renew();
  }
});

/** The current session (undefined while deciding), re-rendering the caller when it starts or ends. */
export function useSession(): State {
  const [session, setSession] = useState<State>(state);
  useEffect(() => {
    const update = () => setSession(state);
    listeners.add(update);
    update();
    return () => void listeners.delete(update);
  }, []);
  return session;
}
