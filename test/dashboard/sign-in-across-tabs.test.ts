// The dashboard's sign-in session (docs/dashboard.md, "Signing in"), in a real Chromium and over
// HTTP: a trace opened by Ctrl+click or a pasted deep link opens signed in on the asked page, a
// deep link opened while signed out is where the sign-in lands, sign-out in one tab signs the
// others out at once; the cookies' flags; token and sign-out calls without the CSRF token or from
// another site are refused; losing the last membership ends the session at once, and so do the
// idle and the absolute lifetime (the service's clock, moved by the test).
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect } from 'chai';
import { seedApiKey, seedApplication, seedOrganization, seedUser, type SeededUser } from '../support/accounts.js';
import { openPage, signInLink, useBrowser } from '../support/dashboard.js';
import { expectNoPageFailures } from '../support/dashboard-pages.js';
import { expectExported, exportSpans, recordTrace } from '../support/otel.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const IDLE_SECONDS = 600;
const MAX_SECONDS = 1800;

/** The service's clock: now, moved on by the tests of the lifetimes. */
let clockOffsetMs = 0;
const clock = () => Date.now() + clockOffsetMs;

interface Seeded {
  owner: SeededUser;
  member: SeededUser;
  orgId: string;
  otherOrgId: string;
  appId: string;
  traceId: string;
}

async function seed(app: TestServer): Promise<Seeded> {
  const owner = await seedUser(app, 'owner');
  const member = await seedUser(app, 'member');
  const orgId = await seedOrganization(app.server.knex, [
    [owner.userId, 'owner'],
    [member.userId, 'member'],
  ]);
  const otherOrgId = await seedOrganization(app.server.knex, [[owner.userId, 'owner']]);
  const appId = await seedApplication(app.server.knex, orgId);
  const key = await seedApiKey(app.server.knex, appId, ['write:traces']);
  const recorded = await recordTrace(Date.now() - 3_600_000, { service: 'shop', name: 'POST /checkout' }, [
    { service: 'payments', name: 'charge card' },
  ]);
  const exporter = new OTLPTraceExporter({
    url: `${app.url}/v1/traces`,
    headers: { Authorization: `Basic ${Buffer.from(`${key.apiKey}:${key.secret}`).toString('base64')}` },
  });
  expectExported(await exportSpans(exporter, recorded.spans));
  await exporter.shutdown();
  return { owner, member, orgId, otherOrgId, appId, traceId: recorded.traceId };
}

interface Cookies {
  session: string;
  csrf: string;
  /** The Set-Cookie lines as sent. */
  lines: string[];
}

function cookiesOf(response: Response): Cookies {
  const lines = response.headers.getSetCookie();
  const value = (name: string) => /^[^=]+=([^;]*)/.exec(lines.find((line) => line.startsWith(`${name}=`)) ?? '')?.[1] ?? '';
  return { session: value('spanledger_session'), csrf: value('spanledger_csrf'), lines };
}

/** Signs in over HTTP as a script would, with a one-time link. */
async function linkSignIn(app: TestServer, user: SeededUser, previous?: Cookies): Promise<Cookies> {
  const link = new URL(await signInLink(app, { subject: user.subject })).hash.replace('#link=', '');
  const response = await fetch(`${app.url}/ui/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(previous ? { Cookie: `spanledger_session=${previous.session}` } : {}) },
    body: JSON.stringify({ link }),
  });
  expect(response.status).to.equal(200);
  return cookiesOf(response);
}

function tokenRequest(
  app: TestServer,
  cookies: Cookies,
  headers: Record<string, string> = { 'X-CSRF-Token': cookies.csrf },
): Promise<Response> {
  return fetch(`${app.url}/ui/session/token`, {
    method: 'POST',
    headers: { Cookie: `spanledger_session=${cookies.session}; spanledger_csrf=${cookies.csrf}`, ...headers },
  });
}

async function expectRefused(response: Response, status: number, detail: RegExp): Promise<void> {
  expect(response.status).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  expect(((await response.json()) as { detail: string }).detail).to.match(detail);
}

onEachDatabase(
  'dashboard sign-in across tabs',
  (app) => {
    let seeded: Seeded;

    before(async function () {
      this.timeout(60_000);
      seeded = await seed(app());
    });

    beforeEach(() => {
      clockOffsetMs = 0;
    });

    it('refuses token and sign-out calls without the CSRF token or from another site, with the cookie flags set', async () => {
      const cookies = await linkSignIn(app(), seeded.member);
      expect(cookies.lines).to.have.length(2);
      for (const line of cookies.lines) {
        expect(line).to.include('Path=/ui').and.to.include('SameSite=Strict').and.not.to.include('Secure');
        expect(line.includes('HttpOnly'), line).to.equal(line.startsWith('spanledger_session='));
      }
      await expectRefused(await tokenRequest(app(), cookies, {}), 403, /CSRF token/);
      await expectRefused(await tokenRequest(app(), cookies, { 'X-CSRF-Token': `${cookies.csrf.slice(1)}x` }), 403, /CSRF token/);
      await expectRefused(
        await tokenRequest(app(), cookies, { 'X-CSRF-Token': cookies.csrf, Origin: 'https://attacker.example' }),
        403,
        /same origin/,
      );
      await expectRefused(
        await tokenRequest(app(), cookies, { 'X-CSRF-Token': cookies.csrf, 'Sec-Fetch-Site': 'same-site' }),
        403,
        /same origin/,
      );
      const signInFromElsewhere = await fetch(`${app().url}/ui/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' },
        body: JSON.stringify({ link: new URL(await signInLink(app(), { subject: 'mallory' })).hash.replace('#link=', '') }),
      });
      await expectRefused(signInFromElsewhere, 403, /same origin/);

      const minted = await tokenRequest(app(), cookies, {
        'X-CSRF-Token': cookies.csrf,
        Origin: app().url,
        'Sec-Fetch-Site': 'same-origin',
      });
      expect(minted.status).to.equal(200);
      const token = (await minted.json()) as { access_token: string; expires_in: number };
      expect(token.expires_in).to.equal(300);
      const me = await fetch(`${app().url}/users/me`, { headers: { Authorization: `Bearer ${token.access_token}` } });
      expect(me.status).to.equal(200);

      const signOut = (headers: Record<string, string>) =>
        fetch(`${app().url}/ui/session`, { method: 'DELETE', headers: { Cookie: `spanledger_session=${cookies.session}`, ...headers } });
      await expectRefused(await signOut({}), 403, /CSRF token/);
      expect((await tokenRequest(app(), cookies)).status, 'a refused sign-out left the session').to.equal(200);
      const signedOut = await signOut({ 'X-CSRF-Token': cookies.csrf });
      expect(signedOut.status).to.equal(204);
      expect(signedOut.headers.getSetCookie().every((line) => line.includes('Max-Age=0'))).to.equal(true);
      await expectRefused(await tokenRequest(app(), cookies), 401, /ended/);

      // A new link opened in the same browser replaces its session.
      const first = await linkSignIn(app(), seeded.member);
      const second = await linkSignIn(app(), seeded.member, first);
      await expectRefused(await tokenRequest(app(), first), 401, /ended/);
      expect((await tokenRequest(app(), second)).status).to.equal(200);
    });

    it('ends the session at once when its user loses their last membership, and after the idle and the absolute lifetime', async () => {
      const removed = await seedUser(app(), 'removed');
      const add = await fetch(`${app().url}/organizations/${seeded.otherOrgId}/members`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${seeded.owner.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: `${removed.subject}@example.com`, role: 'member' }),
      });
      expect(add.status).to.equal(201);
      const addAgain = await fetch(`${app().url}/organizations/${seeded.orgId}/members`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${seeded.owner.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: `${removed.subject}@example.com`, role: 'member' }),
      });
      expect(addAgain.status).to.equal(201);
      const cookies = await linkSignIn(app(), removed);
      const removeFrom = (orgId: string) =>
        fetch(`${app().url}/organizations/${orgId}/members/${removed.userId}`, {
          method: 'DELETE',
          headers: { Authorization: `Bearer ${seeded.owner.token}` },
        });
      expect((await removeFrom(seeded.otherOrgId)).status).to.equal(200);
      expect((await tokenRequest(app(), cookies)).status, 'one membership left: still signed in').to.equal(200);
      expect((await removeFrom(seeded.orgId)).status).to.equal(200);
      const ended = await tokenRequest(app(), cookies);
      await expectRefused(ended, 401, /ended/);
      expect(ended.headers.getSetCookie().filter((line) => line.includes('Max-Age=0'))).to.have.length(2);

      // Idle: each token request moves the idle expiry on, until a whole idle lifetime passes without one.
      const idle = await linkSignIn(app(), seeded.member);
      clockOffsetMs += (IDLE_SECONDS - 10) * 1000;
      expect((await tokenRequest(app(), idle)).status).to.equal(200);
      clockOffsetMs += (IDLE_SECONDS - 10) * 1000;
      expect((await tokenRequest(app(), idle)).status, 'used within the idle lifetime').to.equal(200);
      clockOffsetMs += (IDLE_SECONDS + 1) * 1000;
      await expectRefused(await tokenRequest(app(), idle), 401, /ended/);

      // Absolute: used all along, it still ends MAX_SECONDS after sign-in.
      const busy = await linkSignIn(app(), seeded.member);
      const signedInAt = clockOffsetMs;
      while (clockOffsetMs - signedInAt + (IDLE_SECONDS / 2) * 1000 < MAX_SECONDS * 1000) {
        clockOffsetMs += (IDLE_SECONDS / 2) * 1000;
        expect((await tokenRequest(app(), busy)).status).to.equal(200);
      }
      clockOffsetMs += (IDLE_SECONDS / 2) * 1000;
      await expectRefused(await tokenRequest(app(), busy), 401, /ended/);
    });

    // The HTTP checks above run without a browser too; these only where one is asked for.
    describe('in Chromium', () => {
      const browser = useBrowser();

      it('opens a Ctrl+clicked trace and a pasted deep link signed in, on the asked page, with the cookies out of the page’s reach', async () => {
        const watch = await openPage(browser());
        const { page, context } = watch;
        try {
          await page.goto(await signInLink(app(), { subject: seeded.member.subject }));
          await page.getByTestId('user-name').filter({ hasText: 'member' }).waitFor();
          const cookies = await context.cookies();
          const session = cookies.find((cookie) => cookie.name === 'spanledger_session');
          const csrf = cookies.find((cookie) => cookie.name === 'spanledger_csrf');
          expect(session).to.include({ httpOnly: true, sameSite: 'Strict', path: '/ui', secure: false });
          expect(csrf).to.include({ httpOnly: false, sameSite: 'Strict', path: '/ui', secure: false });
          // The page neither sees the session id nor keeps a token where it outlives the page.
          expect(await page.evaluate('document.cookie')).not.to.include('spanledger_session');
          expect(await page.evaluate('sessionStorage.length + localStorage.length')).to.equal(0);

          await page.goto(`${app().url}/ui/traces?app=${seeded.appId}`);
          const [opened] = await Promise.all([
            context.waitForEvent('page'),
            page.getByRole('link', { name: 'POST /checkout' }).click({ modifiers: ['ControlOrMeta'] }),
          ]);
          const deepLink = `${app().url}/ui/traces/${seeded.traceId}?app=${seeded.appId}`;
          await opened.waitForURL(deepLink);
          await opened.getByTestId('user-name').filter({ hasText: 'member' }).waitFor();
          await opened.locator('li.wf-row').first().waitFor();
          expect(page.url(), 'the first tab stayed on the list').to.equal(`${app().url}/ui/traces?app=${seeded.appId}`);

          const pasted = await context.newPage();
          await pasted.goto(deepLink);
          await pasted.locator('li.wf-row').first().waitFor();
          expect(pasted.url()).to.equal(deepLink);
          await expectNoPageFailures(watch);
        } finally {
          await context.close();
        }
      });

      it('opens the page a link names in `next`, and the start for a `next` outside the dashboard', async () => {
        const deepLink = `/ui/traces/${seeded.traceId}?app=${seeded.appId}`;
        for (const [next, landing] of [
          [deepLink, deepLink],
          ['https://example.com/ui/traces', '/ui/'],
          ['//example.com/ui/', '/ui/'],
        ] as const) {
          const watch = await openPage(browser());
          try {
            await watch.page.goto(`${await signInLink(app(), { subject: seeded.member.subject })}&next=${encodeURIComponent(next)}`);
            await watch.page.getByTestId('user-name').filter({ hasText: 'member' }).waitFor();
            await watch.page.waitForURL(`${app().url}${landing}`);
            await expectNoPageFailures(watch);
          } finally {
            await watch.context.close();
          }
        }
      });

      it('lands a deep link opened signed out on its page after sign-in, and signs every tab out at once', async () => {
        const watch = await openPage(browser());
        const { page: waiting, context } = watch;
        try {
          const deepLink = `${app().url}/ui/traces/${seeded.traceId}?app=${seeded.appId}`;
          await waiting.goto(deepLink);
          await waiting.getByRole('heading', { name: 'Sign in to spanledger' }).waitFor();
          expect(waiting.url(), 'the sign-in view keeps the asked page').to.equal(deepLink);

          // The link opened in another tab, as from a terminal: both tabs end on the asked page.
          const linkTab = await context.newPage();
          await linkTab.goto(await signInLink(app(), { subject: seeded.member.subject }));
          await linkTab.waitForURL(deepLink);
          await linkTab.locator('li.wf-row').first().waitFor();
          await waiting.locator('li.wf-row').first().waitFor();
          expect(waiting.url()).to.equal(deepLink);

          await linkTab.getByRole('button', { name: 'Sign out' }).click();
          await linkTab.getByRole('heading', { name: 'Sign in to spanledger' }).waitFor();
          // The other tab at once, without a request of its own.
          await waiting.getByRole('heading', { name: 'Sign in to spanledger' }).waitFor({ timeout: 3000 });
          expect((await context.cookies()).map((cookie) => cookie.name)).to.deep.equal([]);
          await waiting.reload();
          await waiting.getByRole('heading', { name: 'Sign in to spanledger' }).waitFor();
          await expectNoPageFailures(watch);
        } finally {
          await context.close();
        }
      });
    });
  },
  { DASHBOARD_SESSION_IDLE_SECONDS: String(IDLE_SECONDS), DASHBOARD_SESSION_MAX_SECONDS: String(MAX_SECONDS) },
  { clock },
);
