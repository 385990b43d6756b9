// The dashboard's routes, outside the OpenAPI documents (docs/dashboard.md): `/` leads to it,
// `/ui/assets/*` are its built files, `/ui/session*` sign in with a one-time link, mint the page's
// short-lived tokens from the session cookie and sign out, and every other `/ui/...` path is its
// single page, which routes in the browser. The page reads and changes data only through the
// engine and management APIs, with the same bearer tokens as any client.
import Router, { type RouterContext } from '@koa/router';
import type { Knex } from 'knex';
import send from 'koa-send';
import path from 'node:path';
import type { Logger } from 'pino';
import type { TokenService } from '../auth/tokens.js';
import { NotAuthenticatedError, NotFoundError, RequestValidationError } from '../errors.js';
import { DASHBOARD_DIR, readIndexPage } from './built-files.js';
import { FAVICON_ICO } from './favicon.js';
import { providerOrigins } from './provider-origins.js';
import { contentSecurityPolicy, setSecurityHeaders } from './security-headers.js';
import { clearSessionCookies, requireCsrfToken, requireSameOrigin, sessionIdOf, setSessionCookies } from './session-cookies.js';
import type { DashboardSessions } from './sessions.js';
import type { DashboardSettings } from './settings.js';
import { exchangeSignInLink } from './sign-in-link.js';

export type { DashboardSettings } from './settings.js';

export interface DashboardRouteDeps {
  knex: Knex;
  tokens: TokenService;
  settings: DashboardSettings;
  sessions: DashboardSessions;
  /** Where the built files are (default dist/ui). */
  dir?: string;
  /** Where a failed discovery of the OpenID Connect provider is reported. */
  logger?: Logger;
}

/** A sign-in link's token is a compact JWT: far shorter than this. */
const LINK_MAX_LENGTH = 4096;

function linkOf(body: unknown): string {
  const link = (body as { link?: unknown } | null)?.link;
  if (typeof link !== 'string' || link === '' || link.length > LINK_MAX_LENGTH) {
    throw new RequestValidationError([
      {
        loc: ['body', 'link'],
        msg: `a sign-in link's token (a string of 1 to ${LINK_MAX_LENGTH} characters) is required`,
        type: 'value_error',
      },
    ]);
  }
  return link;
}

export function dashboardRoutes({ knex, tokens, settings, sessions, dir = DASHBOARD_DIR, logger }: DashboardRouteDeps): Router {
  // Strict: `/ui` and `/ui/` are different paths here (the first redirects to the second).
  const router = new Router({ strict: true });
  const issuerOrigins = settings.oidc ? [new URL(settings.oidc.issuer).origin] : [];
  const policy = contentSecurityPolicy(issuerOrigins);
  // Only the page's own policy governs what it may reach: it alone waits for the provider's
  // discovery document (bounded, cached); JSON, files and link sign-in never do.
  const knownProviderOrigins = settings.oidc ? providerOrigins(settings.oidc.issuer, { logger }) : async () => [];
  const dashboard = async (ctx: RouterContext, next: () => Promise<unknown>) => {
    ctx.state.route = 'dashboard';
    setSecurityHeaders(ctx, policy);
    await next();
  };

  router.get('/', dashboard, (ctx) => ctx.redirect('/ui/'));
  router.get('/ui', dashboard, (ctx) => ctx.redirect('/ui/'));

  router.get('/favicon.ico', dashboard, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = 'image/x-icon';
    ctx.body = FAVICON_ICO;
  });

  router.get('/ui/config.json', dashboard, (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = settings;
  });

  // No CSRF token before there is a session: the link is itself a one-time secret, and the
  // same-origin check keeps another site from signing the browser in as someone else.
  router.post('/ui/session', dashboard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    requireSameOrigin(ctx);
    const signedIn = await exchangeSignInLink(knex, tokens, sessions, linkOf(ctx.request.body));
    // The browser's previous session, if any, is replaced rather than left to expire.
    const previous = sessionIdOf(ctx);
    if (previous) await sessions.close(previous);
    setSessionCookies(ctx, signedIn.sessionId, sessions.csrfTokenOf(signedIn.sessionId), sessions.config.maxSeconds);
    ctx.body = signedIn.token;
  });

  router.post('/ui/session/token', dashboard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    requireSameOrigin(ctx);
    const sessionId = sessionIdOf(ctx);
    if (!sessionId) throw new NotAuthenticatedError('Not signed in to the dashboard: open a sign-in link', 'DashboardSession');
    requireCsrfToken(ctx, sessions.csrfTokenOf(sessionId));
    try {
      ctx.body = await sessions.mint(sessionId);
    } catch (error) {
      // An ended session's cookies go too, so that no other tab tries them again.
      if (error instanceof NotAuthenticatedError) clearSessionCookies(ctx);
      throw error;
    }
  });

  router.delete('/ui/session', dashboard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    requireSameOrigin(ctx);
    const sessionId = sessionIdOf(ctx);
    if (sessionId) {
      requireCsrfToken(ctx, sessions.csrfTokenOf(sessionId));
      await sessions.close(sessionId);
    }
    clearSessionCookies(ctx);
    ctx.status = 204;
  });

  router.get('/ui/assets/:file', dashboard, async (ctx) => {
    // Built file names carry a hash of their content: cached for good, and served gzipped when
    // the browser takes it (scripts/build-ui.ts writes the .gz beside each file).
    try {
      await send(ctx, path.basename(ctx.params.file as string), {
        root: path.join(dir, 'assets'),
        immutable: true,
        maxage: 365 * 86_400_000,
        gzip: true,
        brotli: false,
      });
    } catch (error) {
      // koa-send reports a missing file as an HTTP error of its own: answered like any other 404.
      if ((error as { status?: unknown }).status === 404) throw new NotFoundError();
      throw error;
    }
  });

  router.get('/ui/{*rest}', dashboard, async (ctx) => {
    setSecurityHeaders(ctx, contentSecurityPolicy(await knownProviderOrigins()));
    const page = readIndexPage(dir);
    ctx.set('Cache-Control', 'no-cache');
    if (page === undefined) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'The dashboard is not built yet: run `npm run build:ui` (`npm start` does it).\n';
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });

  return router;
}
