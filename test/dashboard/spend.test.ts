// The spend sections of the organization and application pages in a real Chromium against the
// real service, on each database: spans with known costs stored over two weeks and two months;
// the organization's table per application and the application's per service, model and SKU show
// those figures (spend in its currency, share, spans, tokens, previous spend, change with its
// direction in words), in rank order; the period switch, the previous/next navigation and the
// dimension switch change the URL and the table, a reload keeps the view; the stacked daily chart
// draws one band per row; the unpriced calls link to the prices page; the pages pass axe. Also
// the section's pure parts (ui/src/spend.ts).
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import {
  attributeLabel,
  changeWords,
  readSpendView,
  spendChartData,
  spendDecimals,
  spendViewQuery,
  type SpendRow,
  type SpendSummary,
} from '../../ui/src/spend.js';
import { seedApplication, seedOrganization, seedUser } from '../support/accounts.js';
import { setIndexedPaths } from '../support/indexed-slots.js';
import { accessibilityViolations, openPage, screenshot, useBrowser } from '../support/dashboard.js';
import { expectNoPageFailures, signIn } from '../support/dashboard-pages.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

/** One span at 10:00 UTC of `date`. */
function spendSpan(applicationId: string, id: string, date: string, fields: Partial<SpanRow>): SpanRow {
  const start = (BigInt(Date.parse(`${date}T10:00:00Z`)) * 1_000_000n).toString();
  return spanRow({
    application_id: applicationId,
    trace_id: id.padStart(32, '0'),
    span_id: id.padStart(16, '0'),
    start_time_unix_nano: start,
    end_time_unix_nano: (BigInt(start) + 1_000_000n).toString(),
    duration_ms: 1,
    ...fields,
  });
}

/** A reported cost in USD (a reported cost names no currency). */
const reported = (cost: number): Partial<SpanRow> => ({ cost, cost_source: 'reported' });

interface ShownRow {
  value: string;
  spend: string;
  share: string;
  spans: string;
  tokens: string;
  previous: string;
  change: string;
  direction: string;
}

/** The ranked table's body rows as the page writes them. */
async function shownRows(page: Page, part: 'tbody' | 'tfoot' = 'tbody'): Promise<ShownRow[]> {
  // No named functions inside: the page would not know tsx's `__name` helper.
  return page.locator(`[data-testid="spend-table"] ${part} tr`).evaluateAll((rows) =>
    rows.map((row) => {
      const cells = Object.fromEntries(
        [...row.querySelectorAll('td[data-column]')].map((cell) => [cell.getAttribute('data-column'), cell.textContent ?? '']),
      );
      return {
        value: row.querySelector('th')?.textContent ?? '',
        spend: cells.spend,
        share: cells.share,
        spans: cells.spans,
        tokens: cells.tokens,
        previous: cells.previous,
        change: row.querySelector('td.change')?.textContent ?? '',
        direction: row.querySelector('td.change')?.getAttribute('data-direction') ?? '',
      };
    }),
  );
}

/** Waits until the table's caption says the view asked for (the answer to the latest request is shown). */
async function tableFor(page: Page, caption: string): Promise<void> {
  await page.locator('[data-testid="spend-table"] caption').filter({ hasText: caption }).waitFor();
  await page.locator('[data-testid="spend"][aria-busy="false"]').waitFor();
}

/** The chart's data table: per listed day, the value of each series. */
async function chartTable(page: Page): Promise<Array<[string, number[]]>> {
  return page
    .locator('#spend-chart .chart-table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row): [string, number[]] => [
        row.querySelector('th')?.textContent ?? '',
        [...row.querySelectorAll('td')].map((cell) => Number(cell.getAttribute('data-value'))),
      ]),
    );
}

async function legend(page: Page): Promise<string[]> {
  return page.locator('#spend-chart .chart-legend .legend-label').allTextContents();
}

const query = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

onEachDatabase('dashboard spend views', (app) => {
  const browser = useBrowser();

  it('ranks the organization’s applications and an application’s services, models and SKUs, with the change, the chart and the view in the URL', async function () {
    this.timeout(120_000);
    const knex = app().server.knex;
    const owner = await seedUser(app(), 'Sam');
    const orgId = await seedOrganization(knex, [[owner.userId, 'owner']]);
    // Retention long enough that no purge pass takes the seeded spans away during the test.
    const checkout = await seedApplication(knex, orgId, { name: 'Checkout', retentionDays: 3650 });
    const search = await seedApplication(knex, orgId, { name: 'Search', retentionDays: 3650 });
    const llm = (model: string, sku: string | null) => ({ model, provider: 'openai', billing_sku_id: sku });
    await storeSpans(knex, [
      // The week of 2026-11-02 (Monday) and the week before it; November and October.
      spendSpan(checkout, 'a1', '2026-11-02', { service_name: 'checkout', ...llm('gpt-4o', 'sku-a'), ...reported(3) }),
      spendSpan(checkout, 'a2', '2026-11-04', { service_name: 'checkout', ...llm('claude-3', 'sku-b'), ...reported(1.5) }),
      spendSpan(checkout, 'a3', '2026-11-04', { service_name: 'search', ...llm('gpt-4o', null), ...reported(0.25) }),
      spendSpan(checkout, 'a4', '2026-11-05', {
        service_name: 'checkout',
        ...llm('mystery', null),
        total_tokens: 1200,
        unpriced_reason: 'unknown_model',
      }),
      spendSpan(checkout, 'a5', '2026-10-27', { service_name: 'checkout', ...llm('gpt-4o', 'sku-a'), ...reported(2) }),
      spendSpan(search, 'b1', '2026-11-03', { service_name: 'search', ...llm('gpt-4o', null), ...reported(1) }),
      spendSpan(search, 'b2', '2026-11-03', {
        service_name: 'search',
        ...llm('gpt-4o', null),
        cost: 0.75,
        cost_source: 'computed',
        price_currency: 'EUR',
      }),
      spendSpan(search, 'b3', '2026-10-28', { service_name: 'search', ...llm('gpt-4o', null), ...reported(2.5) }),
      spendSpan(search, 'b4', '2026-11-20', { service_name: 'search', ...llm('gpt-4o', null), ...reported(5) }),
    ]);

    const watch = await openPage(browser());
    try {
      const { page } = watch;
      await signIn(watch, app(), { subject: owner.subject, email: `${owner.subject}@example.com`, name: 'Sam' });

      // The organization's week of 2026-11-05: per application, the costliest first.
      await page.goto(`${app().url}/ui/organizations/${orgId}?period=week&date=2026-11-05`);
      await tableFor(page, 'Spend by application, 2026-11-02 to 2026-11-08 (UTC), in USD');
      expect(await page.getByTestId('spend-period').innerText()).to.equal('2026-11-02 to 2026-11-08 (UTC)');
      expect(await shownRows(page)).to.deep.equal([
        {
          value: 'Checkout',
          spend: '4.75 USD',
          share: '82.6%',
          spans: '4',
          tokens: '1,200',
          previous: '2.00 USD',
          change: '▲ +2.75 USD (up 137.5%)',
          direction: 'up',
        },
        {
          value: 'Search',
          spend: '1.00 USD',
          share: '17.4%',
          spans: '2',
          tokens: '0',
          previous: '2.50 USD',
          change: '▼ −1.50 USD (down 60.0%)',
          direction: 'down',
        },
      ]);
      expect(await shownRows(page, 'tfoot')).to.deep.equal([
        {
          value: 'Total',
          spend: '5.75 USD',
          share: '100.0%',
          spans: '6',
          tokens: '1,200',
          previous: '4.50 USD',
          change: '▲ +1.25 USD (up 27.8%)',
          direction: 'up',
        },
      ]);
      expect(await page.getByTestId('spend-table').getByRole('link', { name: 'Checkout' }).getAttribute('href')).to.equal(
        `/ui/applications/${checkout}`,
      );
      expect(await page.getByTestId('spend-unpriced').innerText()).to.match(/^1 LLM call left unpriced \(1,200 tokens\)/);
      expect(await page.getByRole('link', { name: 'See the unpriced calls on the prices page' }).getAttribute('href')).to.equal(
        `/ui/organizations/${orgId}/prices#unpriced-calls`,
      );
      expect(await page.getByTestId('spend-other-currencies').innerText()).to.equal('Also spent in other currencies: 0.75 EUR (1 span).');
      // The chart: one band per application, each day with a span listed (the EUR span's and the
      // unpriced call's days too, at 0), and the bands adding up to the rows' spend.
      await page.locator('#spend-chart canvas').first().waitFor();
      expect(await page.locator('#spend-chart').getAttribute('data-series-count')).to.equal('2');
      expect(await legend(page)).to.deep.equal(['Checkout', 'Search']);
      expect(await chartTable(page)).to.deep.equal([
        ['2026-11-02', [3, 0]],
        ['2026-11-03', [0, 1]],
        ['2026-11-04', [1.75, 0]],
        ['2026-11-05', [0, 0]],
      ]);
      await page.locator('#spend-chart details summary').click();
      expect(await accessibilityViolations(page), 'organization page, spend by week').to.deep.equal([]);
      await screenshot(page, `spend-organization-${app().database}`);

      // The previous week: the URL names it, Search ranks first, nothing before it to compare with.
      await page.getByRole('button', { name: '‹ Previous week' }).click();
      await tableFor(page, '2026-10-26 to 2026-11-01');
      expect(query(page)).to.deep.equal({ period: 'week', date: '2026-10-26' });
      expect((await shownRows(page)).map((row) => [row.value, row.spend, row.share, row.change, row.direction])).to.deep.equal([
        ['Search', '2.50 USD', '55.6%', '▲ +2.50 USD (new, none before)', 'new'],
        ['Checkout', '2.00 USD', '44.4%', '▲ +2.00 USD (new, none before)', 'new'],
      ]);
      await page.getByRole('button', { name: 'Next week ›' }).click();
      await tableFor(page, '2026-11-02 to 2026-11-08');
      expect(query(page)).to.deep.equal({ period: 'week', date: '2026-11-02' });

      // The month holding that day: November, Search first with 2026-11-20's span; the chart has its 30 days' data table.
      await page.getByRole('radio', { name: 'Month' }).check();
      await tableFor(page, 'Spend by application, November 2026 (UTC)');
      expect(query(page)).to.deep.equal({ date: '2026-11-02' });
      expect((await shownRows(page)).map((row) => [row.value, row.spend, row.share, row.previous, row.change])).to.deep.equal([
        ['Search', '6.00 USD', '55.8%', '2.50 USD', '▲ +3.50 USD (up 140.0%)'],
        ['Checkout', '4.75 USD', '44.2%', '2.00 USD', '▲ +2.75 USD (up 137.5%)'],
      ]);
      expect(await legend(page)).to.deep.equal(['Search', 'Checkout']);
      expect((await chartTable(page)).map(([day]) => day)).to.deep.equal([
        '2026-11-02',
        '2026-11-03',
        '2026-11-04',
        '2026-11-05',
        '2026-11-20',
      ]);
      await page.getByRole('button', { name: '‹ Previous month' }).click();
      await tableFor(page, 'October 2026');
      expect(query(page)).to.deep.equal({ date: '2026-10-01' });
      // A link keeps the view.
      await page.reload();
      await tableFor(page, 'October 2026');
      expect((await shownRows(page)).map((row) => [row.value, row.spend])).to.deep.equal([
        ['Search', '2.50 USD'],
        ['Checkout', '2.00 USD'],
      ]);
      // The current month has no next one yet.
      await page.getByRole('button', { name: 'This month' }).click();
      await page.getByRole('button', { name: 'Next month ›' }).and(page.locator(':disabled')).waitFor();
      expect(query(page)).to.deep.equal({});

      // The application's week, per service (its default), then per model and per SKU.
      await page.goto(`${app().url}/ui/applications/${checkout}?period=week&date=2026-11-05`);
      await tableFor(page, 'Spend by service, 2026-11-02 to 2026-11-08 (UTC)');
      expect((await shownRows(page)).map((row) => [row.value, row.spend, row.share, row.spans, row.change, row.direction])).to.deep.equal([
        ['checkout', '4.50 USD', '94.7%', '3', '▲ +2.50 USD (up 125.0%)', 'up'],
        ['search', '0.25 USD', '5.3%', '1', '▲ +0.25 USD (new, none before)', 'new'],
      ]);
      expect(await page.getByRole('link', { name: 'See the unpriced calls on the prices page' }).getAttribute('href')).to.equal(
        `/ui/organizations/${orgId}/prices?app=${checkout}#unpriced-calls`,
      );
      await page.getByRole('radio', { name: 'Model' }).check();
      await tableFor(page, 'Spend by model');
      expect(query(page)).to.deep.equal({ period: 'week', date: '2026-11-05', group_by: 'model' });
      expect((await shownRows(page)).map((row) => [row.value, row.spend, row.tokens, row.change, row.direction])).to.deep.equal([
        ['gpt-4o', '3.25 USD', '0', '▲ +1.25 USD (up 62.5%)', 'up'],
        ['claude-3', '1.50 USD', '0', '▲ +1.50 USD (new, none before)', 'new'],
        ['mystery', '0.00 USD', '1,200', '= 0.00 USD (no change)', 'same'],
      ]);
      await page.locator('#spend-chart canvas').first().waitFor();
      expect(await page.locator('#spend-chart').getAttribute('data-series-count')).to.equal('3');
      expect(await legend(page)).to.deep.equal(['gpt-4o', 'claude-3', 'mystery']);
      await page.getByRole('radio', { name: 'SKU' }).check();
      await tableFor(page, 'Spend by sku');
      expect(query(page)).to.deep.equal({ period: 'week', date: '2026-11-05', group_by: 'sku' });
      expect((await shownRows(page)).map((row) => [row.value, row.spend, row.spans])).to.deep.equal([
        ['sku-a', '3.00 USD', '1'],
        ['sku-b', '1.50 USD', '1'],
        ['(none)', '0.25 USD', '2'],
      ]);
      expect(await legend(page)).to.deep.equal(['sku-a', 'sku-b', '(none)']);
      await page.locator('#spend-chart details summary').click();
      expect(await accessibilityViolations(page), 'application page, spend by SKU').to.deep.equal([]);
      await screenshot(page, `spend-application-${app().database}`);
      // One day: a chart of one bucket is drawn too.
      await page.getByRole('radio', { name: 'Day', exact: true }).check();
      await tableFor(page, 'Spend by sku, 2026-11-05 (UTC)');
      expect(query(page)).to.deep.equal({ period: 'day', date: '2026-11-05', group_by: 'sku' });
      expect((await shownRows(page)).map((row) => [row.value, row.spend, row.previous, row.change, row.direction])).to.deep.equal([
        ['(none)', '0.00 USD', '0.25 USD', '▼ −0.25 USD (down 100.0%)', 'down'],
      ]);
      await page.locator('#spend-chart canvas').first().waitFor();
      expect(await chartTable(page)).to.deep.equal([['2026-11-05', [0]]]);

      // An attribute the application indexes joins the switch, by its key; no span has it: one "(none)" row.
      await setIndexedPaths(knex, checkout, ['span_attributes.tenant'], true);
      await page.goto(`${app().url}/ui/applications/${checkout}?period=week&date=2026-11-05`);
      await tableFor(page, 'Spend by service');
      await page.getByRole('radio', { name: 'tenant' }).check();
      await tableFor(page, 'Spend by tenant, 2026-11-02 to 2026-11-08 (UTC)');
      expect(query(page)).to.deep.equal({ period: 'week', date: '2026-11-05', group_by: 'attribute', attribute: 'span_attributes.tenant' });
      expect((await shownRows(page)).map((row) => [row.value, row.spend, row.spans])).to.deep.equal([['(none)', '4.75 USD', '4']]);
      await expectNoPageFailures(watch);
    } finally {
      await watch.context.close();
    }
  });
});

describe('spend views: the URL, the precision, the change, the chart series', () => {
  const dimensions = ['service', 'model', 'sku'] as const;

  it('reads the view from the URL, with defaults for what it does not offer, and leaves defaults out of it', () => {
    const cases: Array<[Record<string, string>, ReturnType<typeof readSpendView>]> = [
      [{}, { period: 'month', date: undefined, groupBy: 'service', currency: 'USD' }],
      [
        { period: 'week', date: '2026-11-05', group_by: 'model', currency: 'EUR' },
        { period: 'week', date: '2026-11-05', groupBy: 'model', currency: 'EUR' },
      ],
      [
        { period: 'custom', group_by: 'application' },
        { period: 'month', date: undefined, groupBy: 'service', currency: 'USD' },
      ],
    ];
    for (const [given, want] of cases) expect(readSpendView(given, [...dimensions]), JSON.stringify(given)).to.deep.equal(want);
    expect(spendViewQuery({ period: 'month', date: undefined, groupBy: 'service', currency: 'USD' }, [...dimensions])).to.deep.equal({
      period: undefined,
      date: undefined,
      group_by: undefined,
      currency: undefined,
      attribute: undefined,
    });
  });

  it('offers the indexed attributes it is given as group_by=attribute&attribute=<path>, and no other', () => {
    const attributes = ['span_attributes.tenant.id'];
    const cases: Array<[Record<string, string>, ReturnType<typeof readSpendView>]> = [
      [
        { group_by: 'attribute', attribute: 'span_attributes.tenant.id' },
        { period: 'month', date: undefined, groupBy: 'attribute', currency: 'USD', attribute: 'span_attributes.tenant.id' },
      ],
      [
        { group_by: 'attribute', attribute: 'span_attributes.other' },
        { period: 'month', date: undefined, groupBy: 'service', currency: 'USD' },
      ],
      [{ group_by: 'attribute' }, { period: 'month', date: undefined, groupBy: 'service', currency: 'USD' }],
      [
        { group_by: 'model', attribute: 'span_attributes.tenant.id' },
        { period: 'month', date: undefined, groupBy: 'model', currency: 'USD' },
      ],
    ];
    for (const [given, want] of cases) expect(readSpendView(given, [...dimensions], attributes), JSON.stringify(given)).to.deep.equal(want);
    const view = readSpendView({ group_by: 'attribute', attribute: 'span_attributes.tenant.id' }, [...dimensions], attributes);
    expect(spendViewQuery(view, [...dimensions])).to.include({ group_by: 'attribute', attribute: 'span_attributes.tenant.id' });
    expect(attributeLabel('span_attributes.tenant.id')).to.equal('tenant.id');
  });

  it('gives a column the decimals its smallest amount needs, 2 to 6', () => {
    const cases: Array<[number[], number]> = [
      [[], 2],
      [[0, 0], 2],
      [[412.5, 87.5], 2],
      [[1.25, 0.0042], 4],
      [[0.0007], 5],
      [[1e-9, 3], 6],
      [[-0.05, 2], 3],
    ];
    for (const [amounts, want] of cases) expect(spendDecimals(amounts), JSON.stringify(amounts)).to.equal(want);
  });

  it('says a change in words and arrows', () => {
    expect(changeWords({ spend: 32.5, ratio: 0.08552631578947369 }, 380)).to.deep.equal({ direction: 'up', arrow: '▲', words: 'up 8.6%' });
    expect(changeWords({ spend: -1.5, ratio: -0.6 }, 2.5)).to.deep.equal({ direction: 'down', arrow: '▼', words: 'down 60.0%' });
    expect(changeWords({ spend: 0, ratio: null }, 0)).to.deep.equal({ direction: 'same', arrow: '=', words: 'no change' });
    expect(changeWords({ spend: 87.5, ratio: null }, 0)).to.deep.equal({ direction: 'new', arrow: '▲', words: 'new, none before' });
  });

  it('draws the first 8 rows and stacks the rest with `other` as one band, every day of the period, 0 where none is listed', () => {
    const figures = {
      spans: 1,
      traces: 1,
      spans_with_cost: 1,
      tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0, total: 0 },
    };
    const more = {
      unpriced: { spans: 0, tokens: 0 },
      previous: { spend: 0, spans: 0 },
      change: { spend: 1, ratio: null },
    };
    const row = (value: string, day: string, spend: number): SpendRow => ({
      value,
      share: null,
      spend,
      ...figures,
      ...more,
      days: [{ date: day, spend }],
    });
    const rows = Array.from({ length: 10 }, (_, index) => row(`v${index}`, `2026-11-0${(index % 3) + 2}`, index + 1));
    const summary: SpendSummary = {
      period: 'week',
      start_time: '2026-11-02T00:00:00.000Z',
      end_time: '2026-11-09T00:00:00.000Z',
      previous_start_time: '2026-10-26T00:00:00.000Z',
      previous_end_time: '2026-11-02T00:00:00.000Z',
      group_by: 'model',
      currency: 'USD',
      rows,
      other: { values: 3, share: null, spend: 7, ...figures, ...more, days: [{ date: '2026-11-08', spend: 7 }] },
      totals: { spend: 62, ...figures, ...more },
      other_currencies: [],
    };
    const data = spendChartData(summary, (value) => value ?? '(none)', 'Other');
    expect(data.times).to.deep.equal(Array.from({ length: 7 }, (_, index) => Date.UTC(2026, 10, 2 + index) / 1000));
    expect(data.series.map((series) => series.label)).to.deep.equal(['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'Other']);
    expect(data.series[0]?.values).to.deep.equal([1, 0, 0, 0, 0, 0, 0]);
    // v8 (2026-11-04, 9) and v9 (2026-11-02, 10) and `other` (2026-11-08, 7).
    expect(data.series[8]?.values).to.deep.equal([10, 0, 9, 0, 0, 0, 7]);
    expect(data.listed).to.deep.equal([true, true, true, false, false, false, true]);
  });
});
