// The dashboard end to end, as issue 14 lists it, in one real Chromium session on each database:
// a new user signs in with a one-time link; creates an organization, an application and a key;
// a real OpenTelemetry exporter configured from the page sends spans with that key; the user finds
// a trace with a filter, opens its waterfall, sees its cost in the metrics view, sees a newly sent
// span arrive in the live view, deletes the key and the exporter is refused. Every view passes axe
// and is saved as a screenshot.
import { ExportResultCode } from '@opentelemetry/core';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { accessibilityViolations, openPage, screenshot, useBrowser } from '../support/dashboard.js';
import {
  createApplication,
  createKey,
  createOrganization,
  expectNoPageFailures,
  exporterFromPage,
  openApplication,
  signIn,
} from '../support/dashboard-pages.js';
import { expectExported, exportSpans, recordTrace } from '../support/otel.js';
import { onEachDatabase } from '../support/test-server.js';

async function checkView(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  expect(await accessibilityViolations(page), name).to.deep.equal([]);
}

onEachDatabase(
  'dashboard journey',
  (app) => {
    const browser = useBrowser();

    it('signs in, creates an account, finds the traces a real exporter sent, their cost and live spans, then revokes the key', async function () {
      this.timeout(180_000);
      const watch = await openPage(browser());
      const { page, context } = watch;
      const db = app().database;
      try {
        await signIn(watch, app(), { subject: `journey-${db}`, email: `journey-${db}@example.com`, name: 'Jo Urney' });
        await checkView(page, `journey-1-organizations-${db}`);

        await createOrganization(page, 'Journey Org');
        await createApplication(page, 'Journey shop');
        const appId = await openApplication(page, 'Journey shop');
        await createKey(page, 'journey exporter', ['read:traces']);
        const { exporter } = await exporterFromPage(page);
        await checkView(page, `journey-2-application-${db}`);

        // Two traces: one whose child span holds the payment provider and the cost, one without.
        const now = Date.now();
        const paid = await recordTrace(now - 60_000, { service: 'journey-shop', name: 'POST /checkout' }, [
          { service: 'journey-payments', name: 'charge card', attributes: { 'payment.provider': 'stripe', 'vendor.cost': 0.0042 } },
        ]);
        const health = await recordTrace(now - 30_000, { service: 'journey-shop', name: 'GET /health' });
        expectExported(await exportSpans(exporter, [...paid.spans, ...health.spans]));

        // Traces: a filter on the child span's attribute finds the paid trace only.
        await page.getByRole('link', { name: 'Traces of Journey shop' }).click();
        await page.getByRole('heading', { level: 1, name: 'Traces' }).waitFor();
        await page.locator('table.traces-table tbody tr').nth(1).waitFor();
        await page.getByRole('button', { name: 'Add condition' }).click();
        await page.getByLabel('Field', { exact: true }).fill('span_attributes.payment.provider');
        await page.getByLabel('Operator').selectOption('eq');
        await page.getByLabel('Value', { exact: true }).fill('stripe');
        await page.getByLabel('Search child spans').check();
        await page.getByRole('button', { name: 'Apply filter' }).click();
        await page.getByTestId('traces-count').filter({ hasText: 'Traces 1–1 of 1' }).waitFor();
        expect(
          await page.locator('table.traces-table tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-trace-id'))),
        ).to.deep.equal([paid.traceId]);
        await checkView(page, `journey-3-traces-${db}`);

        // Its waterfall: the root and its child, with the child's cost on its bar.
        await page.getByRole('link', { name: 'POST /checkout' }).click();
        await page.waitForURL(`${app().url}/ui/traces/${paid.traceId}?app=${appId}`);
        await page.locator('li.wf-row', { hasText: 'charge card' }).waitFor();
        expect(await page.locator('li.wf-row').count()).to.equal(2);
        expect(await page.locator('li.wf-row', { hasText: 'charge card' }).innerText()).to.include('0.0042');
        await checkView(page, `journey-4-waterfall-${db}`);

        // Metrics of the application (the header keeps it): both traces, and the cost sent.
        await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Metrics' }).click();
        await page.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor();
        await page.getByTestId('trace-count').filter({ hasText: /^2$/ }).waitFor();
        expect(Number(await page.getByTestId('total-cost').getAttribute('data-value'))).to.be.closeTo(0.0042, 1e-12);
        await page.locator('#cost-chart canvas').first().waitFor();
        await checkView(page, `journey-5-metrics-${db}`);

        // Live: a span sent now arrives.
        await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Live' }).click();
        await page.locator('[data-testid="live-status"][data-state="connected"]').waitFor();
        const fresh = await recordTrace(Date.now(), { service: 'journey-shop', name: 'POST /journey-live' });
        expectExported(await exportSpans(exporter, fresh.spans));
        await page.locator('table.live-spans tbody tr').filter({ hasText: 'POST /journey-live' }).waitFor({ timeout: 10_000 });
        await checkView(page, `journey-6-live-${db}`);

        // Deleting the key in the page: the exporter is refused from then on.
        await page.goto(`${app().url}/ui/applications/${appId}`);
        await page.getByRole('button', { name: 'Delete journey exporter' }).click();
        await page.getByRole('button', { name: 'Yes, delete the key' }).click();
        await page.getByText('No API key yet.').waitFor();
        const late = await recordTrace(Date.now(), { service: 'journey-shop', name: 'POST /after-delete' });
        const refused = await exportSpans(exporter, late.spans);
        expect(refused.code).to.equal(ExportResultCode.FAILED);
        expect((refused.error as Error & { code?: number }).code).to.equal(401);
        await checkView(page, `journey-7-key-deleted-${db}`);
        await expectNoPageFailures(watch);
        await exporter.shutdown();
      } finally {
        await context.close();
      }
    });
  },
  { LIVE_POLL_INTERVAL_MS: '100' },
);
