// The application view's usage table and daily span quota in a real Chromium against the real
// service, on each database: spans exported with a key made in the page show up in the usage by
// hour and by day (the choice kept in the URL over a reload); a quota set in the settings form shows as used up once reached, and the key's
// next export is refused (429, which the exporter takes as retryable) and counted as refused.
// The view passes axe.
import { SpanKind } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { expect } from 'chai';
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
import { exportSpans, expectExported, recordSpans } from '../support/otel.js';
import { onEachDatabase } from '../support/test-server.js';

function spans(count: number) {
  return recordSpans({ 'service.name': 'dashboard-usage' }, (tracer) => {
    for (let index = 0; index < count; index += 1) tracer.startSpan(`usage ${index}`, { kind: SpanKind.INTERNAL }).end();
  });
}

onEachDatabase('dashboard application usage and quota', (app) => {
  const browser = useBrowser();

  it('shows the spans, bytes and requests received by hour and by day, and the daily span quota used up', async function () {
    this.timeout(120_000);
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      await signIn(watch, app(), {
        subject: `ui-usage-${app().database}`,
        email: `usage-${app().database}@example.com`,
        name: 'Uma Usage',
      });
      await createOrganization(page, 'Metered');
      await createApplication(page, 'Metered service');
      await openApplication(page, 'Metered service');
      await createKey(page, 'Usage exporter', []);
      const { exporter } = await exporterFromPage(page);
      try {
        expectExported(await exportSpans(exporter, await spans(3)));

        await page.reload();
        const byHour = page.getByRole('table', { name: 'Usage by hour' });
        await byHour.waitFor();
        const hourRow = byHour.locator('tbody tr').first();
        const cells = await hourRow.getByRole('cell').allInnerTexts();
        // Spans accepted, already stored, rejected, bytes received, bytes decompressed, requests, refused.
        expect(cells[0]).to.equal('3');
        expect(cells[1]).to.equal('0');
        expect(Number((cells[3] as string).replace(/\D/g, ''))).to.be.greaterThan(0);
        expect(cells[5]).to.equal('1');
        expect(await page.getByText('No daily span quota; 3 spans accepted today (UTC)').count()).to.equal(1);

        await page.getByRole('radio', { name: 'Day (last 30 days)' }).check();
        const byDay = page.getByRole('table', { name: 'Usage by day' });
        await byDay.waitFor();
        expect(await byDay.locator('tfoot').getByRole('cell').first().innerText()).to.equal('3');
        expect(await accessibilityViolations(page), 'application view with usage').to.deep.equal([]);
        // The granularity is in the URL: a reload keeps it.
        expect(new URL(page.url()).searchParams.get('usage')).to.equal('day');
        await page.reload();
        await byDay.waitFor();
        expect(await page.getByRole('radio', { name: 'Day (last 30 days)' }).isChecked()).to.equal(true);
        await page.getByRole('radio', { name: 'Hour (last 24 hours)' }).check();
        await byHour.waitFor();
        expect(new URL(page.url()).searchParams.has('usage')).to.equal(false);

        const settings = page.getByRole('form', { name: 'Application settings' });
        await settings.getByLabel('Daily span quota (empty: none)').fill('2');
        await settings.getByRole('button', { name: 'Save application' }).click();
        await page.getByText(/3 of 2 spans accepted today \(UTC\): quota used up/).waitFor();
        await screenshot(page, `application-usage-${app().database}`);

        // 429 with Retry-After: the exporter takes it as retryable, but not within its timeout (midnight UTC is hours away).
        const refused = await exportSpans(exporter, await spans(1));
        expect(refused.code).to.equal(ExportResultCode.FAILED);
        expect(refused.error?.message).to.equal('Export failed with retryable status');
        await page.reload();
        await page.getByRole('table', { name: 'Usage by hour' }).waitFor();
        // The totals row (an hour may have turned since the first export).
        expect((await page.getByRole('table', { name: 'Usage by hour' }).locator('tfoot').getByRole('cell').allInnerTexts())[6]).to.equal(
          '1',
        );
      } finally {
        await exporter.shutdown();
      }
      await expectNoPageFailures(watch);
    } finally {
      await watch.context.close();
    }
  });
});
