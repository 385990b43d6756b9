// The organization's prices page in a real Chromium against the real service, on each database:
// an owner creates a price entry through the form, sees the service's 422 beside the field it
// names (an overlap, a validity that ends before it starts), edits and deletes an entry; the
// effective price names the organization's entry for a model it matches and the default book for
// another; entries page newest first; a member sees the same entries without a write control.
// GenAI spans exported over OTLP show up in the application's unpriced calls by model and reason,
// "Add a price" opens the entry form prefilled, and the span panel shows a cost's source, the
// price it used and its currency. Also the page's pure parts (ui/src/prices.ts). The page passes axe.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import {
  createBody,
  draftOf,
  EMPTY_DRAFT,
  newestFirstRows,
  newestFirstWindow,
  unpricedRows,
  updateBody,
  type PriceEntry,
} from '../../ui/src/prices.js';
import { seedApiKey, seedApplication, seedOrganization, seedPriceEntry, seedUser, type SeededUser } from '../support/accounts.js';
import { call } from '../support/contract.js';
import { accessibilityViolations, openPage, screenshot, useBrowser } from '../support/dashboard.js';
import { expectNoPageFailures, signIn } from '../support/dashboard-pages.js';
import { expectStatus } from '../support/management.js';
import { expectExported, exportSpans, recordTrace } from '../support/otel.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

function signInAs(watch: Parameters<typeof signIn>[0], app: TestServer, user: SeededUser, name: string): Promise<void> {
  return signIn(watch, app, { subject: user.subject, email: `${user.subject}@example.com`, name });
}

async function listEntries(app: TestServer, orgId: string, token: string): Promise<PriceEntry[]> {
  const response = await call<{ data: PriceEntry[] }>(app.url, 'GET', `/organizations/${orgId}/price-entries`, {
    token,
    query: { limit: 100 },
  });
  expectStatus(response, 200);
  return response.body.data;
}

/** The `dt` → `dd` texts of a definition list, in order. */
async function facts(list: Locator): Promise<Record<string, string>> {
  const pairs = await list.evaluate((element) =>
    [...element.querySelectorAll('dt')].map((term) => [term.textContent ?? '', term.nextElementSibling?.textContent ?? '']),
  );
  return Object.fromEntries(pairs);
}

/** The message shown beside a form field: the element its input's aria-describedby names. */
async function issueBeside(page: Page, input: Locator): Promise<string> {
  expect(await input.getAttribute('aria-invalid'), 'the field is marked invalid').to.equal('true');
  const id = (await input.getAttribute('aria-describedby')) ?? expect.fail('the field names no description');
  return page.locator(`[id="${id}"]`).innerText();
}

/** Polls until `read` gives `want` (the test's timeout bounds it), then checks it. */
async function eventually<T>(read: () => Promise<T>, want: T): Promise<void> {
  const deadline = Date.now() + 15_000;
  let seen = await read();
  while (JSON.stringify(seen) !== JSON.stringify(want) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await read();
  }
  expect(seen).to.deep.equal(want);
}

/** The texts of the span panel's "Model and tokens" group, as [label, value] pairs. */
async function modelGroup(page: Page): Promise<string[][]> {
  return page
    .getByTestId('span-panel')
    .getByTestId('span-model')
    .locator('dl.span-fields > div')
    .evaluateAll((items) =>
      items.map((item) => [item.querySelector('dt')?.textContent ?? '', item.querySelector('dd')?.textContent ?? '']),
    );
}

onEachDatabase('dashboard prices page', (app) => {
  const browser = useBrowser();

  it('lets an owner create, correct, edit and delete entries, shows the effective price, and a member no write control', async function () {
    this.timeout(120_000);
    const owner = await seedUser(app(), 'Priya');
    const member = await seedUser(app(), 'Milo');
    const orgId = await seedOrganization(app().server.knex, [
      [owner.userId, 'owner'],
      [member.userId, 'member'],
    ]);
    const watch = await openPage(browser());
    const memberWatch = await openPage(browser());
    try {
      const { page } = watch;
      await signInAs(watch, app(), owner, 'Priya');
      // Reached from the organization's page.
      await page.goto(`${app().url}/ui/organizations/${orgId}`);
      await page.getByRole('link', { name: 'Prices of LLM calls' }).click();
      await page.getByRole('heading', { level: 1, name: /^Prices of / }).waitFor();
      expect(new URL(page.url()).pathname).to.equal(`/ui/organizations/${orgId}/prices`);
      await page.getByText('No price entry yet').waitFor();

      // A new entry: any field left empty is null.
      await page.getByRole('button', { name: 'New price entry' }).click();
      let form = page.getByRole('form', { name: 'New price entry' });
      await form.getByLabel('Model or pattern').fill('acme-chat*');
      await form.getByLabel('Provider (empty: any)').fill('acme');
      await form.getByLabel('Currency').fill('EUR');
      await form.getByLabel('Input', { exact: true }).fill('0.5');
      await form.getByLabel('Output', { exact: true }).fill('1.5');
      await form.getByLabel('Cache read (empty: input price)').fill('0.25');
      await form.getByRole('button', { name: 'Create price entry' }).click();
      await page.getByTestId('price-entry-detail').waitFor();
      const [chat] = await listEntries(app(), orgId, owner.token);
      expect(chat).to.include({
        provider: 'acme',
        model: 'acme-chat*',
        input_price: 0.5,
        output_price: 1.5,
        cache_read_price: 0.25,
        cache_creation_price: null,
        request_price: null,
        currency: 'EUR',
        valid_from: null,
        valid_to: null,
      });
      expect(await page.getByTestId('price-entry-detail').getByRole('heading').innerText()).to.equal(`Price entry ${chat.id}`);
      const table = page.getByTestId('price-entries');
      expect((await table.locator('tbody tr').first().getByRole('cell').allInnerTexts()).slice(0, 10)).to.deep.equal([
        'acme',
        'acme-chat*',
        '0.5',
        '1.5',
        '0.25',
        'input',
        'none',
        'EUR',
        'always',
        'open-ended',
      ]);

      // The same provider and pattern from a later date overlaps it: the 422 sits beside "Valid from".
      await page.getByRole('button', { name: 'New price entry' }).click();
      form = page.getByRole('form', { name: 'New price entry' });
      await form.getByLabel('Model or pattern').fill('acme-chat*');
      await form.getByLabel('Provider (empty: any)').fill('acme');
      await form.getByLabel('Input', { exact: true }).fill('0.4');
      await form.getByLabel('Output', { exact: true }).fill('1.2');
      await form.getByLabel('Valid from').fill('2027-01-01T00:00');
      await form.getByRole('button', { name: 'Create price entry' }).click();
      await form.getByRole('alert').waitFor();
      expect(await issueBeside(page, form.getByLabel('Valid from'))).to.include(`overlaps the price entry ${chat.id}`);
      expect(await form.getByRole('alert').innerText()).to.equal('The price entry was not saved: correct the field marked above');
      expect(await form.getByLabel('Model or pattern').getAttribute('aria-invalid')).to.equal(null);
      expect(await accessibilityViolations(page), 'prices page with a 422 beside a field').to.deep.equal([]);
      await screenshot(page, `prices-form-issue-${app().database}`);

      // Another model, but a validity that ends before it starts: now "Valid to" is marked, and "Valid from" no longer.
      await form.getByLabel('Model or pattern').fill('acme-chat-pro');
      await form.getByLabel('Valid to').fill('2026-06-01T00:00');
      await form.getByRole('button', { name: 'Create price entry' }).click();
      await eventually(() => form.getByLabel('Valid to').getAttribute('aria-invalid'), 'true');
      expect(await issueBeside(page, form.getByLabel('Valid to'))).to.match(/valid_to/);
      expect(await form.getByLabel('Valid from').getAttribute('aria-invalid')).to.equal(null);
      expect(await listEntries(app(), orgId, owner.token)).to.have.length(1);

      await form.getByLabel('Valid to').fill('');
      await form.getByRole('button', { name: 'Create price entry' }).click();
      await eventually(async () => (await listEntries(app(), orgId, owner.token)).length, 2);
      const pro = (await listEntries(app(), orgId, owner.token)).find((entry) => entry.model === 'acme-chat-pro') as PriceEntry;
      expect(pro).to.include({ provider: 'acme', currency: 'USD', valid_from: '2027-01-01T00:00:00.000Z', valid_to: null });
      // Newest first.
      await eventually(() => table.locator('tbody tr td:nth-child(2)').allInnerTexts(), ['acme-chat-pro', 'acme-chat*']);

      // Edit: the form opens with the entry's values; only the changed field is sent.
      await page.getByRole('button', { name: 'Edit price entry acme-chat-pro' }).click();
      form = page.getByRole('form', { name: `Edit price entry ${pro.id}` });
      // (Chromium writes a time without its zero seconds.)
      expect(await form.getByLabel('Valid from').inputValue()).to.equal('2027-01-01T00:00');
      expect(await form.getByLabel('Output', { exact: true }).inputValue()).to.equal('1.2');
      await form.getByLabel('Output', { exact: true }).fill('3');
      await form.getByRole('button', { name: 'Save price entry' }).click();
      await eventually(async () => (await listEntries(app(), orgId, owner.token)).find((entry) => entry.id === pro.id)?.output_price, 3);
      expect((await listEntries(app(), orgId, owner.token)).find((entry) => entry.id === pro.id)).to.include({
        input_price: 0.4,
        valid_from: '2027-01-01T00:00:00.000Z',
      });

      // Delete, confirmed in the page.
      await page.getByRole('button', { name: 'Delete price entry acme-chat-pro' }).click();
      await page.getByRole('group', { name: 'Delete price entry acme-chat-pro' }).getByRole('button', { name: 'Yes, delete' }).click();
      await eventually(() => table.locator('tbody tr td:nth-child(2)').allInnerTexts(), ['acme-chat*']);
      expect((await listEntries(app(), orgId, owner.token)).map((entry) => entry.id)).to.deep.equal([chat.id]);
      // Its details, still open, say it is gone.
      await page.getByTestId('price-entry-detail').getByText('Not among the organization').waitFor();

      // The effective price: the entry for a model its pattern matches, with a link to it...
      const effective = page.getByRole('form', { name: 'Effective price' });
      await effective.getByLabel('Model').fill('acme-chat-large');
      await effective.getByLabel('Provider (optional)').fill('acme');
      await effective.getByRole('button', { name: 'Show the price' }).click();
      const answer = page.getByTestId('effective-price');
      await answer.waitFor();
      expect(await facts(answer)).to.deep.include({
        Source: `The organization's price entry ${chat.id}`,
        Matched: 'acme · acme-chat*',
        Currency: 'EUR',
        'Per million input tokens': '0.5 EUR',
        'Per million output tokens': '1.5 EUR',
        'Per million cache read tokens': '0.25 EUR',
        'Per million cache creation tokens': '0.5 EUR',
        'Per request': 'none',
      });
      await answer.getByRole('link', { name: chat.id }).click();
      await page
        .getByTestId('price-entry-detail')
        .getByRole('heading', { name: `Price entry ${chat.id}` })
        .waitFor();
      expect(new URL(page.url()).searchParams.get('entry')).to.equal(chat.id);

      // ...the default book, and its version, for a model the organization has no entry for...
      const book = await call(app().url, 'GET', `/organizations/${orgId}/effective-price`, {
        token: owner.token,
        query: { model: 'gpt-4o-mini', provider: 'openai' },
      });
      expectStatus(book, 200);
      await effective.getByLabel('Model').fill('gpt-4o-mini');
      await effective.getByLabel('Provider (optional)').fill('openai');
      await effective.getByRole('button', { name: 'Show the price' }).click();
      await page.getByRole('region', { name: 'Effective price of gpt-4o-mini' }).waitFor();
      expect(await facts(answer)).to.deep.include({
        Source: `The default price book, ${book.body.book}`,
        Matched: `openai · ${book.body.model}`,
        Currency: 'USD',
        'Per million input tokens': `${book.body.input_price} USD`,
      });
      // ...and none, with the reason, for a model nobody prices.
      await effective.getByLabel('Model').fill('no-such-model-anywhere');
      await effective.getByLabel('Provider (optional)').fill('');
      await effective.getByRole('button', { name: 'Show the price' }).click();
      await page.getByRole('region', { name: 'Effective price of no-such-model-anywhere' }).waitFor();
      expect((await facts(answer)).Source).to.equal('Unpriced: unknown model');
      expect(await accessibilityViolations(page), 'prices page').to.deep.equal([]);
      await screenshot(page, `prices-${app().database}`);

      // The owner's changes are in the organization's audit log, which narrows to price entries.
      await page.goto(`${app().url}/ui/organizations/${orgId}`);
      await page.getByRole('form', { name: 'Filter the audit log' }).getByLabel('Show').selectOption('price_entry');
      await eventually(
        () => page.getByTestId('audit-log').locator('tbody tr td:nth-child(3)').allInnerTexts(),
        ['deletePriceEntry', 'updatePriceEntry', 'createPriceEntry', 'createPriceEntry'],
      );
      await expectNoPageFailures(watch);

      // A member reads the same entries and prices, with no control the service would refuse (403).
      const refused = await call(app().url, 'POST', `/organizations/${orgId}/price-entries`, {
        token: member.token,
        json: { model: 'x', input_price: 1, output_price: 1, currency: 'USD' },
      });
      expectStatus(refused, 403);
      await signInAs(memberWatch, app(), member, 'Milo');
      const memberPage = memberWatch.page;
      await memberPage.goto(`${app().url}/ui/organizations/${orgId}/prices`);
      const memberTable = memberPage.getByTestId('price-entries');
      await memberTable.waitFor();
      expect(await memberTable.locator('tbody tr td:nth-child(2)').allInnerTexts()).to.deep.equal(['acme-chat*']);
      expect(await memberTable.getByRole('columnheader').allInnerTexts()).not.to.include('Actions');
      expect(await memberPage.getByRole('button', { name: 'New price entry' }).count()).to.equal(0);
      expect(await memberPage.getByRole('button', { name: /^(Edit|Delete) price entry/ }).count()).to.equal(0);
      await memberPage.getByText('Owners create, edit and delete the organization').waitFor();
      await memberPage.goto(`${app().url}/ui/organizations/${orgId}/prices?entry=${chat.id}`);
      await memberPage.getByTestId('price-entry-detail').getByText('acme-chat*').waitFor();
      expect(await memberPage.getByRole('button', { name: 'Edit this entry' }).count()).to.equal(0);
      const memberEffective = memberPage.getByRole('form', { name: 'Effective price' });
      await memberEffective.getByLabel('Model').fill('acme-chat');
      await memberEffective.getByRole('button', { name: 'Show the price' }).click();
      // The entry names provider acme: a call that names none is not its.
      expect((await facts(memberPage.getByTestId('effective-price'))).Source).to.equal('Unpriced: unknown model');
      await expectNoPageFailures(memberWatch);
    } finally {
      await watch.context.close();
      await memberWatch.context.close();
    }
  });

  it('pages the entries newest first, as the API pages them oldest first', async function () {
    this.timeout(60_000);
    const owner = await seedUser(app(), 'Pia');
    const orgId = await seedOrganization(app().server.knex, [[owner.userId, 'owner']]);
    const start = Date.now() - 3_600_000;
    for (let index = 0; index < 23; index += 1)
      await seedPriceEntry(app().server.knex, orgId, { model: `model-${String(index).padStart(2, '0')}` }, start + index * 1000);
    const watch = await openPage(browser());
    try {
      const { page } = watch;
      await signInAs(watch, app(), owner, 'Pia');
      await page.goto(`${app().url}/ui/organizations/${orgId}/prices`);
      const models = page.getByTestId('price-entries').locator('tbody tr td:nth-child(2)');
      const newest = Array.from({ length: 20 }, (_, index) => `model-${String(22 - index).padStart(2, '0')}`);
      await eventually(() => models.allInnerTexts(), newest);
      const pager = page.getByRole('navigation', { name: 'Price entry pages' });
      expect(await pager.innerText()).to.include('1–20 of 23, newest first (page 1 of 2)');
      await pager.getByRole('button', { name: 'Older' }).click();
      await eventually(() => models.allInnerTexts(), ['model-02', 'model-01', 'model-00']);
      expect(await pager.innerText()).to.include('21–23 of 23');
      expect(await pager.getByRole('button', { name: 'Older' }).isDisabled()).to.equal(true);
      await pager.getByRole('button', { name: 'Newer' }).click();
      await eventually(() => models.allInnerTexts(), newest);
      await expectNoPageFailures(watch);
    } finally {
      await watch.context.close();
    }
  });

  it("lists an application's unpriced calls by model and reason, prefills a price for them, and shows a span's price in the panel", async function () {
    this.timeout(120_000);
    const owner = await seedUser(app(), 'Quinn');
    const orgId = await seedOrganization(app().server.knex, [[owner.userId, 'owner']]);
    const appId = await seedApplication(app().server.knex, orgId);
    const entryId = await seedPriceEntry(app().server.knex, orgId, {
      model: 'house-model',
      input_price: 2,
      output_price: 4,
      currency: 'EUR',
    });
    const key = await seedApiKey(app().server.knex, appId, ['write:traces']);
    const start = Date.now() - 600_000;
    const llmCall = (model: string | undefined, input: number, output: number, provider?: string) => ({
      ...(model === undefined ? {} : { 'gen_ai.request.model': model }),
      ...(provider === undefined ? {} : { 'gen_ai.provider.name': provider }),
      'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': output,
    });
    // Two calls of a model no price knows, one without a model, one priced by the entry, one by the book.
    const unknown = await recordTrace(
      start,
      { service: 'chat', name: 'mystery call', attributes: llmCall('mystery-llm', 100, 50, 'acme') },
      [{ service: 'chat', name: 'mystery retry', attributes: llmCall('mystery-llm', 300, 20, 'acme') }],
    );
    const noModel = await recordTrace(start + 1000, { service: 'chat', name: 'anonymous call', attributes: llmCall(undefined, 10, 5) });
    const house = await recordTrace(start + 2000, { service: 'chat', name: 'house call', attributes: llmCall('house-model', 1000, 500) });
    const book = await recordTrace(start + 3000, {
      service: 'chat',
      name: 'book call',
      attributes: llmCall('gpt-4o-mini', 1000, 500, 'openai'),
    });
    const exporter = new OTLPTraceExporter({
      url: `${app().url}/v1/traces`,
      headers: { Authorization: `Basic ${Buffer.from(`${key.apiKey}:${key.secret}`).toString('base64')}` },
    });
    expectExported(await exportSpans(exporter, [...unknown.spans, ...noModel.spans, ...house.spans, ...book.spans]));
    await exporter.shutdown();

    const watch = await openPage(browser());
    try {
      const { page } = watch;
      await signInAs(watch, app(), owner, 'Quinn');
      await page.goto(`${app().url}/ui/organizations/${orgId}/prices`);
      const table = page.getByRole('table', { name: 'Unpriced LLM calls, last 24 hours' });
      await table.waitFor();
      const rows = () =>
        table
          .locator('tbody tr')
          .evaluateAll((items) => items.map((item) => [...item.querySelectorAll('td')].map((cell) => cell.textContent ?? '')));
      const expected = [
        ['mystery-llm', 'acme', 'unknown model', '2', '470', 'Add a price'],
        ['none', 'none', 'no model named', '1', '15', ''],
      ];
      expect(await rows()).to.deep.equal(expected);
      await page.getByRole('radio', { name: 'Last 7 days' }).check();
      await page.getByRole('table', { name: 'Unpriced LLM calls, last 7 days' }).waitFor();
      expect(
        (await page.getByRole('table', { name: 'Unpriced LLM calls, last 7 days' }).locator('tbody tr').first().innerText()).split('\t')[3],
      ).to.equal('2');
      expect(await accessibilityViolations(page), 'prices page with unpriced calls').to.deep.equal([]);

      // "Add a price" opens the form with the model and the provider the calls named.
      await page.getByRole('button', { name: 'Add a price for mystery-llm' }).click();
      const form = page.getByRole('form', { name: 'New price entry' });
      expect(await form.getByLabel('Model or pattern').inputValue()).to.equal('mystery-llm');
      expect(await form.getByLabel('Provider (empty: any)').inputValue()).to.equal('acme');
      expect(await form.getByLabel('Currency').inputValue()).to.equal('USD');
      expect(await page.evaluate('document.activeElement && document.activeElement.value'), 'the focus').to.equal('mystery-llm');
      await screenshot(page, `prices-unpriced-${app().database}`);

      // The span panel: an entry's price (linked), the book's, and an unpriced call's reason.
      await page.goto(`${app().url}/ui/traces/${house.traceId}?app=${appId}`);
      await page.getByRole('button', { name: 'house call', exact: true }).click();
      const panel = page.getByTestId('span-panel');
      await panel.getByRole('heading', { name: 'house call' }).waitFor();
      // (1000 × 2 + 500 × 4) / 10^6 in the entry's currency.
      expect((await facts(panel.locator('dl.span-fields').nth(1))).Cost).to.equal('0.004 EUR');
      const link = panel.getByRole('link', { name: entryId });
      await link.waitFor();
      expect((await modelGroup(page)).slice(-2)).to.deep.equal([
        ['Cost source', 'computed'],
        ['Price used', `entry ${entryId} (any provider · house-model)`],
      ]);
      expect(await accessibilityViolations(page), 'span panel with a price').to.deep.equal([]);
      await screenshot(page, `span-panel-price-${app().database}`);
      await link.click();
      await page
        .getByTestId('price-entry-detail')
        .getByRole('heading', { name: `Price entry ${entryId}` })
        .waitFor();
      expect(new URL(page.url()).pathname).to.equal(`/ui/organizations/${orgId}/prices`);

      const bookSpan = await call(app().url, 'GET', `/traces/${book.traceId}`, {
        token: owner.token,
        headers: { 'X-Vendor-App-Id': appId },
      });
      const priced = bookSpan.body.data[0];
      await page.goto(`${app().url}/ui/traces/${book.traceId}?app=${appId}`);
      await page.getByRole('button', { name: 'book call', exact: true }).click();
      await panel.getByRole('heading', { name: 'book call' }).waitFor();
      expect(priced.pricing.book).to.match(/^genai-prices /);
      expect((await modelGroup(page)).slice(-2)).to.deep.equal([
        ['Cost source', 'computed'],
        ['Price used', `default book ${priced.pricing.book} (openai · ${priced.pricing.model})`],
      ]);
      expect((await facts(panel.locator('dl.span-fields').nth(1))).Cost).to.match(/ USD$/);

      await page.goto(`${app().url}/ui/traces/${unknown.traceId}?app=${appId}`);
      await page.getByRole('button', { name: 'mystery call', exact: true }).click();
      await panel.getByRole('heading', { name: 'mystery call' }).waitFor();
      expect((await modelGroup(page)).slice(-1)).to.deep.equal([['Cost source', 'unpriced: unknown model']]);
      expect((await facts(panel.locator('dl.span-fields').nth(1))).Cost).to.equal('—');
      await expectNoPageFailures(watch);
    } finally {
      await watch.context.close();
    }
  });
});

describe('prices page: newest first over pages, entry bodies, unpriced rows', () => {
  const windows: Array<[string, { total: number; shown: number; want: ReturnType<typeof newestFirstWindow> }]> = [
    ['nothing', { total: 0, shown: 1, want: { pages: [], skip: 0, count: 0 } }],
    ['fewer than a page', { total: 3, shown: 1, want: { pages: [1], skip: 0, count: 3 } }],
    ['exactly a page', { total: 20, shown: 1, want: { pages: [1], skip: 0, count: 20 } }],
    ['the newest straddle two pages', { total: 23, shown: 1, want: { pages: [1, 2], skip: 3, count: 20 } }],
    ['the oldest, a partial page', { total: 23, shown: 2, want: { pages: [1], skip: 0, count: 3 } }],
    ['whole pages', { total: 40, shown: 2, want: { pages: [1], skip: 0, count: 20 } }],
    ['past the end', { total: 23, shown: 3, want: { pages: [], skip: 0, count: 0 } }],
  ];
  for (const [name, { total, shown, want }] of windows) {
    it(`finds the newest-first page: ${name}`, () => {
      expect(newestFirstWindow(total, 20, shown)).to.deep.equal(want);
    });
  }

  it('takes the window newest first from its pages', () => {
    const all = Array.from({ length: 45 }, (_, index) => index);
    for (const shown of [1, 2, 3]) {
      const window = newestFirstWindow(45, 20, shown);
      const items = window.pages.flatMap((page) => all.slice((page - 1) * 20, page * 20));
      const want = all
        .slice()
        .reverse()
        .slice((shown - 1) * 20, shown * 20);
      expect(newestFirstRows(items, window), `page ${shown}`).to.deep.equal(want);
    }
  });

  const entry: PriceEntry = {
    id: 'pe_1',
    organization_id: 'org_1',
    provider: null,
    model: 'gpt-4o*',
    input_price: 0.14,
    output_price: 0.55,
    cache_read_price: null,
    cache_creation_price: 0.2,
    request_price: null,
    currency: 'EUR',
    valid_from: '2026-11-01T00:00:00.000Z',
    valid_to: null,
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-01T00:00:00.000Z',
  };

  it('sends a new entry with empty fields as null and times as UTC', () => {
    expect(
      createBody({ ...EMPTY_DRAFT, model: ' m* ', input_price: '1', output_price: '2.5', valid_from: '2027-01-01T12:30', valid_to: '' }),
    ).to.deep.equal({
      provider: null,
      model: 'm*',
      input_price: 1,
      output_price: 2.5,
      cache_read_price: null,
      cache_creation_price: null,
      request_price: null,
      currency: 'USD',
      valid_from: '2027-01-01T12:30:00.000Z',
      valid_to: null,
    });
  });

  it('sends only the fields an edit changed, null for a field emptied', () => {
    const draft = draftOf(entry);
    expect(updateBody(entry, draft)).to.deep.equal({});
    expect(updateBody(entry, { ...draft, input_price: '0.140', valid_from: '2026-11-01T00:00' }), 'the same values').to.deep.equal({});
    expect(updateBody(entry, { ...draft, output_price: '0.6', cache_creation_price: '', valid_to: '2027-01-01T00:00:00' })).to.deep.equal({
      output_price: 0.6,
      cache_creation_price: null,
      valid_to: '2027-01-01T00:00:00.000Z',
    });
  });

  it('sums each group over its buckets; no tokens stays none', () => {
    const rows = unpricedRows({
      grain: 'spans',
      granularity: 'day',
      bucket_width_ns: 86_400_000_000_000,
      groups: [
        {
          key: { model: 'm', provider: 'p', 'pricing.unpriced_reason': 'unknown_model' },
          points: [
            { bucket_start_unix_nano: 0, values: [2, 30] },
            { bucket_start_unix_nano: 1, values: [1, 5] },
          ],
        },
        {
          key: { model: 'n', provider: null, 'pricing.unpriced_reason': 'no_usage' },
          points: [{ bucket_start_unix_nano: 0, values: [4, null] }],
        },
      ],
      other: { points: [{ bucket_start_unix_nano: 0, values: [7, 70] }] },
      truncated: true,
    });
    expect(rows).to.deep.equal({
      rows: [
        { model: 'm', provider: 'p', reason: 'unknown_model', calls: 3, tokens: 35 },
        { model: 'n', provider: null, reason: 'no_usage', calls: 4, tokens: null },
      ],
      other: { calls: 7, tokens: 70 },
    });
  });
});
