// A real OpenID Connect provider for the dashboard's sign-in tests: oidc-provider on 127.0.0.1 (a
// free port), with one public client that must use PKCE, JWT access tokens for one resource
// indicator (the service's OIDC_AUDIENCE) carrying the granted permissions in `scope` and the
// user's name and e-mail, and a minimal interaction of its own: a login form where any user name
// signs in, with a "Deny" button that answers access_denied. Consent is given without a page.
// RP-initiated logout (end_session_endpoint) is offered unless `endSession: false`, with a plain
// confirmation page of its own.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors } from 'oidc-provider';

export interface TestOidcProvider {
  issuer: string;
  jwksUrl: string;
  /** The service's OIDC_* variables (and the dashboard's client) for this provider. */
  env: Record<string, string>;
  /** Registers the dashboard's client with its redirect URIs (known once the service listens). */
  registerDashboard(serviceUrl: string): void;
  /** The user names signed in at the provider so far, in order. */
  logins: string[];
  stop(): Promise<void>;
}

export interface TestOidcProviderOptions {
  clientId: string;
  /** The resource indicator of the service: its OIDC_AUDIENCE (a URL, as RFC 8707 requires). */
  audience: string;
  /** The scopes the resource server grants (the service's permissions). */
  permissions: readonly string[];
  /** Display names and e-mails of known users; others sign in with their user name as name. */
  users?: Record<string, { name: string; email: string }>;
  /** Whether the discovery document advertises an end_session_endpoint (default true). */
  endSession?: boolean;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function loginPage(uid: string, clientId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test provider: sign in</title></head><body><main>
<h1>Test provider</h1><p>Signing in to ${escapeHtml(clientId)}</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>User name <input name="login" autocomplete="username" required></label>
<button type="submit">Continue</button></form>
<form method="post" action="/interaction/${escapeHtml(uid)}/deny"><button type="submit">Deny</button></form>
</main></body></html>`;
}

/** The provider's own "sign out?" page: oidc-provider hands it the form to confirm with. */
function logoutPage(form: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test provider: sign out</title></head><body><main>
<h1>Test provider</h1><p>Sign out of the test provider?</p>
${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>
</main></body></html>`;
}

export async function startOidcProvider(options: TestOidcProviderOptions): Promise<TestOidcProvider> {
  const logins: string[] = [];
  let provider: Provider | undefined;
  const server = http.createServer((req, res) => {
    if (!provider) {
      res.writeHead(503).end('the provider is not configured yet');
      return;
    }
    void handle(provider, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), kid: 'test-provider', alg: 'RS256', use: 'sig' };
  const users = options.users ?? {};
  const userOf = (id: string) => users[id] ?? { name: id, email: `${id}@provider.test` };

  async function handle(current: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/interaction\/([^/?]+)(?:\/(login|deny))?$/.exec(new URL(req.url ?? '/', issuer).pathname);
    if (!match) {
      current.callback()(req, res);
      return;
    }
    const interaction = await current.interactionDetails(req, res);
    const clientId = String(interaction.params.client_id);
    if (match[2] === 'deny' && req.method === 'POST') {
      await current.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The user denied the sign-in' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (match[2] === 'login' && req.method === 'POST') {
      const login = (await formBody(req)).get('login')?.trim() ?? '';
      if (!login) {
        res.writeHead(400, { 'Content-Type': 'text/html; charset=utf-8' }).end(loginPage(interaction.uid, clientId));
        return;
      }
      logins.push(login);
      await current.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
      return;
    }
    if (interaction.prompt.name === 'login') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(loginPage(interaction.uid, clientId));
      return;
    }
    // Consent: everything the client asked for that the provider offers.
    const grant = new current.Grant({ accountId: interaction.session?.accountId as string, clientId });
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = interaction.prompt.details;
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    await current.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  }

  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    env: {
      OIDC_ISSUER: issuer,
      OIDC_AUDIENCE: options.audience,
      OIDC_JWKS_URL: `${issuer}/jwks`,
      OIDC_DASHBOARD_CLIENT_ID: options.clientId,
    },
    logins,
    registerDashboard(serviceUrl: string) {
      const redirectUri = `${serviceUrl}/ui/sign-in/callback`;
      const postLogoutRedirectUri = `${serviceUrl}/ui/sign-in`;
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: options.clientId,
            token_endpoint_auth_method: 'none',
            redirect_uris: [redirectUri],
            post_logout_redirect_uris: [postLogoutRedirectUri],
            response_types: ['code'],
            grant_types: ['authorization_code'],
          },
        ],
        jwks: { keys: [signingJwk] },
        cookies: { keys: ['spanledger-test-provider-cookie-key'] },
        scopes: ['openid', 'profile', 'email'],
        claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
        findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, ...userOf(id) }) }),
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        pkce: { required: () => true },
        ttl: { AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 3600, IdToken: 3600 },
        // The browser exchanges the code: CORS for the dashboard's origin alone.
        clientBasedCORS: (_ctx: unknown, origin: string) => origin === new URL(serviceUrl).origin,
        features: {
          devInteractions: { enabled: false },
          rpInitiatedLogout: {
            enabled: options.endSession ?? true,
            logoutSource: (ctx: { body: unknown }, form: string) => {
              ctx.body = logoutPage(form);
            },
          },
          resourceIndicators: {
            enabled: true,
            getResourceServerInfo: (_ctx: unknown, indicator: string) => {
              if (indicator !== options.audience) throw new errors.InvalidTarget();
              return {
                scope: options.permissions.join(' '),
                audience: options.audience,
                accessTokenFormat: 'jwt',
                accessTokenTTL: 3600,
                jwt: { sign: { alg: 'RS256' } },
              };
            },
          },
        },
        // The service names users from its access token's claims (src/auth/tokens.ts).
        extraTokenClaims: (_ctx: unknown, token: { kind: string; accountId?: string }) =>
          token.kind === 'AccessToken' && token.accountId ? userOf(token.accountId) : undefined,
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
