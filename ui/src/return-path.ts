// Where the user goes once signed in: the dashboard page they asked for, kept across the sign-in
// (docs/dashboard.md, "Signing in"). Only a path of this dashboard is ever followed, so no link
// can send the browser elsewhere.
const RETURN_KEY = 'spanledger.return-to';
/** A page asked for longer ago than this is not where the next sign-in goes. */
const RETURN_MAX_AGE_MS = 30 * 60_000;

/** The path itself when it is a dashboard page of this origin other than sign-in; else the dashboard's start. */
export function safeReturnPath(path: string): string {
  try {
    const url = new URL(path, location.origin);
    if (url.origin === location.origin && url.pathname.startsWith('/ui/') && !url.pathname.startsWith('/ui/sign-in')) {
      return url.pathname + url.search;
    }
  } catch {
    // Not a URL at all: the start.
  }
  return '/ui/';
}

/**
 * Remembers the page the signed-out user asked for, for the tab where the sign-in link will be
 * opened (often another one, so not sessionStorage); a path is no secret.
 */
export function rememberReturnPath(path: string): void {
  if (safeReturnPath(path) === '/ui/') return;
  localStorage.setItem(RETURN_KEY, JSON.stringify({ path, at: Date.now() }));
}

/** The remembered page, once: it is forgotten as it is taken. */
export function takeReturnPath(): string {
  const raw = localStorage.getItem(RETURN_KEY);
  localStorage.removeItem(RETURN_KEY);
  try {
    const kept = JSON.parse(raw ?? 'null') as { path?: unknown; at?: unknown } | null;
    if (typeof kept?.path === 'string' && typeof kept.at === 'number' && Date.now() - kept.at < RETURN_MAX_AGE_MS) {
      return safeReturnPath(kept.path);
    }
  } catch {
    // Not ours: the start.
  }
  return '/ui/';
}
