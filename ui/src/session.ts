// The signed-in user's bearer token, kept in this tab's sessionStorage: it survives a reload, ends
// with the tab, and sign-out forgets it. It never goes into a URL. After a provider sign-in the ID
// token may be kept beside it, for the provider's sign-out URL alone (ui/src/oidc-sign-in.ts).
import { useEffect, useState } from 'preact/hooks';

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
  /** Only for a provider sign-in whose provider advertises an end_session_endpoint. */
  providerSignOut?: ProviderSignOut;
}

const STORAGE_KEY = 'spanledger.session';
const listeners = new Set<() => void>();

/** The stored session, expired or not; null for none or a value this page did not write. */
function storedSession(): Session | null {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as Session | null;
    if (typeof session?.token === 'string' && typeof session.expiresAt === 'number') return session;
  } catch {
    // Not JSON: treated as no session.
  }
  return null;
}

export function readSession(): Session | null {
  const session = storedSession();
  if (session && session.expiresAt > Date.now()) return session;
  sessionStorage.removeItem(STORAGE_KEY);
  return null;
}

function changed(): void {
  for (const listener of listeners) listener();
}

export function startSession(token: string, expiresInSeconds: number, providerSignOut?: ProviderSignOut): void {
  const session: Session = { token, expiresAt: Date.now() + expiresInSeconds * 1000, ...(providerSignOut ? { providerSignOut } : {}) };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  changed();
}

/**
 * Forgets the session (token and ID token alike) in this tab and answers what it was, expired or
 * not: the provider's session may outlive the access token.
 */
export function endSession(): Session | null {
  const ended = storedSession();
  sessionStorage.removeItem(STORAGE_KEY);
  changed();
  return ended;
}

/** The current session, re-rendering the caller when it starts or ends. */
export function useSession(): Session | null {
  const [session, setSession] = useState(readSession);
  useEffect(() => {
    const update = () => setSession(readSession());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return session;
}
