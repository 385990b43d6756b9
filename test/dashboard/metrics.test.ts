// The metrics view in a real Chromium against the real service: spans with known costs sent by a
// real OpenTelemetry exporter; the view's figures equal the engine's answers for the same window
// (and, with a filter in the URL, the filtered answers), the charts are drawn with one series per
// group the engine lists, and the view passes axe with no page error or CSP violation.
import { context, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { accessibilityViolations, openPage, screenshot, signInLink, useBrowser } from '../support/dashboard.js';
import { createApiKey, expectStatus, keyToken, ownerWithApplication, type Caller, type DashboardUser } from '../support/management.js';
import { expectExported, exportSpans, recordSpans } from '../support/otel.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

/** The span's model, read at ingestion from `gen_ai.request.model` below. */
const MODEL = 'model';

/** Two hours ending an hour ago, on whole hours: every span below starts inside it. */
function testWindow(): { start: Date; end: Date } {
  const hour = 3_600_000;
  const end = Math.floor(Date.now() / hour) * hour - hour;
  return { start: new Date(end - 2 * hour), end: new Date(end) };
}

interface TraceSpec {
  service: string;
  startMs: number;
  durationMs: number;
  model: string;
  cost: number;
  sku: string;
}

/** A request span with one LLM call under it, carrying the cost and billing attributes. */
function record(tracer: Tracer, spec: TraceSpec): void {
  const root = tracer.startSpan(`POST /${spec.service}`, {
    kind: SpanKind.SERVER,
    startTime: spec.startMs,
    attributes: { 'vendor.unit': spec.service },
  });
  const llm = tracer.startSpan(
    'llm.generate',
    {
      kind: SpanKind.CLIENT,
      startTime: spec.startMs + 5,
      attributes: {
        'vendor.unit': 'llm',
        'vendor.cost': spec.cost,
        'vendor.billing.sku_name': spec.sku,
        'gen_ai.request.model': spec.model,
      },
    },
    trace.setSpan(context.active(), root),
  );
  llm.end(spec.startMs + spec.durationMs - 5);
  root.end(spec.startMs + spec.durationMs);
}

async function sendTraces(app: TestServer, appId: string, token: string, specs: TraceSpec[]): Promise<void> {
  const exporter = new OTLPTraceExporter({
    url: `${app.url}/v1/traces`,
    headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId },
    timeoutMillis: 10_000,
  });
  try {
    for (const service of new Set(specs.map((spec) => spec.service))) {
      const spans = await recordSpans({ 'service.name': service }, (tracer) =>
        specs.filter((spec) => spec.service === service).forEach((spec) => record(tracer, spec)),
      );
      expectExported(await exportSpans(exporter, spans));
    }
  } finally {
    await exporter.shutdown();
  }
}

const STATISTICS = ['mean', 'p50', 'p90', 'p95', 'p99', 'min', 'max', 'stddev'] as const;
const FIGURES = ['duration', 'cost', 'spans_per_trace'] as const;

/** Every figure of the distribution table, as the page holds it (the exact number and the text). */
async function shownMetrics(page: Page): Promise<Record<string, Record<string, { value: number; text: string }>>> {
  const shown: Record<string, Record<string, { value: number; text: string }>> = {};
  for (const figure of FIGURES) {
    shown[figure] = {};
    for (const statistic of STATISTICS) {
      const cell = page.locator(`tr[data-figure="${figure}"] td[data-statistic="${statistic}"]`);
      shown[figure][statistic] = { value: Number(await cell.getAttribute('data-value')), text: (await cell.textContent()) ?? '' };
    }
  }
  return shown;
}

/** The page's figures are the engine's, exactly, and the text reads as the same number. */
function expectSameFigures(shown: Awaited<ReturnType<typeof shownMetrics>>, answer: Record<string, any>): void {
  for (const figure of FIGURES) {
    for (const statistic of STATISTICS) {
      const expected = answer[figure][statistic] as number;
      const { value, text } = shown[figure][statistic];
      expect(value, `${figure} ${statistic}`).to.equal(expected);
      const read = Number(text.replace(/,/g, ''));
      expect(Math.abs(read - expected), `${figure} ${statistic} shown as ${text}`).to.be.at.most(
        Math.max(0.005, Math.abs(expected) * 1e-5),
      );
    }
  }
}

async function legendLabels(page: Page, chart: string): Promise<string[]> {
  return page.locator(`#${chart} .chart-legend .legend-label`).allTextContents();
}

/** The sum of a chart's data-table column (the table lists the buckets holding data). */
async function tableColumnSum(page: Page, chart: string, column: number): Promise<number> {
  const cells = await page
    .locator(`#${chart} .chart-table tbody tr`)
    .evaluateAll(
      (rows, index) => rows.map((row) => Number(row.querySelectorAll('td')[index as number]?.getAttribute('data-value') || 0)),
      column,
    );
  return cells.reduce((sum, value) => sum + value, 0);
}

onEachDatabase('dashboard metrics view', (app) => {
  const browser = useBrowser();
  let user: DashboardUser;
  let as: Caller;
  let appId: string;
  const window = testWindow();
  const at = (minutes: number) => window.start.getTime() + minutes * 60_000;
  const specs: TraceSpec[] = [
    { service: 'checkout', startMs: at(10), durationMs: 1200, model: 'gemini-2.5-pro', cost: 0.0042, sku: 'Pro output tokens' },
    { service: 'checkout', startMs: at(40), durationMs: 800, model: 'gemini-2.5-flash', cost: 0.002, sku: 'Flash output tokens' },
    { service: 'search', startMs: at(15), durationMs: 300, model: 'gemini-2.5-flash', cost: 0.0011, sku: 'Flash output tokens' },
    { service: 'search', startMs: at(75), durationMs: 450, model: 'gemini-2.5-flash', cost: 0.0007, sku: 'Flash output tokens' },
  ];

  before(async function () {
    this.timeout(60_000);
    ({ user, as, appId } = await ownerWithApplication(app(), 'Mia Metrics'));
    const key = await createApiKey(as, appId, ['write:traces', 'read:traces']);
    await sendTraces(app(), appId, await keyToken(app(), key.apiKey, key.secret), specs);
  });

  async function engineAnswer(path: string, body: unknown): Promise<any> {
    const response = await as('POST', path, {
      headers: { 'X-Vendor-App-Id': appId },
      query: { start_time: window.start.toISOString(), end_time: window.end.toISOString() },
      json: body,
    });
    expectStatus(response, 200);
    return response.body;
  }

  function viewUrl(extra: Record<string, string> = {}): string {
    const query = new URLSearchParams({ app: appId, from: window.start.toISOString(), to: window.end.toISOString(), ...extra });
    return `${app().url}/ui/metrics?${query}`;
  }

  it('shows the engine’s distributions and charts for the window, then for the filter in the URL', async function () {
    this.timeout(60_000);
    const { page, context: browserContext, pageErrors, cspViolations, dialogs } = await openPage(browser());
    try {
      await page.goto(await signInLink(app(), { subject: user.subject, email: user.email, name: user.name }));
      await page.getByTestId('user-name').filter({ hasText: user.name }).waitFor();

      // No filter: the four traces of the window.
      const all = await engineAnswer('/engine/metrics', {});
      expect(all.trace_count).to.equal(4);
      await page.goto(viewUrl());
      await page.getByTestId('trace-count').filter({ hasText: /^4$/ }).waitFor();
      expectSameFigures(await shownMetrics(page), all);
      expect(Number(await page.getByTestId('total-cost').getAttribute('data-value'))).to.be.closeTo(
        0.0042 + 0.002 + 0.0011 + 0.0007,
        1e-12,
      );
      expect(await page.getByTestId('active-filter').textContent()).to.include('No filter');

      // The cost chart, grouped by service (the default): one series per group the engine lists.
      const byService = await engineAnswer('/engine/analytics', {
        grain: 'spans',
        group_by: ['service_name'],
        granularity: 'auto',
        measures: [{ fn: 'sum', field: 'cost' }],
        order_by: { measure: 0, direction: 'desc' },
        row_limit: 8,
      });
      await page.locator('#cost-chart canvas').first().waitFor();
      expect(byService.groups.map((group: any) => group.key.service_name)).to.deep.equal(['checkout', 'search']);
      expect(await page.locator('#cost-chart').getAttribute('data-series-count')).to.equal(String(byService.groups.length));
      expect(await legendLabels(page, 'cost-chart')).to.deep.equal(['checkout', 'search']);
      expect(await tableColumnSum(page, 'cost-chart', 0)).to.be.closeTo(0.0042 + 0.002, 1e-12);
      expect(await tableColumnSum(page, 'cost-chart', 1)).to.be.closeTo(0.0011 + 0.0007, 1e-12);

      // Traces per bucket add up to the trace count; the p95 chart is drawn too.
      await page.locator('#count-chart canvas').first().waitFor();
      await page.locator('#p95-chart canvas').first().waitFor();
      expect(await page.locator('#count-chart').getAttribute('data-series-count')).to.equal('1');
      expect(await tableColumnSum(page, 'count-chart', 0)).to.equal(4);
      const traffic = await engineAnswer('/engine/analytics', {
        grain: 'traces',
        granularity: 'auto',
        measures: [{ fn: 'count' }, { fn: 'p95', field: 'duration_ms' }],
      });
      const p95s = traffic.groups[0].points.map((point: any) => point.values[1]).sort();
      const shownP95s = (
        await page
          .locator('#p95-chart .chart-table tbody td')
          .evaluateAll((cells) => cells.map((cell) => Number(cell.getAttribute('data-value'))))
      ).sort();
      expect(shownP95s).to.deep.equal(p95s);

      // Grouped by model (a preset of the select): the URL says so, the series follow the engine.
      await page.locator('fieldset.group-by select').selectOption(MODEL);
      await page.waitForURL(/group=model(&|$)/);
      const byModel = await engineAnswer('/engine/analytics', {
        grain: 'spans',
        group_by: [MODEL],
        granularity: 'auto',
        measures: [{ fn: 'sum', field: 'cost' }],
        order_by: { measure: 0, direction: 'desc' },
        row_limit: 8,
      });
      const modelLabels = byModel.groups.map((group: any) => group.key[MODEL] ?? '(none)');
      expect(modelLabels).to.deep.equal(['gemini-2.5-pro', 'gemini-2.5-flash', '(none)']);
      await page.locator('#cost-chart .chart-legend .legend-label').filter({ hasText: 'gemini-2.5-pro' }).waitFor();
      expect(await legendLabels(page, 'cost-chart')).to.deep.equal(modelLabels);
      expect(await page.locator('#cost-chart').getAttribute('data-series-count')).to.equal('3');
      await page.locator('#cost-chart canvas').first().waitFor();

      // A field typed freely: the billing SKU.
      await page.getByLabel('Field or attribute path').fill('billing.sku_name');
      await page.getByRole('button', { name: 'Group', exact: true }).click();
      await page.locator('#cost-chart .chart-legend .legend-label').filter({ hasText: 'Pro output tokens' }).waitFor();
      const bySku = await engineAnswer('/engine/analytics', {
        grain: 'spans',
        group_by: ['billing.sku_name'],
        granularity: 'auto',
        measures: [{ fn: 'sum', field: 'cost' }],
        order_by: { measure: 0, direction: 'desc' },
        row_limit: 8,
      });
      expect(bySku.groups.map((group: any) => group.key['billing.sku_name'] ?? '(none)')).to.deep.equal([
        'Pro output tokens',
        'Flash output tokens',
        '(none)',
      ]);
      expect(await legendLabels(page, 'cost-chart')).to.deep.equal(['Pro output tokens', 'Flash output tokens', '(none)']);
      expect(page.url()).to.include('group=billing.sku_name');
      await page.locator('#cost-chart details summary').click();
      await screenshot(page, `metrics-${app().database}`);
      expect(await accessibilityViolations(page), 'metrics view').to.deep.equal([]);

      // A filter in the URL: the figures are the filtered answer's.
      const filter = { field: 'service_name', op: 'eq', value: 'checkout' };
      const filtered = await engineAnswer('/engine/metrics', { filter });
      expect(filtered.trace_count).to.equal(2);
      await page.goto(viewUrl({ filter: JSON.stringify(filter) }));
      await page.getByTestId('trace-count').filter({ hasText: /^2$/ }).waitFor();
      expectSameFigures(await shownMetrics(page), filtered);
      expect(await page.getByTestId('filter-text').textContent()).to.equal('service_name = "checkout"');
      const edit = new URL((await page.getByRole('link', { name: 'Edit the filter in Traces' }).getAttribute('href')) as string, app().url);
      expect(edit.pathname).to.equal('/ui/traces');
      expect(JSON.parse(edit.searchParams.get('filter') as string)).to.deep.equal(filter);
      expect(edit.searchParams.get('app')).to.equal(appId);
      expect(edit.searchParams.get('from')).to.equal(window.start.toISOString());
      await page.locator('#cost-chart canvas').first().waitFor();
      expect(await legendLabels(page, 'cost-chart')).to.deep.equal(['checkout']);
      expect(await tableColumnSum(page, 'count-chart', 0)).to.equal(2);
      await screenshot(page, `metrics-filtered-${app().database}`);
      expect(await accessibilityViolations(page), 'metrics view with a filter').to.deep.equal([]);

      // Clearing the filter brings the whole window back.
      await page.getByRole('button', { name: 'Clear the filter' }).click();
      await page.getByTestId('trace-count').filter({ hasText: /^4$/ }).waitFor();
      expect(page.url()).not.to.include('filter=');

      // The same filter built here, with the traces view's builder: the same filtered figures.
      await page.getByText('Edit the filter here').click();
      const builder = page.locator('details.metrics-filter');
      await builder.getByRole('button', { name: 'Add condition' }).click();
      await builder.getByLabel('Field', { exact: true }).fill('service_name');
      await builder.getByLabel('Operator').selectOption('eq');
      await builder.getByLabel('Value', { exact: true }).fill('checkout');
      await builder.getByRole('button', { name: 'Apply filter' }).click();
      await page.getByTestId('trace-count').filter({ hasText: /^2$/ }).waitFor();
      expect(JSON.parse(new URL(page.url()).searchParams.get('filter') as string)).to.deep.equal(filter);
      expectSameFigures(await shownMetrics(page), filtered);
      expect(await accessibilityViolations(page), 'metrics view with the filter builder open').to.deep.equal([]);

      expect(pageErrors).to.deep.equal([]);
      expect(cspViolations).to.deep.equal([]);
      expect(dialogs).to.deep.equal([]);
    } finally {
      await browserContext.close();
    }
  });

  it('says what the engine refused, in the engine’s words', async function () {
    this.timeout(30_000);
    const { page, context: browserContext, pageErrors } = await openPage(browser());
    try {
      await page.goto(await signInLink(app(), { subject: user.subject, email: user.email, name: user.name }));
      await page.getByTestId('user-name').filter({ hasText: user.name }).waitFor();
      await page.goto(viewUrl({ filter: JSON.stringify({ field: 'duration_ms', op: 'contains', value: 'x' }) }));
      const alert = page.getByRole('alert').filter({ hasText: 'The metrics could not be loaded' });
      await alert.waitFor();
      expect(await alert.textContent()).to.match(/contains|duration_ms/);
      expect(pageErrors).to.deep.equal([]);
    } finally {
      await browserContext.close();
    }
  });
});
