// The dashboard session's cookies and the checks on every call that changes the session
// (docs/dashboard.md, "Signing in"): the session id in an HttpOnly cookie the page cannot read,
// and its CSRF token in a cookie the page reads and sends back in a header (double submit, bound
// to the session). Both are SameSite=Strict, for /ui only, and Secure except over http on this
// machine (a browser keeps no Secure cookie from any other http address).
import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { PermissionDeniedError } from '../errors.js';

export const SESSION_COOKIE = 'spanledger_session';
export const CSRF_COOKIE = 'spanledger_csrf';
export const CSRF_HEADER = 'X-CSRF-Token';

const COOKIE_PATH = '/ui';
/** What a cookie value may hold here (base64url): anything else is not ours. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{1,128}$/;

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

function cookie(ctx: Context, name: string, value: string, options: { httpOnly: boolean; maxAgeSeconds: number }): string {
  const secure = ctx.protocol === 'https' || !isLoopback(ctx.hostname);
  return [
    `${name}=${value}`,
    `Path=${COOKIE_PATH}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'SameSite=Strict',
    ...(options.httpOnly ? ['HttpOnly'] : []),
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** Sets both cookies; they last as long as the session can (its absolute lifetime). */
export function setSessionCookies(ctx: Context, sessionId: string, csrfToken: string, maxAgeSeconds: number): void {
  ctx.append('Set-Cookie', [
    cookie(ctx, SESSION_COOKIE, sessionId, { httpOnly: true, maxAgeSeconds }),
    cookie(ctx, CSRF_COOKIE, csrfToken, { httpOnly: false, maxAgeSeconds }),
  ]);
}

export function clearSessionCookies(ctx: Context): void {
  ctx.append('Set-Cookie', [
    cookie(ctx, SESSION_COOKIE, '', { httpOnly: true, maxAgeSeconds: 0 }),
    cookie(ctx, CSRF_COOKIE, '', { httpOnly: false, maxAgeSeconds: 0 }),
  ]);
}

/** The session id the browser sent, if it is one we could have set. */
export function sessionIdOf(ctx: Context): string | undefined {
  const value = ctx.cookies.get(SESSION_COOKIE);
  return value && COOKIE_VALUE.test(value) ? value : undefined;
}

/**
 * Refuses a call that a browser made from another site: by Sec-Fetch-Site where the browser sends
 * it (its own view of the caller), else by Origin. A client that is not a browser sends neither,
 * and cannot carry a victim's cookies either.
 */
export function requireSameOrigin(ctx: Context): void {
  const site = ctx.get('Sec-Fetch-Site');
  const origin = ctx.get('Origin');
  // Koa 3's ctx.origin is the Origin request header, not the service's own origin.
  const own = `${ctx.protocol}://${ctx.host}`;
  if (site ? site !== 'same-origin' : origin !== '' && origin !== own) {
    throw new PermissionDeniedError('This call is accepted from the dashboard itself only (same origin)');
  }
}

/** Refuses a call without the session's CSRF token in the X-CSRF-Token header. */
export function requireCsrfToken(ctx: Context, expected: string): void {
  const sent = Buffer.from(ctx.get(CSRF_HEADER));
  const wanted = Buffer.from(expected);
  if (sent.length !== wanted.length || !timingSafeEqual(sent, wanted)) {
    throw new PermissionDeniedError(`Send the session's CSRF token (the ${CSRF_COOKIE} cookie) in the ${CSRF_HEADER} header`);
  }
}
