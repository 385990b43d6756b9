// The origins the dashboard page must be allowed to reach (CSP connect-src) to sign in with the
// OpenID Connect provider: the issuer's (the browser reads its discovery document there) and the
// token endpoint's, which may live elsewhere. Read from the provider's discovery document on the
// first page request, kept for a while, and never in the way: when the provider is down or slow,
// the page gets the origins known last (or the issuer's alone) and link sign-in works as before.
import type { Logger } from 'pino';

export interface ProviderOriginsOptions {
  /** How long one discovery request may take. */
  timeoutMs?: number;
  /** How long discovered origins are used before they are read again (in the background). */
  refreshMs?: number;
  /** After a failed discovery, how long before the next attempt. */
  retryMs?: number;
  logger?: Logger;
}

/** `<issuer>/.well-known/openid-configuration`, as OpenID Connect Discovery 1.0 §4 builds it. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

function httpOrigin(value: unknown, field: string): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new Error(`its ${field} is not an http(s) URL`);
  return url.origin;
}

async function discover(issuer: string, timeoutMs: number): Promise<string[]> {
  const response = await fetch(discoveryUrl(issuer), { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  if (response.status !== 200) throw new Error(`the discovery document answered ${response.status}`);
  const document = (await response.json()) as Record<string, unknown> | null;
  // The browser (oauth4webapi) refuses a document naming another issuer: so does the service.
  if (document?.issuer !== issuer)
    throw new Error(`the discovery document names issuer ${JSON.stringify(document?.issuer)}, not ${issuer}`);
  return [...new Set([new URL(issuer).origin, httpOrigin(document.token_endpoint, 'token_endpoint')])];
}

/** A function answering the provider origins the page may connect to, as well as they are known now. */
export function providerOrigins(
  issuer: string,
  { timeoutMs = 3000, refreshMs = 3_600_000, retryMs = 30_000, logger }: ProviderOriginsOptions = {},
): () => Promise<string[]> {
  const fallback = [new URL(issuer).origin];
  let known: string[] | undefined;
  let knownAt = 0;
  let failedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | undefined;

  const refresh = (): Promise<void> => {
    pending ??= discover(issuer, timeoutMs)
      .then(
        (origins) => {
          known = origins;
          knownAt = Date.now();
        },
        (error: unknown) => {
          failedAt = Date.now();
          const reason =
            error instanceof Error
              ? error.cause instanceof Error
                ? `${error.message}: ${error.cause.message}`
                : error.message
              : String(error);
          logger?.warn(
            { issuer, reason },
            'OpenID Connect discovery failed: the dashboard allows only the origins known so far; link sign-in is unaffected',
          );
        },
      )
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return async () => {
    const now = Date.now();
    if (known && now - knownAt < refreshMs) return known;
    if (now - failedAt < retryMs) return known ?? fallback;
    const refreshing = refresh();
    // Stale origins serve this page while they are read again.
    if (known) return known;
    await refreshing;
    return known ?? fallback;
  };
}
