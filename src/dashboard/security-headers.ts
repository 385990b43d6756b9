// The headers every dashboard response carries: a Content-Security-Policy that runs only the
// dashboard's own script files (no inline script, no eval), loads nothing from elsewhere, and
// talks only to this service and the configured OpenID Connect provider.
import type { Context } from 'koa';

export function contentSecurityPolicy(providerOrigins: readonly string[]): string {
  const connect = ["'self'", ...providerOrigins].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function setSecurityHeaders(ctx: Context, policy: string): void {
  ctx.set('Content-Security-Policy', policy);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}
