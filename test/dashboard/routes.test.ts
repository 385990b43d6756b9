// The dashboard's HTTP side: `/` leads to it, its page and files are served with a
// Content-Security-Policy that allows no inline script, and a one-time sign-in link is exchanged
// for a dashboard session and a first token once, and only once.
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { ensureUiBuilt, signInLink } from '../support/dashboard.js';
import { onEachDatabase } from '../support/test-server.js';

function linkToken(link: string): string {
  return new URL(link).hash.replace('#link=', '');
}

async function exchange(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/ui/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

onEachDatabase('dashboard routes', (app) => {
  before(async () => {
    await ensureUiBuilt();
  });

  it('redirects / and /ui to the dashboard', async () => {
    for (const path of ['/', '/ui']) {
      const response = await fetch(`${app().url}${path}`, { redirect: 'manual' });
      expect(response.status, path).to.equal(302);
      expect(response.headers.get('location'), path).to.equal('/ui/');
    }
  });

  it('links an icon in its page and answers /favicon.ico with one, so no page load ends in a 404', async () => {
    const page = await (await fetch(`${app().url}/ui/`)).text();
    expect(page).to.match(/<link rel="icon" type="image\/svg\+xml" href="data:image\/svg\+xml,%3Csvg%20/);
    const response = await fetch(`${app().url}/favicon.ico`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('image/x-icon');
    const icon = Buffer.from(await response.arrayBuffer());
    // An ICO header (reserved 0, type 1, one image) of a 16 × 16, 32-bit image.
    expect([...icon.subarray(0, 8)]).to.deep.equal([0, 0, 1, 0, 1, 0, 16, 16]);
    expect(icon.readUInt16LE(12)).to.equal(32);
    expect(icon.length).to.equal(6 + 16 + 40 + 16 * 16 * 4 + 16 * 4);
  });

  it('serves its page at every /ui path, with a CSP that allows no inline script', async () => {
    for (const path of ['/ui/', '/ui/traces', '/ui/traces/0123456789abcdef0123456789abcdef', '/ui/sign-in']) {
      const response = await fetch(`${app().url}${path}`);
      expect(response.status, path).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).to.include("script-src 'self'");
      expect(policy).not.to.include('unsafe-inline');
      expect(policy).not.to.include('unsafe-eval');
      expect(policy).to.include("frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
      const page = await response.text();
      expect(page).to.match(/<script type="module" src="\/ui\/assets\/main-[A-Z0-9]+\.js"><\/script>/);
      expect(page, 'no inline script').not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('serves its built files gzipped to browsers that take gzip, cached for good, and 404 for others', async () => {
    const page = await (await fetch(`${app().url}/ui/`)).text();
    const script = /src="(\/ui\/assets\/[^"]+)"/.exec(page)?.[1] as string;
    const plain = await fetch(`${app().url}${script}`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.status).to.equal(200);
    expect(plain.headers.get('content-type')).to.match(/javascript/);
    expect(plain.headers.get('content-encoding')).to.equal(null);
    const body = await plain.text();
    expect(body.length).to.be.greaterThan(1000);
    expect(plain.headers.get('cache-control')).to.include('immutable');
    // Node's fetch asks for gzip and decodes it: the same script, sent gzipped.
    const gzipped = await fetch(`${app().url}${script}`);
    expect(gzipped.headers.get('content-encoding')).to.equal('gzip');
    expect(await gzipped.text()).to.equal(body);
    for (const missing of ['/ui/assets/nothing.js', '/ui/assets/..%2F..%2Fpackage.json']) {
      const response = await fetch(`${app().url}${missing}`);
      expect(response.status, missing).to.equal(404);
      expect(await response.json()).to.have.property('detail');
    }
  });

  it('exchanges a sign-in link once for a token that works on the APIs', async () => {
    const link = await signInLink(app(), { subject: 'link-user', email: 'link@example.com', name: 'Link User' });
    const first = await exchange(app().url, { link: linkToken(link) });
    expect(first.status).to.equal(200);
    expect(first.headers.get('cache-control')).to.equal('no-store');
    const session = (await first.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(session.token_type).to.equal('Bearer');
    expect(session.expires_in).to.equal(300);
    const me = await fetch(`${app().url}/users/me`, { headers: { Authorization: `Bearer ${session.access_token}` } });
    expect(me.status).to.equal(200);
    expect(await me.json()).to.include({ email: 'link@example.com', name: 'Link User' });
    const again = await exchange(app().url, { link: linkToken(link) });
    expect(again.status).to.equal(401);
    expect(((await again.json()) as { detail: string }).detail).to.match(/already used/);
  });

  it('refuses a link used as a bearer token, an expired link, a forged one and a malformed request', async () => {
    const link = linkToken(await signInLink(app(), { subject: 'bearer-try' }));
    const asBearer = await fetch(`${app().url}/users/me`, { headers: { Authorization: `Bearer ${link}` } });
    expect(asBearer.status).to.equal(401);
    // Still unused: refusing it as a bearer did not spend it.
    expect((await exchange(app().url, { link })).status).to.equal(200);

    const expired = linkToken(await signInLink(app(), { subject: 'late' }, -60));
    const late = await exchange(app().url, { link: expired });
    expect(late.status).to.equal(401);
    expect(((await late.json()) as { detail: string }).detail).to.match(/expired/);

    const { generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ token_use: 'sign_in_link' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(app().config.auth.tokenIssuer)
      .setAudience('spanledger-dashboard-sign-in')
      .setSubject('mallory')
      .setJti('forged')
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await exchange(app().url, { link: forged })).status).to.equal(401);
    // An API token of this service is not a link either.
    const userToken = await app().server.tokens.signUserToken({ subject: 'someone', permissions: [] }, 600);
    expect((await exchange(app().url, { link: userToken })).status).to.equal(401);

    for (const body of [{}, { link: '' }, { link: 42 }, { link: 'x'.repeat(5000) }, []]) {
      const response = await exchange(app().url, body);
      expect(response.status, JSON.stringify(body).slice(0, 40)).to.equal(422);
    }
  });
});
