// Key lifecycle in the dashboard (management 1.4.0), in a real Chromium against the real service,
// on each database: a key created with an expiry shows it in the key table, the edit form clears
// and sets it, a passed expiry shows "Expired" (and the service refuses the key), and a rotation
// with a grace period keeps the old secret working, which the secret panel and the table say.
import { expect } from 'chai';
import { call } from '../support/contract.js';
import { accessibilityViolations, openPage, screenshot, useBrowser } from '../support/dashboard.js';
import { createApplication, createOrganization, expectNoPageFailures, openApplication, signIn } from '../support/dashboard-pages.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

function exportStatus(app: TestServer, apiKey: string, secret: string): Promise<number> {
  const authorization = `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}`;
  return call(app.url, 'POST', '/v1/traces', { headers: { 'Content-Type': 'application/json', Authorization: authorization }, rawBody: '{}' }).then((response) => response.status);
}

async function storedExpiry(app: TestServer, apiKey: string): Promise<number | null> {
  const row = await app.server.knex('api_keys').where({ id: apiKey }).first('expires_at');
  return row.expires_at === null ? null : Number(row.expires_at);
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

      // Create with an expiry, in the browser's local time.
      const local = '2031-05-04T10:30';
      const expected = Date.parse(await page.evaluate((value) => new Date(value).toISOString(), local));
      const form = page.getByRole('form', { name: 'Create an API key' });
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
      await app().server.knex('api_keys').where({ id: apiKey }).update({ expires_at: Date.now() - 60_000 });
      expect(await exportStatus(app(), apiKey, secret)).to.equal(401);
      await page.getByRole('button', { name: 'I have saved the secret, hide it' }).click();
      await page.reload();
      await row.getByTestId('key-expiry').getByText('Expired').waitFor();
      await screenshot(page, `key-lifecycle-expired-${app().database}`);
      expect(await accessibilityViolations(page), 'application view with an expired key').to.deep.equal([]);
      // Moving the expiry ahead in the page brings the key back.
      await row.getByRole('button', { name: 'Edit expiring exporter' }).click();
      await page.getByRole('form', { name: 'Edit expiring exporter' }).getByLabel(/^Expires/).fill(local);
      await page.getByRole('form', { name: 'Edit expiring exporter' }).getByRole('button', { name: 'Save key' }).click();
      await row.getByTestId('key-expiry').getByText('Expired').waitFor({ state: 'detached' });
      expect(await row.getByTestId('key-expiry').locator('time').getAttribute('datetime')).to.equal(new Date(expected).toISOString());
      expect(await exportStatus(app(), apiKey, secret)).to.equal(200);

      // Rotate leaving the old secret an hour: both work; the panel and the row say until when.
      await row.getByRole('button', { name: 'Rotate secret of expiring exporter' }).click();
      await page.getByRole('group', { name: 'Rotate secret of expiring exporter' }).getByLabel('The current secret').selectOption({ label: 'works for 1 more hour' });
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
});
