// Key lifecycle in the dashboard (management 1.4.0), in a real Chromium against the real service,
// on each database: a key asked for without a permission is refused in words beside the
// permissions; a key created with an expiry shows it in the key table, the edit form clears
// and sets it, a passed expiry shows "Expired" (and the service refuses the key), and a rotation
// with a grace period keeps the old secret working, which the secret panel and the table say.
// "Last used" follows a key's use without a reload: when the page becomes visible again, and on
// the list's interval while it stays visible (the page's clock run forward by Playwright).
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { call } from '../support/contract.js';
import { accessibilityViolations, openPage, screenshot, useBrowser } from '../support/dashboard.js';
import {
  createApplication,
  createKey,
  createOrganization,
  expectNoPageFailures,
  openApplication,
  signIn,
} from '../support/dashboard-pages.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';
import { formatDateTime } from '../../ui/src/time-format.js';

function exportStatus(app: TestServer, apiKey: string, secret: string): Promise<number> {
  const authorization = `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}`;
  return call(app.url, 'POST', '/v1/traces', {
    headers: { 'Content-Type': 'application/json', Authorization: authorization },
    rawBody: '{}',
  }).then((response) => response.status);
}

async function storedExpiry(app: TestServer, apiKey: string): Promise<number | null> {
  const row = await app.server.knex('api_keys').where({ id: apiKey }).first('expires_at');
  return row.expires_at === null ? null : Number(row.expires_at);
}

async function storedLastUsed(app: TestServer, apiKey: string): Promise<number | null> {
  const row = await app.server.knex('api_keys').where({ id: apiKey }).first('last_used_at');
  return row.last_used_at === null ? null : Number(row.last_used_at);
}

/** ui/src/components/api-key-table.tsx, KEYS_REFRESH_MS. */
const KEYS_REFRESH_MS = 30_000;

/**
 * Headless Chromium keeps every page visible (another tab or a minimized window does not hide it),
 * so the page is told what a browser would say when its tab is left and shown again.
 */
async function setVisibility(page: Page, state: 'hidden' | 'visible'): Promise<void> {
  await page.evaluate(`(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${state}' });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${state === 'hidden'} });
    document.dispatchEvent(new Event('visibilitychange'));
  })()`);
}

onEachDatabase('dashboard key lifecycle', (app) => {
  const browser = useBrowser();

  it('sets, clears and shows a key expiry, marks an expired key, and rotates with a grace period', async function () {
    this.timeout(120_000);
    const watch = await openPage(browser());
    const { page, context } = watch;
    try {
      await signIn(watch, app(), { subject: `ui-keys-${app().database}`, email: `keys-${app().database}@example.com`, name: 'Kim Keys' });
      await createOrganization(page, 'Key Org');
      await createApplication(page, 'Key app');
      await openApplication(page, 'Key app');

      // No permission at all: the service's 422 in words, inside the permissions it names.
      const form = page.getByRole('form', { name: 'Create an API key' });
      await form.getByLabel('Key name').fill('no permission');
      await form.getByRole('checkbox', { name: /^write:traces/ }).uncheck();
      await form.getByRole('button', { name: 'Create API key' }).click();
      const permissions = form.getByRole('group', { name: 'Permissions of the new key' });
      await permissions.getByText('Choose at least one.').waitFor();
      expect(await permissions.getAttribute('aria-invalid')).to.equal('true');
      expect(await form.getByRole('alert').innerText()).to.equal('The key was not created: correct the field marked above');
      expect(await form.innerText()).not.to.include('should have at least');
      expect(await accessibilityViolations(page), 'key form with a refused field').to.deep.equal([]);
      await form.getByRole('checkbox', { name: /^write:traces/ }).check();

      // Create with an expiry, in the browser's local time.
      const local = '2031-05-04T10:30';
      const expected = Date.parse(await page.evaluate((value) => new Date(value).toISOString(), local));
      await form.getByLabel('Key name').fill('expiring exporter');
      await form.getByLabel(/^Expires/).fill(local);
      await form.getByRole('button', { name: 'Create API key' }).click();
      const panel = page.getByTestId('key-secret-panel');
      await panel.waitFor();
      const apiKey = await panel.getByTestId('api-key').innerText();
      const secret = await panel.getByTestId('api-secret').innerText();
      expect(await panel.innerText()).to.include('they stop when the key expires');
      expect(await storedExpiry(app(), apiKey)).to.equal(expected);
      const row = page.getByTestId('api-keys').getByRole('row').filter({ hasText: apiKey });
      expect(await row.getByTestId('key-expiry').locator('time').getAttribute('datetime')).to.equal(new Date(expected).toISOString());
      await screenshot(page, `key-lifecycle-expiring-${app().database}`);
      expect(await accessibilityViolations(page), 'application view with an expiring key').to.deep.equal([]);

      // Edit: clear the expiry (never), then the name alone leaves it cleared.
      await row.getByRole('button', { name: 'Edit expiring exporter' }).click();
      const edit = page.getByRole('form', { name: 'Edit expiring exporter' });
      expect(await edit.getByLabel(/^Expires/).inputValue()).to.equal(local);
      await edit.getByLabel(/^Expires/).fill('');
      await edit.getByRole('button', { name: 'Save key' }).click();
      await row.getByTestId('key-expiry').getByText('never').waitFor();
      expect(await storedExpiry(app(), apiKey)).to.equal(null);

      // A passed expiry (the stored instant moved back, as a clock would): "Expired", and refused.
      await app()
        .server.knex('api_keys')
        .where({ id: apiKey })
        .update({ expires_at: Date.now() - 60_000 });
      expect(await exportStatus(app(), apiKey, secret)).to.equal(401);
      await page.getByRole('button', { name: 'I have saved the secret, hide it' }).click();
      await page.reload();
      await row.getByTestId('key-expiry').getByText('Expired').waitFor();
      await screenshot(page, `key-lifecycle-expired-${app().database}`);
      expect(await accessibilityViolations(page), 'application view with an expired key').to.deep.equal([]);
      // Moving the expiry ahead in the page brings the key back.
      await row.getByRole('button', { name: 'Edit expiring exporter' }).click();
      await page
        .getByRole('form', { name: 'Edit expiring exporter' })
        .getByLabel(/^Expires/)
        .fill(local);
      await page.getByRole('form', { name: 'Edit expiring exporter' }).getByRole('button', { name: 'Save key' }).click();
      await row.getByTestId('key-expiry').getByText('Expired').waitFor({ state: 'detached' });
      expect(await row.getByTestId('key-expiry').locator('time').getAttribute('datetime')).to.equal(new Date(expected).toISOString());
      expect(await exportStatus(app(), apiKey, secret)).to.equal(200);

      // With times in UTC (the header's switch), the field shows and reads the expiry in UTC.
      await page.getByLabel('Times in').selectOption('utc');
      await row.getByRole('button', { name: 'Edit expiring exporter' }).click();
      const inUtc = page.getByRole('form', { name: 'Edit expiring exporter' }).getByLabel('Expires (UTC; empty: never)');
      expect(await inUtc.inputValue()).to.equal(new Date(expected).toISOString().slice(0, 16));
      await inUtc.fill('2032-01-02T03:04');
      await page.getByRole('form', { name: 'Edit expiring exporter' }).getByRole('button', { name: 'Save key' }).click();
      await row.getByTestId('key-expiry').filter({ hasText: '2032-01-02 03:04:00 UTC' }).waitFor();
      expect(await storedExpiry(app(), apiKey)).to.equal(Date.UTC(2032, 0, 2, 3, 4));
      await page.getByLabel('Times in').selectOption('local');

      // Rotate leaving the old secret an hour: both work; the panel and the row say until when.
      await row.getByRole('button', { name: 'Rotate secret of expiring exporter' }).click();
      await page
        .getByRole('group', { name: 'Rotate secret of expiring exporter' })
        .getByLabel('The current secret')
        .selectOption({ label: 'works for 1 more hour' });
      await page.getByRole('button', { name: 'Yes, rotate' }).click();
      await panel.getByRole('heading', { name: 'New secret of “expiring exporter”' }).waitFor();
      const newSecret = await panel.getByTestId('api-secret').innerText();
      expect(await panel.innerText()).to.include('The old secret keeps working until');
      await row.getByText('Previous secret works until').waitFor();
      expect(await exportStatus(app(), apiKey, secret)).to.equal(200);
      expect(await exportStatus(app(), apiKey, newSecret)).to.equal(200);
      await screenshot(page, `key-lifecycle-grace-${app().database}`);
      expect(await accessibilityViolations(page), 'application view during a rotation grace').to.deep.equal([]);

      // Rotating again at once (the default): the earlier grace ends, only the newest works.
      await row.getByRole('button', { name: 'Rotate secret of expiring exporter' }).click();
      await page.getByRole('button', { name: 'Yes, rotate' }).click();
      await panel.getByText('The old secret no longer works.').waitFor();
      const newest = await panel.getByTestId('api-secret').innerText();
      expect(await exportStatus(app(), apiKey, secret)).to.equal(401);
      expect(await exportStatus(app(), apiKey, newSecret)).to.equal(401);
      expect(await exportStatus(app(), apiKey, newest)).to.equal(200);
      // The list reloads after the rotation: the row loses its grace line then (it fails by timeout if it never does).
      await row.getByText('Previous secret works until').waitFor({ state: 'detached' });
      await expectNoPageFailures(watch);
    } finally {
      await context.close();
    }
  });

  it('shows a key\'s "Last used" change without a reload: when the page is visible again, and every 30 s while it is', async function () {
    this.timeout(120_000);
    const watch = await openPage(browser());
    const { page, context } = watch;
    const listReads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && new URL(request.url()).pathname === '/api-keys') listReads.push(request.url());
    });
    try {
      // The page's timers on Playwright's clock, so the list's interval can be run through at once.
      await page.clock.install();
      await signIn(watch, app(), {
        subject: `ui-last-used-${app().database}`,
        email: `last-used-${app().database}@example.com`,
        name: 'Lou Used',
      });
      await createOrganization(page, 'Last Used Org');
      await createApplication(page, 'Last used app');
      await openApplication(page, 'Last used app');
      // Each secret hidden before the next key, so each panel read is the new key's.
      const byVisibility = await createKey(page, 'seen when visible again', []);
      await page.getByRole('button', { name: 'I have saved the secret, hide it' }).click();
      const byInterval = await createKey(page, 'seen on the interval', []);
      await page.getByRole('button', { name: 'I have saved the secret, hide it' }).click();
      expect(byInterval.apiKey).not.to.equal(byVisibility.apiKey);
      await page.evaluate(`window.sameDocument = true`);
      const lastUsed = (apiKey: string) =>
        page.getByTestId('api-keys').getByRole('row').filter({ hasText: apiKey }).getByTestId('key-last-used');
      // As the page writes times: in the browser's zone (the default choice), ui/src/time-format.ts.
      const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
      const shown = (epochMs: number) => formatDateTime(epochMs, browserZone);
      await lastUsed(byVisibility.apiKey).getByText('never').waitFor();
      await lastUsed(byInterval.apiKey).getByText('never').waitFor();

      // Hidden: the key is used, and however long the page stays hidden it asks for nothing.
      await setVisibility(page, 'hidden');
      const readsWhileHidden = listReads.length;
      expect(await exportStatus(app(), byVisibility.apiKey, byVisibility.secret)).to.equal(200);
      const usedAt = (await storedLastUsed(app(), byVisibility.apiKey)) ?? expect.fail('the use was not recorded');
      await page.clock.runFor(5 * KEYS_REFRESH_MS);
      expect(listReads.length, 'list reads while hidden').to.equal(readsWhileHidden);
      expect(await lastUsed(byVisibility.apiKey).innerText()).to.equal('never');

      // Visible again: read at once, and the row says when the key was used.
      await setVisibility(page, 'visible');
      await lastUsed(byVisibility.apiKey)
        .getByText(await shown(usedAt), { exact: true })
        .waitFor();
      expect(listReads.length, 'one read on becoming visible').to.equal(readsWhileHidden + 1);
      // The event again without a change (browsers repeat it) reads nothing more.
      await setVisibility(page, 'visible');
      await page.waitForTimeout(500);
      expect(listReads.length, 'no read for a repeated event').to.equal(readsWhileHidden + 1);

      // Visible: the other key is used, and the next interval shows it, with one read.
      expect(await exportStatus(app(), byInterval.apiKey, byInterval.secret)).to.equal(200);
      const intervalUsedAt = (await storedLastUsed(app(), byInterval.apiKey)) ?? expect.fail('the use was not recorded');
      await page.clock.runFor(KEYS_REFRESH_MS / 2);
      expect(await lastUsed(byInterval.apiKey).innerText(), 'before the interval').to.equal('never');
      await page.clock.runFor(KEYS_REFRESH_MS / 2);
      await lastUsed(byInterval.apiKey)
        .getByText(await shown(intervalUsedAt), { exact: true })
        .waitFor();
      expect(listReads.length, 'one read per interval').to.equal(readsWhileHidden + 2);

      // A refresh that cannot reach the service says so and keeps the list shown; the next one clears it.
      const keyList = (url: URL) => url.pathname === '/api-keys';
      await page.route(keyList, (route) => route.abort('connectionrefused'));
      await page.clock.runFor(KEYS_REFRESH_MS);
      await page.getByRole('alert').filter({ hasText: 'API keys could not be loaded' }).waitFor();
      expect(await lastUsed(byInterval.apiKey).innerText()).to.equal(await shown(intervalUsedAt));
      await page.unroute(keyList);
      await page.clock.runFor(KEYS_REFRESH_MS);
      await page.getByRole('alert').filter({ hasText: 'API keys could not be loaded' }).waitFor({ state: 'detached' });
      expect(await lastUsed(byVisibility.apiKey).innerText()).to.equal(await shown(usedAt));

      expect(await page.evaluate(`window.sameDocument === true`), 'no reload').to.equal(true);
      await expectNoPageFailures(watch);
    } finally {
      await context.close();
    }
  });
});
