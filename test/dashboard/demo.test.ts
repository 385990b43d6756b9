// Issue 14's "done when", as a new user does it: with the service running, `npm run seed:demo`
// prints a one-time sign-in link; opened in Chromium, it shows the demo organization, its traces
// (the same as the API lists), a waterfall and their cost, without writing any JSON.
import { expect } from 'chai';
import { accessibilityViolations, openPage, screenshot, useBrowser } from '../support/dashboard.js';
import { runSeed } from '../support/seed-demo-run.js';
import { onEachDatabase } from '../support/test-server.js';

onEachDatabase('dashboard on the demo data', (app) => {
  const browser = useBrowser();

  it('opens the link seed:demo prints on the demo traces, a waterfall and their cost', async function () {
    this.timeout(120_000);
    const { config } = app();
    const seeded = await runSeed(['--traces', '6'], {
      PORT: new URL(app().url).port,
      HOST: '127.0.0.1',
      SIGNING_KEY_FILE: config.auth.signingKeyFile,
      TOKEN_ISSUER: config.auth.tokenIssuer,
      TOKEN_AUDIENCE: config.auth.tokenAudience,
    });
    expect(seeded.code, seeded.stderr).to.equal(0);
    const link = /^\s*(http:\/\/\S+\/ui\/sign-in#link=\S+)$/m.exec(seeded.stdout)?.[1];
    expect(link, seeded.stdout).to.be.a('string');
    const token = /^\s*export TOKEN=(\S+)$/m.exec(seeded.stdout)?.[1] as string;
    const appId = /^\s*export APP=(app_\w+)$/m.exec(seeded.stdout)?.[1] as string;
    const end = new Date(Date.now() + 60_000);
    const window = new URLSearchParams({ start_time: new Date(end.getTime() - 2 * 86_400_000).toISOString(), end_time: end.toISOString() });
    const api = async (path: string) => {
      const response = await fetch(`${app().url}${path}?${window}&limit=100`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId, 'Content-Type': 'application/json' },
        body: '{}',
      });
      return (await response.json()) as {
        pagination: { total: number };
        trace_count: number;
        metrics: { total_cost: { mean: number } };
      } & Record<string, unknown>;
    };
    const listed = await api('/traces');

    const { page, context, pageErrors, cspViolations, dialogs } = await openPage(browser());
    try {
      await page.goto(link as string);
      await page.getByTestId('user-name').filter({ hasText: 'Demo User' }).waitFor();
      // The link lands on the demo application's traces (its `next`), with no click.
      await page.getByRole('heading', { level: 1, name: 'Traces' }).waitFor();
      await page.getByTestId('traces-count').waitFor();
      // The API's window, so that the two lists are the same whatever the clock did in between.
      const shown = new URL(page.url());
      expect(shown.searchParams.get('app')).to.equal(appId);
      shown.searchParams.set('from', window.get('start_time') as string);
      shown.searchParams.set('to', window.get('end_time') as string);
      await page.goto(shown.toString());
      await page
        .getByTestId('traces-count')
        .filter({ hasText: `of ${listed.pagination.total.toLocaleString('en-US')}` })
        .waitFor();
      expect(listed.pagination.total).to.be.at.least(6);
      await screenshot(page, `demo-traces-${app().database}`);
      expect(await accessibilityViolations(page), 'traces view on the demo').to.deep.equal([]);

      await page.locator('table.traces-table tbody tr').first().getByRole('link').first().click();
      await page.locator('li.wf-row').first().waitFor();
      expect(await page.locator('li.wf-row').count()).to.be.greaterThan(1);
      await screenshot(page, `demo-waterfall-${app().database}`);

      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Metrics' }).click();
      const cost = page.getByTestId('total-cost');
      await cost.waitFor();
      await page.locator('#cost-chart canvas').first().waitFor();
      expect(Number(await cost.getAttribute('data-value'))).to.be.greaterThan(0);
      await screenshot(page, `demo-metrics-${app().database}`);
      expect(pageErrors).to.deep.equal([]);
      expect(cspViolations).to.deep.equal([]);
      expect(dialogs).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
