// When a signed-out tab may sign in with the OpenID Connect provider without a click
// (docs/dashboard.md, "With an OpenID Connect provider"): the browser remembers that it last signed
// in with the provider (a marker in localStorage naming the issuer and client, never a token), and
// each tab keeps in sessionStorage when it last tried, so that a provider answering
// login_required, or a token refused at once, never starts a redirect loop.
const MARKER_KEY = 'spanledger.oidc-provider';
const ATTEMPT_KEY = 'spanledger.oidc-silent';
/** A tab whose last silent sign-in worked tries again (a token expired) no sooner than this. */
const RETRY_AFTER_MS = 60_000;

interface Marker {
  issuer: string;
  client_id: string;
}

interface Attempt {
  at: number;
  failed: boolean;
}

/** Set by a sign-out in this tab load (here or in another tab): nothing signs in by itself until reload. */
let forgotten = false;

/** After a sign-in with the provider: new tabs of this browser may sign in silently. */
export function rememberProvider(provider: Marker): void {
  localStorage.setItem(MARKER_KEY, JSON.stringify({ issuer: provider.issuer, client_id: provider.client_id }));
  forgotten = false;
}

/** After a sign-out (or a link sign-in): no tab signs in with the provider by itself any more. */
export function forgetProvider(): void {
  localStorage.removeItem(MARKER_KEY);
  forgotten = true;
}

function rememberedProvider(): Marker | undefined {
  try {
    const marker = JSON.parse(localStorage.getItem(MARKER_KEY) ?? 'null') as Partial<Marker> | null;
    if (typeof marker?.issuer === 'string' && typeof marker.client_id === 'string')
      return { issuer: marker.issuer, client_id: marker.client_id };
  } catch {
    // Not ours: no marker.
  }
  return undefined;
}

function lastAttempt(): Attempt | undefined {
  try {
    const attempt = JSON.parse(sessionStorage.getItem(ATTEMPT_KEY) ?? 'null') as Partial<Attempt> | null;
    if (typeof attempt?.at === 'number') return { at: attempt.at, failed: attempt.failed === true };
  } catch {
    // Not ours: as if none.
  }
  return undefined;
}

/** Whether this tab should try a silent sign-in before it shows the sign-in view (before the provider is known). */
export function silentSignInWanted(): boolean {
  if (forgotten || !rememberedProvider()) return false;
  const attempt = lastAttempt();
  return !attempt || (!attempt.failed && Date.now() - attempt.at >= RETRY_AFTER_MS);
}

/** The same, for the provider the dashboard is configured with: a marker of another provider or client does not count. */
export function silentSignInAllowed(provider: Marker): boolean {
  const marker = rememberedProvider();
  return silentSignInWanted() && marker?.issuer === provider.issuer && marker.client_id === provider.client_id;
}

/** Before the tab leaves for the provider with prompt=none. */
export function silentAttemptStarted(): void {
  sessionStorage.setItem(ATTEMPT_KEY, JSON.stringify({ at: Date.now(), failed: false }));
}

/** A silent attempt failed: this tab shows the sign-in view until a sign-in with a click. */
export function silentAttemptFailed(): void {
  sessionStorage.setItem(ATTEMPT_KEY, JSON.stringify({ at: Date.now(), failed: true }));
}

/** A sign-in with a click worked: a later expiry may be renewed silently at once. */
export function clearSilentAttempts(): void {
  sessionStorage.removeItem(ATTEMPT_KEY);
}
