// Signing in to the dashboard with an OpenID Connect provider: a real provider (oidc-provider,
// test/support/oidc-provider.ts) on 127.0.0.1, the real service trusting it, and Chromium running
// the authorization code flow with PKCE. The user lands signed in with the provider's access token
// (which the APIs accept), no token or code is ever in the address bar, the history, or a request
// to the service; the provider's refusal and a forged answer are shown and sign nobody in. Sign-out
// ends the provider's session too (RP-initiated logout) where the provider offers it, and stays in
// the tab for a link sign-in or a provider without an end_session_endpoint. Other tabs sign in
// without a click by the provider's session (prompt=none) on the page they were asked for, a
// refused token is renewed so, sign-out in one tab keeps every tab out, and a provider session that
// has ended shows the sign-in view after one attempt, with no loop. The
// HTTP side: /ui/config.json and the page's CSP with and without a provider, the token endpoint's
// origin read from the discovery document, and the link sign-in unharmed when the provider is down.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import type { BrowserContext, Page } from 'playwright-core';
import { PERMISSIONS } from '../../src/permissions.js';
import { OIDC_DASHBOARD_DEFAULT_SCOPE } from '../../src/dashboard/settings.js';
import { accessibilityViolations, ensureUiBuilt, openPage, screenshot, signInLink, useBrowser } from '../support/dashboard.js';
import { testDatabases } from '../support/databases.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const AUDIENCE = 'https://spanledger.test/api';
const CLIENT_ID = 'spanledger-dashboard';
const PROVIDER_NAME = 'Test Provider';

type RunningServer = TestServer & { stop(): Promise<void> };

/** The token of the dashboard's session in this tab, if any. */
async function sessionToken(page: Page): Promise<string | undefined> {
  const raw = (await page.evaluate(`sessionStorage.getItem('spanledger.session')`)) as string | null;
  return raw ? (JSON.parse(raw) as { token: string }).token : undefined;
}

/** What the tab keeps for signing out at the provider, if anything. */
async function providerSignOut(page: Page): Promise<{ endSessionEndpoint: string; idToken: string; clientId: string } | undefined> {
  const raw = (await page.evaluate(`sessionStorage.getItem('spanledger.session')`)) as string | null;
  return raw
    ? (JSON.parse(raw) as { providerSignOut?: { endSessionEndpoint: string; idToken: string; clientId: string } }).providerSignOut
    : undefined;
}

/** The browser's marker of its last provider sign-in (localStorage), if any. */
async function providerMarker(page: Page): Promise<unknown> {
  return JSON.parse(((await page.evaluate(`localStorage.getItem('spanledger.oidc-provider')`)) as string | null) ?? 'null');
}

/** The authorization requests a browser context sends to the provider, each as its parameters. */
function authorizationRequests(context: BrowserContext, provider: TestOidcProvider): Array<Record<string, string>> {
  const requests: Array<Record<string, string>> = [];
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === provider.issuer && url.pathname === '/auth') requests.push(Object.fromEntries(url.searchParams));
  });
  return requests;
}

/** Everything the tab keeps in sessionStorage, as one string. */
async function storedText(page: Page): Promise<string> {
  return (await page.evaluate(`JSON.stringify(Object.entries(sessionStorage))`)) as string;
}

/** Every URL of the tab's session history (back and forward), as the browser keeps them. */
async function historyUrls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { entries } = (await cdp.send('Page.getNavigationHistory')) as { entries: Array<{ url: string }> };
    return entries.map((entry) => entry.url);
  } finally {
    await cdp.detach();
  }
}

/** The names of the query and fragment parameters of a URL. */
function parameterNames(address: string): string[] {
  const url = new URL(address);
  return [...url.searchParams.keys(), ...new URLSearchParams(url.hash.slice(1)).keys()];
}

async function signInAtProvider(page: Page, provider: TestOidcProvider, user: string): Promise<void> {
  await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).click();
  await page.waitForURL((url) => url.href.startsWith(provider.issuer));
  await page.getByLabel('User name').fill(user);
  await page.getByRole('button', { name: 'Continue' }).click();
}

for (const database of testDatabases()) {
  describe(`dashboard sign-in with an OpenID Connect provider [${database.name}]`, function () {
    const browser = useBrowser();
    let provider: TestOidcProvider;
    let app: RunningServer;

    before(async function () {
      provider = await startOidcProvider({
        clientId: CLIENT_ID,
        audience: AUDIENCE,
        permissions: PERMISSIONS,
        users: { carol: { name: 'Carol Provider', email: 'carol@provider.test' } },
      });
      app = await startTestServer(database, { ...provider.env, OIDC_DASHBOARD_PROVIDER_NAME: PROVIDER_NAME });
      provider.registerDashboard(app.url);
    });
    after(async () => {
      await app?.stop();
      await provider?.stop();
    });

    it('signs in at the provider and comes back signed in, with no token in any URL, and signs out at the provider too', async () => {
      const { page, context, pageErrors, cspViolations } = await openPage(browser());
      const serviceRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(app.url)) serviceRequests.push(request.url());
      });
      try {
        // Signed out on a view: the sign-in view, with the provider's button.
        await page.goto(`${app.url}/ui/traces`);
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        await screenshot(page, `oidc-sign-in-${database.name}`);
        expect(await accessibilityViolations(page), 'sign-in view with the provider').to.deep.equal([]);

        await signInAtProvider(page, provider, 'carol');
        await page.getByTestId('user-name').filter({ hasText: 'Carol Provider' }).waitFor();
        expect(provider.logins).to.deep.equal(['carol']);
        // Back on the view the user started from, with nothing in the address bar but its path.
        expect(page.url()).to.equal(`${app.url}/ui/traces`);

        // The session holds the provider's access token for the service, not the ID token.
        const token = (await sessionToken(page)) as string;
        const claims = decodeJwt(token);
        expect(claims).to.include({ iss: provider.issuer, aud: AUDIENCE, sub: 'carol', client_id: CLIENT_ID });
        expect(String(claims.scope).split(' ')).to.include.members(['create:organizations', 'read:traces']);

        // Neither the code nor any token in the history or in a request that reached the service.
        const history = await historyUrls(page);
        expect(
          history.some((url) => url.startsWith(provider.issuer)),
          'the provider is in the history',
        ).to.equal(true);
        for (const url of [...history, ...serviceRequests]) {
          expect(parameterNames(url), url).not.to.include.oneOf(['code', 'access_token', 'id_token', 'state']);
          expect(url).not.to.include(token);
        }
        expect(
          serviceRequests.some((url) => url.includes('/ui/sign-in/callback')),
          'the callback page was loaded from the service',
        ).to.equal(true);

        // The token works on the management API: a new organization, owned by this user.
        const created = (await page.evaluate(`fetch('/organizations', {
          method: 'POST',
          headers: { Authorization: 'Bearer ' + JSON.parse(sessionStorage.getItem('spanledger.session')).token, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Made via OIDC' }),
        }).then(async (response) => ({ status: response.status, body: await response.json() }))`)) as {
          status: number;
          body: { id: string; role: string };
        };
        expect(created.status).to.equal(201);
        expect(created.body.role, 'the signed-in user owns it').to.equal('owner');
        await screenshot(page, `oidc-signed-in-${database.name}`);

        // The ID token is kept beside the access token, for sign-out only.
        const kept = await providerSignOut(page);
        expect(kept?.endSessionEndpoint).to.equal(`${provider.issuer}/session/end`);
        expect(kept?.clientId).to.equal(CLIENT_ID);
        const idToken = kept?.idToken ?? expect.fail('no ID token kept');
        expect(decodeJwt(idToken)).to.include({ iss: provider.issuer, aud: CLIENT_ID, sub: 'carol' });

        // Sign-out: the provider's end_session_endpoint, with the hint, the client and the way back.
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/session/end`));
        const endSession = new URL(page.url()).searchParams;
        expect(Object.fromEntries(endSession)).to.deep.equal({
          id_token_hint: idToken,
          client_id: CLIENT_ID,
          post_logout_redirect_uri: `${app.url}/ui/sign-in`,
        });
        await page.getByRole('button', { name: 'Yes, sign me out' }).click();
        await page.waitForURL(`${app.url}/ui/sign-in`);
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        expect(page.url()).to.equal(`${app.url}/ui/sign-in`);
        expect(await sessionToken(page)).to.equal(undefined);
        const stored = await storedText(page);
        expect(stored).not.to.include(token);
        expect(stored).not.to.include(idToken);

        // The provider's session is over: signing in again asks who the user is.
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).click();
        await page.waitForURL((url) => url.href.startsWith(provider.issuer));
        await page.getByLabel('User name').waitFor();
        await page.getByLabel('User name').fill('carol');
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByTestId('user-name').filter({ hasText: 'Carol Provider' }).waitFor();
        expect(provider.logins).to.deep.equal(['carol', 'carol']);
        expect(pageErrors).to.deep.equal([]);
        expect(cspViolations).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it("signs a new tab in with the provider's session on the page it was asked for, renews a refused token the same way, and signs every tab out", async () => {
      const { page, context, pageErrors, cspViolations } = await openPage(browser());
      const asked = authorizationRequests(context, provider);
      try {
        await page.goto(`${app.url}/ui/`);
        await signInAtProvider(page, provider, 'erin');
        await page.getByTestId('user-name').filter({ hasText: 'erin' }).waitFor();
        // The browser remembers which provider it signed in with, and nothing secret.
        expect(await providerMarker(page)).to.deep.equal({ issuer: provider.issuer, client_id: CLIENT_ID });
        const token = (await sessionToken(page)) as string;
        expect((await page.evaluate(`JSON.stringify(Object.entries(localStorage))`)) as string).not.to.include(token);
        expect(asked.map((parameters) => parameters.prompt)).to.deep.equal([undefined]);

        // A deep link in a new tab: signed in there without a click, by the provider's session.
        const second = await context.newPage();
        await second.goto(`${app.url}/ui/metrics`);
        await second.getByTestId('user-name').filter({ hasText: 'erin' }).waitFor();
        expect(second.url()).to.equal(`${app.url}/ui/metrics`);
        expect(asked.map((parameters) => parameters.prompt)).to.deep.equal([undefined, 'none']);
        expect(provider.logins.filter((login) => login === 'erin')).to.deep.equal(['erin']);
        expect(await sessionToken(second))
          .to.be.a('string')
          .and.not.equal(token);

        // A token the service refuses (401): one silent renewal, back on the same page.
        await page.goto(`${app.url}/ui/traces`);
        await page.getByTestId('user-name').filter({ hasText: 'erin' }).waitFor();
        await page.evaluate(`sessionStorage.setItem('spanledger.session', JSON.stringify({
          ...JSON.parse(sessionStorage.getItem('spanledger.session')), token: 'refused.by.service' }))`);
        await Promise.all([page.waitForRequest((request) => request.url().startsWith(`${provider.issuer}/auth?`)), page.reload()]);
        await page.waitForURL(`${app.url}/ui/traces`);
        await page.getByTestId('user-name').filter({ hasText: 'erin' }).waitFor();
        expect(await sessionToken(page))
          .to.be.a('string')
          .and.not.equal('refused.by.service');
        expect(asked.map((parameters) => parameters.prompt)).to.deep.equal([undefined, 'none', 'none']);

        // Sign-out in one tab: the other shows the sign-in view, and a new tab does not sign in by
        // itself, even while the provider's session still lives (its confirmation not yet given).
        await second.getByRole('button', { name: 'Sign out' }).click();
        await second.waitForURL((url) => url.href.startsWith(`${provider.issuer}/session/end`));
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        expect(await sessionToken(page)).to.equal(undefined);
        const third = await context.newPage();
        await third.goto(`${app.url}/ui/traces`);
        await third.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        expect(await providerMarker(third)).to.equal(null);
        expect(asked).to.have.length(3);
        await second.getByRole('button', { name: 'Yes, sign me out' }).click();
        await second.waitForURL(`${app.url}/ui/sign-in`);
        await second.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        expect(asked).to.have.length(3);
        expect(pageErrors).to.deep.equal([]);
        expect(cspViolations).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it("shows the sign-in view, once and without a loop, when the provider's session has ended", async () => {
      const { page, context, pageErrors, cspViolations } = await openPage(browser());
      const asked = authorizationRequests(context, provider);
      try {
        await page.goto(`${app.url}/ui/`);
        await signInAtProvider(page, provider, 'frank');
        await page.getByTestId('user-name').filter({ hasText: 'frank' }).waitFor();
        // The provider's session ends outside the dashboard (its own sign-out page): the marker stays.
        const elsewhere = await context.newPage();
        await elsewhere.goto(`${provider.issuer}/session/end`);
        await elsewhere.getByRole('button', { name: 'Yes, sign me out' }).click();
        await elsewhere.waitForURL(`${provider.issuer}/session/end/success`);
        expect(await providerMarker(page)).to.deep.equal({ issuer: provider.issuer, client_id: CLIENT_ID });

        // A new tab tries once, hears login_required, and shows the sign-in view on the asked page.
        const next = await context.newPage();
        await next.goto(`${app.url}/ui/metrics`);
        await next.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        expect(next.url()).to.equal(`${app.url}/ui/metrics`);
        expect(await next.getByRole('alert').count(), 'no error for an ended provider session').to.equal(0);
        await next.reload();
        await next.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        await next.waitForTimeout(500);
        expect(asked.map((parameters) => parameters.prompt)).to.deep.equal([undefined, 'none']);
        expect(await sessionToken(next)).to.equal(undefined);

        // A click signs in again, with the provider's form, and lands on the asked page.
        await signInAtProvider(next, provider, 'frank');
        await next.getByTestId('user-name').filter({ hasText: 'frank' }).waitFor();
        expect(next.url()).to.equal(`${app.url}/ui/metrics`);
        expect(pageErrors).to.deep.equal([]);
        expect(cspViolations).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('signs out of a link sign-in in the tab alone, even with a provider that offers sign-out', async () => {
      const { page, context, pageErrors, cspViolations } = await openPage(browser());
      const providerRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(provider.issuer)) providerRequests.push(request.url());
      });
      try {
        await page.goto(await signInLink(app, { subject: `link-user-${database.name}`, name: 'Lin Link' }));
        await page.getByTestId('user-name').filter({ hasText: 'Lin Link' }).waitFor();
        expect(await providerSignOut(page)).to.equal(undefined);
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        expect(page.url().startsWith(app.url), page.url()).to.equal(true);
        expect(await sessionToken(page)).to.equal(undefined);
        expect(providerRequests.filter((url) => url.includes('/session/end'))).to.deep.equal([]);
        expect(pageErrors).to.deep.equal([]);
        expect(cspViolations).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it("shows the provider's refusal and signs nobody in", async () => {
      const { page, context, pageErrors, cspViolations } = await openPage(browser());
      try {
        await page.goto(`${app.url}/ui/sign-in`);
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).click();
        await page.waitForURL((url) => url.href.startsWith(provider.issuer));
        await page.getByRole('button', { name: 'Deny' }).click();
        const alert = page.getByRole('alert');
        await alert.filter({ hasText: `Access was denied by ${PROVIDER_NAME}` }).waitFor();
        expect(await alert.textContent()).to.include('access_denied: The user denied the sign-in');
        expect(page.url()).to.equal(`${app.url}/ui/sign-in`);
        expect(await sessionToken(page)).to.equal(undefined);
        // The way back in is still offered.
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        await screenshot(page, `oidc-sign-in-denied-${database.name}`);
        expect(await accessibilityViolations(page), 'sign-in view with an error').to.deep.equal([]);
        expect(pageErrors).to.deep.equal([]);
        expect(cspViolations).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('refuses an answer whose state is not the one this tab sent, and one no sign-in in this tab asked for', async () => {
      const { page, context, pageErrors } = await openPage(browser());
      try {
        await page.goto(`${app.url}/ui/sign-in`);
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).click();
        await page.waitForURL((url) => url.href.startsWith(provider.issuer));
        // A forged answer (as a link an attacker made would bring) while this tab's sign-in is pending.
        const forged = `${app.url}/ui/sign-in/callback#code=forged-code&state=forged-state&iss=${encodeURIComponent(provider.issuer)}`;
        await page.goto(forged);
        await page.getByRole('alert').filter({ hasText: 'state' }).waitFor();
        expect(page.url()).to.equal(`${app.url}/ui/sign-in`);
        expect(await sessionToken(page)).to.equal(undefined);
        // The pending sign-in was used up: the same answer again is not taken either.
        await page.goto(forged);
        await page
          .getByRole('alert')
          .filter({ hasText: `No sign-in with ${PROVIDER_NAME} was started in this tab` })
          .waitFor();
        expect(await sessionToken(page)).to.equal(undefined);
        expect(pageErrors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  });

  describe(`dashboard sign-out with a provider that offers no end_session_endpoint [${database.name}]`, function () {
    const browser = useBrowser();
    let provider: TestOidcProvider;
    let app: RunningServer;

    before(async function () {
      provider = await startOidcProvider({ clientId: CLIENT_ID, audience: AUDIENCE, permissions: PERMISSIONS, endSession: false });
      app = await startTestServer(database, { ...provider.env, OIDC_DASHBOARD_PROVIDER_NAME: PROVIDER_NAME });
      provider.registerDashboard(app.url);
    });
    after(async () => {
      await app?.stop();
      await provider?.stop();
    });

    it("forgets the tokens in the tab and leaves the provider's session alone", async () => {
      const { page, context, pageErrors, cspViolations } = await openPage(browser());
      const providerRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(provider.issuer)) providerRequests.push(request.url());
      });
      try {
        await page.goto(`${app.url}/ui/`);
        await signInAtProvider(page, provider, 'dave');
        await page.getByTestId('user-name').filter({ hasText: 'dave' }).waitFor();
        // Nothing to sign out with at the provider: no ID token kept.
        expect(await providerSignOut(page)).to.equal(undefined);
        expect(await storedText(page)).not.to.include('idToken');

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).waitFor();
        expect(page.url().startsWith(app.url), page.url()).to.equal(true);
        expect(await sessionToken(page)).to.equal(undefined);
        expect(providerRequests.filter((url) => url.includes('/session/end'))).to.deep.equal([]);

        // The provider still knows the user: signing in again asks for nothing.
        await page.getByRole('button', { name: `Sign in with ${PROVIDER_NAME}` }).click();
        await page.getByTestId('user-name').filter({ hasText: 'dave' }).waitFor();
        expect(provider.logins).to.deep.equal(['dave']);
        expect(pageErrors).to.deep.equal([]);
        expect(cspViolations).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  });

  describe(`dashboard settings and CSP for an OpenID Connect provider [${database.name}]`, function () {
    /** A provider that only publishes a discovery document, whose token endpoint lives elsewhere. */
    let discovery: http.Server;
    let discoveryIssuer: string;
    let discoveryRequests = 0;
    let closedIssuer: string;
    const running: RunningServer[] = [];

    async function start(env: Record<string, string>): Promise<RunningServer> {
      const server = await startTestServer(database, env);
      running.push(server);
      return server;
    }

    async function connectSources(url: string): Promise<string[]> {
      const response = await fetch(`${url}/ui/`);
      expect(response.status).to.equal(200);
      const policy = response.headers.get('content-security-policy') ?? '';
      const connect = policy.split('; ').find((directive) => directive.startsWith('connect-src ')) ?? '';
      return connect.split(' ').slice(1);
    }

    before(async function () {
      await ensureUiBuilt();
      discovery = http.createServer((req, res) => {
        discoveryRequests += 1;
        if (req.url !== '/.well-known/openid-configuration') return void res.writeHead(404).end();
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(
          JSON.stringify({
            issuer: discoveryIssuer,
            authorization_endpoint: `${discoveryIssuer}/auth`,
            token_endpoint: 'https://tokens.example.test/oauth/token',
            jwks_uri: `${discoveryIssuer}/jwks`,
          }),
        );
      });
      await new Promise<void>((resolve) => discovery.listen(0, '127.0.0.1', resolve));
      discoveryIssuer = `http://127.0.0.1:${(discovery.address() as AddressInfo).port}`;
      // A port that was free a moment ago and has no listener: a provider that is down.
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      closedIssuer = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
    });
    after(async () => {
      for (const server of running) await server.stop();
      discovery?.closeAllConnections();
      await new Promise<void>((resolve) => (discovery ? discovery.close(() => resolve()) : resolve()));
    });

    it('without a dashboard client: no provider in /ui/config.json, connections to the service only', async () => {
      const app = await start({});
      expect(await (await fetch(`${app.url}/ui/config.json`)).json()).to.deep.equal({ oidc: null });
      expect(await connectSources(app.url)).to.deep.equal(["'self'"]);
      // The service trusts a provider's tokens, yet the dashboard offers no sign-in with it.
      const trusting = await start({ OIDC_ISSUER: discoveryIssuer, OIDC_AUDIENCE: AUDIENCE, OIDC_JWKS_URL: `${discoveryIssuer}/jwks` });
      expect(await (await fetch(`${trusting.url}/ui/config.json`)).json()).to.deep.equal({ oidc: null });
    });

    it("names the provider in /ui/config.json and allows its token endpoint's origin, read once from its discovery document", async () => {
      const app = await start({
        OIDC_ISSUER: discoveryIssuer,
        OIDC_AUDIENCE: AUDIENCE,
        OIDC_JWKS_URL: `${discoveryIssuer}/jwks`,
        OIDC_DASHBOARD_CLIENT_ID: CLIENT_ID,
      });
      const config = await fetch(`${app.url}/ui/config.json`);
      expect(config.headers.get('cache-control')).to.equal('no-store');
      expect(await config.json()).to.deep.equal({
        oidc: {
          issuer: discoveryIssuer,
          client_id: CLIENT_ID,
          scope: OIDC_DASHBOARD_DEFAULT_SCOPE,
          audience: AUDIENCE,
          name: new URL(discoveryIssuer).host,
        },
      });
      const before = discoveryRequests;
      expect(await connectSources(app.url)).to.deep.equal(["'self'", discoveryIssuer, 'https://tokens.example.test']);
      expect(await connectSources(app.url)).to.deep.equal(["'self'", discoveryIssuer, 'https://tokens.example.test']);
      expect(discoveryRequests - before, 'the discovery document is kept').to.equal(1);
    });

    it('keeps serving the page and the link sign-in while the provider is down', async () => {
      const app = await start({
        OIDC_ISSUER: closedIssuer,
        OIDC_AUDIENCE: AUDIENCE,
        OIDC_JWKS_URL: `${closedIssuer}/jwks`,
        OIDC_DASHBOARD_CLIENT_ID: CLIENT_ID,
        OIDC_DASHBOARD_SCOPE: 'openid read:traces',
      });
      expect(((await (await fetch(`${app.url}/ui/config.json`)).json()) as { oidc: { scope: string } }).oidc.scope).to.equal(
        'openid read:traces',
      );
      // The issuer's origin alone: the browser still reaches it for discovery once it is back.
      expect(await connectSources(app.url)).to.deep.equal(["'self'", closedIssuer]);
      const link = await signInLink(app, { subject: 'while-provider-down', name: 'Down Time' });
      const exchanged = await fetch(`${app.url}/ui/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ link: new URL(link).hash.replace('#link=', '') }),
      });
      expect(exchanged.status).to.equal(200);
      const { access_token: token } = (await exchanged.json()) as { access_token: string };
      const me = await fetch(`${app.url}/users/me`, { headers: { Authorization: `Bearer ${token}` } });
      expect(me.status).to.equal(200);
      expect(await me.json()).to.include({ name: 'Down Time' });
    });
  });
}
