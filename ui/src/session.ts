// The signed-in user's bearer token, kept in this tab's sessionStorage: it survives a reload, ends
// with the tab, and sign-out forgets it. It never goes into a URL.
import { useEffect, useState } from 'preact/hooks';

export interface Session {
  token: string;
  /** Epoch milliseconds after which the token is no longer accepted. */
  expiresAt: number;
}

const STORAGE_KEY = 'spanledger.session';
const listeners = new Set<() => void>();

export function readSession(): Session | null {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as Session;
    if (typeof session.token === 'string' && session.expiresAt > Date.now()) return session;
  } catch {
    // A value this page did not write: forgotten below.
  }
  sessionStorage.removeItem(STORAGE_KEY);
  return null;
}

function changed(): void {
  for (const listener of listeners) listener();
}

export function startSession(token: string, expiresInSeconds: number): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ token, expiresAt: Date.now() + expiresInSeconds * 1000 }));
  changed();
}

export function endSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  changed();
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
