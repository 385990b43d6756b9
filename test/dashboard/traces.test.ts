// The traces view in a real Chromium against the real service, on every database: traces sent by a
// real OpenTelemetry exporter, a filter built in the page (an OR group) lists exactly what
// POST /traces answers for it, the URL holds it and a reload shows the same list, the child-span
// switch changes the answer as the API does, pages go forward and back by cursor, an invalid
// filter shows the engine's 422 message, a trace opens as a nested waterfall with a span panel, and
// a span's model and token counts show in the panel and filter the list; a column header sorts the
// list on the server (aria-sort, the sort in the URL, paging on by cursor without repeats). Times
// are written in the zone chosen in the header (local or UTC, remembered); the main views pass axe
// in the dark theme and fit a 390 px screen.
// Also the filter builder's pure parts: the words read from the served engine document and the
// draft <-> FilterNode conversions.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import {
  addChild,
  emptyGroup,
  fromDraft,
  newCondition,
  removeNode,
  toDraft,
  toggleNot,
  updateCondition,
} from '../../ui/src/filter-tree.js';
import { vocabularyFromDocument } from '../../ui/src/filter-vocabulary.js';
import { formatDateTime, formatUnixNano } from '../../ui/src/time-format.js';
import { seedApiKey, seedApplication, seedOrganization, seedUser, type SeededUser } from '../support/accounts.js';
import { accessibilityViolations, openPage, screenshot, signInLink, useBrowser, type PageWatch } from '../support/dashboard.js';
import { expectExported, exportSpans, recordTrace } from '../support/otel.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const FILLER_TRACES = 22;

/** Text that would run or make elements if it were ever rendered as HTML. */
const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg onload=alert(1)>',
  '<iframe src=javascript:alert(1)></iframe>',
  '</td><b onmouseover=window.__xss=1>x</b>',
];

interface SeededTraces {
  member: SeededUser;
  orgId: string;
  appId: string;
  /** Trace ids by root span name. */
  ids: Map<string, string>;
}

/** An organization with a member (who signs in) and an application whose traces a real exporter sends. */
async function seedTraces(app: TestServer): Promise<SeededTraces> {
  const member = await seedUser(app, 'member');
  const orgId = await seedOrganization(app.server.knex, [[member.userId, 'member']]);
  const appId = await seedApplication(app.server.knex, orgId);
  const key = await seedApiKey(app.server.knex, appId, ['write:traces']);
  const base = Date.now() - 3_600_000;
  const recorded = [
    await recordTrace(base + 1000, { service: 'shop', name: 'POST /checkout', attributes: { 'http.route': '/checkout' } }, [
      { service: 'payments', name: 'charge card', attributes: { 'payment.provider': 'stripe', 'vendor.cost': 0.0042 } },
      { service: 'shop', name: 'render receipt' },
    ]),
    await recordTrace(base + 2000, { service: 'shop', name: 'GET /search', attributes: { 'http.route': '/search' } }, [
      { service: 'db', name: 'db query' },
    ]),
    await recordTrace(base + 3000, { service: 'auth', name: 'POST /login', attributes: { 'http.route': '/login' }, error: true }),
    await recordTrace(base + 4000, { service: 'batch', name: 'nightly report', attributes: { 'job.kind': 'nightly' } }),
  ];
  for (let index = 0; index < FILLER_TRACES; index += 1)
    recorded.push(await recordTrace(base + 10_000 + index * 1000, { service: 'filler', name: `filler ${index}` }));
  const exporter = new OTLPTraceExporter({
    url: `${app.url}/v1/traces`,
    headers: { Authorization: `Basic ${Buffer.from(`${key.apiKey}:${key.secret}`).toString('base64')}` },
  });
  expectExported(
    await exportSpans(
      exporter,
      recorded.flatMap((item) => item.spans),
    ),
  );
  await exporter.shutdown();
  const ids = new Map(recorded.map((item) => [item.spans[0].name, item.traceId]));
  return { member, orgId, appId, ids };
}

interface ApiPage {
  ids: string[];
  nextCursor: string | null;
  status: number;
  body: { detail?: Array<{ msg: string }> };
}

/** What POST /traces answers the member for a filter (the page's window: the last 24 hours). */
async function apiTraces(
  app: TestServer,
  seeded: SeededTraces,
  filter: unknown,
  searchChildren = false,
  cursor?: string,
  window?: { start: string; end: string },
  sort?: { sort: string; order: string },
): Promise<ApiPage> {
  const now = Date.now();
  const query = new URLSearchParams({
    start_time: window?.start ?? new Date(now - 86_400_000).toISOString(),
    end_time: window?.end ?? new Date(now + 60_000).toISOString(),
    limit: '20',
    search_child_spans: String(searchChildren),
  });
  if (cursor) query.set('cursor', cursor);
  if (sort) {
    query.set('sort', sort.sort);
    query.set('order', sort.order);
  }
  const response = await fetch(`${app.url}/traces?${query}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${seeded.member.token}`, 'X-Vendor-App-Id': seeded.appId, 'Content-Type': 'application/json' },
    body: JSON.stringify(filter === undefined ? {} : { filter }),
  });
  const body = (await response.json()) as {
    data?: Array<{ trace_id: string }>;
    next_cursor?: string | null;
    detail?: Array<{ msg: string }>;
  };
  return { ids: (body.data ?? []).map((item) => item.trace_id), nextCursor: body.next_cursor ?? null, status: response.status, body };
}

/** The trace ids the page lists, once its list has settled on `expected` (or the suite times out saying what it saw). */
async function listedTraceIds(page: Page): Promise<string[]> {
  await page.getByTestId('traces-count').waitFor();
  return page.locator('table.traces-table tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-trace-id') ?? ''));
}

async function waitForList(page: Page, expected: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = await listedTraceIds(page).catch(() => []);
    if (JSON.stringify(seen) === JSON.stringify(expected)) return;
    await page.waitForTimeout(100);
  }
  expect(seen, 'the listed traces').to.deep.equal(expected);
}

function urlFilter(page: Page): unknown {
  const text = new URL(page.url()).searchParams.get('filter');
  return text === null ? undefined : JSON.parse(text);
}

async function signIn(app: TestServer, watch: PageWatch, member: SeededUser): Promise<void> {
  await watch.page.goto(await signInLink(app, { subject: member.subject, name: 'Mia Member' }));
  // The header names the user as stored (seeded as "member").
  await watch.page.getByTestId('user-name').filter({ hasText: 'member' }).waitFor();
}

function expectNothingRan(watch: PageWatch): void {
  expect(watch.pageErrors, 'page errors').to.deep.equal([]);
  expect(watch.dialogs, 'dialogs').to.deep.equal([]);
  expect(watch.cspViolations, 'CSP violations').to.deep.equal([]);
}

onEachDatabase('dashboard traces view', (app) => {
  const browser = useBrowser();
  let seeded: SeededTraces;

  before(async function () {
    this.timeout(60_000);
    seeded = await seedTraces(app());
  });

  it('lists exactly the traces a filter built in the page matches, keeps it in the URL, and reloads to the same list', async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      await signIn(app(), watch, seeded.member);
      await page.goto(`${app().url}/ui/traces?app=${seeded.appId}`);
      const everything = await apiTraces(app(), seeded, undefined);
      expect(everything.ids).to.have.length(20);
      await waitForList(page, everything.ids);

      // Any of: the route is /checkout, or the service is auth.
      await page.getByLabel('Traces matching').selectOption('or');
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.getByLabel('Field').nth(0).fill('span_attributes.http.route');
      await page.getByLabel('Operator').nth(0).selectOption('eq');
      await page.getByLabel('Value', { exact: true }).nth(0).fill('/checkout');
      await page.getByLabel('Field').nth(1).fill('service_name');
      await page.getByLabel('Operator').nth(1).selectOption('eq');
      await page.getByLabel('Value', { exact: true }).nth(1).fill('auth');
      await page.getByRole('button', { name: 'Apply filter' }).click();

      const filter = {
        or: [
          { field: 'span_attributes.http.route', op: 'eq', value: '/checkout' },
          { field: 'service_name', op: 'eq', value: 'auth' },
        ],
      };
      const expected = await apiTraces(app(), seeded, filter);
      expect(expected.ids).to.have.members([seeded.ids.get('POST /checkout'), seeded.ids.get('POST /login')]);
      await waitForList(page, expected.ids);
      expect(urlFilter(page), 'the filter in the URL').to.deep.equal(filter);
      expect(await page.locator('table.traces-table').innerText())
        .to.include('POST /checkout')
        .and.include('POST /login')
        .and.not.include('GET /search');
      await screenshot(page, `traces-filtered-${app().database}`);
      expect(await accessibilityViolations(page), 'traces view').to.deep.equal([]);

      // The same URL in a reload: the same filter in the builder, the same list.
      await page.reload();
      await waitForList(page, expected.ids);
      expect(await page.getByLabel('Field').nth(0).inputValue()).to.equal('span_attributes.http.route');
      expect(await page.getByLabel('Traces matching').inputValue()).to.equal('or');

      // A NOT around the second condition: the login trace goes, as the API says.
      await page.getByRole('button', { name: 'Negate', exact: true }).nth(1).click();
      await page.getByRole('button', { name: 'Apply filter' }).click();
      const negated = { or: [filter.or[0], { not: filter.or[1] }] };
      const withNot = await apiTraces(app(), seeded, negated);
      await waitForList(page, withNot.ids);
      expect(urlFilter(page)).to.deep.equal(negated);
      expect(withNot.ids).to.have.length(20).and.not.include(seeded.ids.get('POST /login'));
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it('searches child spans when asked, as the API does; list operators and presence operators build their values', async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      await signIn(app(), watch, seeded.member);
      const filter = { field: 'span_attributes.payment.provider', op: 'in', value: ['stripe', 'adyen'] };
      await page.goto(`${app().url}/ui/traces?app=${seeded.appId}`);
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.getByLabel('Field').fill('span_attributes.payment.provider');
      await page.getByLabel('Operator').selectOption('in');
      await page.getByLabel('Values, one per line').fill('stripe\nadyen');
      await page.getByRole('button', { name: 'Apply filter' }).click();
      const rootsOnly = await apiTraces(app(), seeded, filter, false);
      const anySpan = await apiTraces(app(), seeded, filter, true);
      expect(rootsOnly.ids).to.deep.equal([]);
      expect(anySpan.ids).to.deep.equal([seeded.ids.get('POST /checkout')]);
      await page.getByTestId('traces-count').filter({ hasText: 'No trace matches' }).waitFor();
      await waitForList(page, rootsOnly.ids);
      expect(urlFilter(page)).to.deep.equal(filter);

      await page.getByLabel('Search child spans').check();
      await waitForList(page, anySpan.ids);
      expect(new URL(page.url()).searchParams.get('children')).to.equal('1');
      await page.reload();
      await waitForList(page, anySpan.ids);
      expect(await page.getByLabel('Search child spans').isChecked()).to.equal(true);
      await page.getByLabel('Search child spans').uncheck();
      await waitForList(page, rootsOnly.ids);

      // `exists` takes no value: the value box goes, and the condition is sent without one.
      await page.getByLabel('Operator').selectOption('exists');
      expect(await page.getByLabel('Values, one per line').count()).to.equal(0);
      expect(await page.getByLabel('Value', { exact: true }).count()).to.equal(0);
      await page.getByLabel('Field').fill('span_attributes.job.kind');
      await page.getByRole('button', { name: 'Apply filter' }).click();
      const presence = { field: 'span_attributes.job.kind', op: 'exists' };
      await waitForList(page, (await apiTraces(app(), seeded, presence)).ids);
      expect(urlFilter(page)).to.deep.equal(presence);
      expect(await listedTraceIds(page)).to.deep.equal([seeded.ids.get('nightly report')]);
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it('says how to widen a search that found nothing: child spans (with their count, turned on in place), the filter, the range', async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    const traces = (query: Record<string, string>) => `${app().url}/ui/traces?${new URLSearchParams({ app: seeded.appId, ...query })}`;
    try {
      await signIn(app(), watch, seeded.member);
      // The seeded traces started an hour ago: the last 15 minutes hold none, whatever the filter.
      const stripe = { field: 'span_attributes.payment.provider', op: 'eq', value: 'stripe' };
      await page.goto(traces({ range: '15m', filter: JSON.stringify(stripe) }));
      const empty = page.getByTestId('traces-empty');
      await empty.getByText('No child span matches either.').waitFor();
      expect(await empty.getByTestId('widen-children').innerText()).to.include(`span_attributes.payment.provider = "stripe"`);
      expect(await empty.getByTestId('widen-filter').innerText()).to.include('span_attributes.payment.provider = "stripe"');
      expect(await empty.getByTestId('widen-range').innerText()).to.include('the last 15 minutes');
      expect(await accessibilityViolations(page), 'the empty state').to.deep.equal([]);
      await screenshot(page, `traces-empty-${app().database}`);
      await empty.getByRole('button', { name: 'Widen to the last hour' }).click();
      await page.waitForURL((url) => url.searchParams.get('range') === '1h');

      // Six hours hold the checkout trace, whose stripe span is a child: counted, and found in one click.
      const anySpan = await apiTraces(app(), seeded, stripe, true);
      expect(anySpan.ids).to.deep.equal([seeded.ids.get('POST /checkout')]);
      await page.goto(traces({ range: '6h', filter: JSON.stringify(stripe) }));
      await empty.getByText('1 trace has a matching child span.').waitFor();
      await empty.getByRole('button', { name: 'Search child spans' }).click();
      await waitForList(page, anySpan.ids);
      expect(new URL(page.url()).searchParams.get('children')).to.equal('1');
      expect(await page.getByLabel('Search child spans').isChecked()).to.equal(true);
      expect(await page.getByTestId('traces-empty').count()).to.equal(0);

      // A trace-level condition reads the whole trace either way: no child-span offer, the filter can go.
      await page.goto(traces({ range: '6h', filter: JSON.stringify({ field: 'trace.total_cost', op: 'gt', value: 100 }) }));
      await empty.getByTestId('widen-filter').waitFor();
      expect(await empty.getByTestId('widen-children').count()).to.equal(0);
      await empty.getByRole('button', { name: 'Clear the filter' }).click();
      await page.waitForURL((url) => !url.searchParams.has('filter'));
      await page.locator('table.traces-table tbody tr').first().waitFor();
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it('pages forward by next_cursor and back, as the API pages, with the page in the URL; the Metrics link keeps the query', async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      await signIn(app(), watch, seeded.member);
      await page.goto(`${app().url}/ui/traces?app=${seeded.appId}`);
      // The API walked with one fixed window, as the page walks: a cursor holds to its query.
      const window = { start: new Date(Date.now() - 86_400_000).toISOString(), end: new Date(Date.now() + 60_000).toISOString() };
      const first = await apiTraces(app(), seeded, undefined, false, undefined, window);
      expect(first.nextCursor).to.be.a('string');
      await waitForList(page, first.ids);
      await page
        .getByTestId('traces-count')
        .filter({ hasText: `Traces 1–20 of ${FILLER_TRACES + 4}` })
        .waitFor();
      expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).to.equal(true);

      await page.getByRole('button', { name: 'Next page' }).click();
      // The second page: the remaining traces, oldest last (the API's order).
      const second = await apiTraces(app(), seeded, undefined, false, first.nextCursor as string, window);
      expect(second.status).to.equal(200);
      expect(second.ids).to.have.length(FILLER_TRACES + 4 - 20);
      await waitForList(page, second.ids);
      await page
        .getByTestId('traces-count')
        .filter({ hasText: `Traces 21–${FILLER_TRACES + 4} of ${FILLER_TRACES + 4}` })
        .waitFor();
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).to.equal(true);
      expect(second.ids.at(-1)).to.equal(seeded.ids.get('POST /checkout'));
      // The page is in the URL: a reload (or a shared link) opens the same page, by its number.
      await page.waitForURL((url) => url.searchParams.get('page') === '2');
      await page.reload();
      await waitForList(page, second.ids);
      await page.getByRole('navigation', { name: 'Pages of traces' }).getByText('Page 2').waitFor();

      await page.getByRole('button', { name: 'Previous page' }).click();
      await waitForList(page, first.ids);
      await page.waitForURL((url) => !url.searchParams.has('page'));
      expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).to.equal(true);

      // The header's Metrics link keeps the application, the window and the filter.
      const filter = { field: 'service_name', op: 'eq', value: 'shop' };
      await page.goto(`${app().url}/ui/traces?app=${seeded.appId}&range=6h&filter=${encodeURIComponent(JSON.stringify(filter))}`);
      const metricsLink = new URL(
        (await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Metrics' }).getAttribute('href')) ?? '',
        app().url,
      );
      expect(Object.fromEntries(metricsLink.searchParams)).to.deep.equal({
        app: seeded.appId,
        range: '6h',
        filter: JSON.stringify(filter),
      });
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it('sorts by cost from its header on the server: most expensive first, then cheapest, paged on by cursor, kept in the URL', async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      // An application of its own: 25 traces whose costs all differ, in no order of their starts.
      const orgId = await seedOrganization(app().server.knex, [[seeded.member.userId, 'member']]);
      const appId = await seedApplication(app().server.knex, orgId);
      const key = await seedApiKey(app().server.knex, appId, ['write:traces']);
      const start = Date.now() - 1_800_000;
      const costs = Array.from({ length: 25 }, (_unused, index) => ((index * 7) % 25) + 1).map((units) => units / 1000);
      const recorded: Array<Awaited<ReturnType<typeof recordTrace>>> = [];
      for (const [index, cost] of costs.entries())
        recorded.push(
          await recordTrace(start + index * 1000, { service: 'shop', name: `order ${index}`, attributes: { 'vendor.cost': cost } }),
        );
      const exporter = new OTLPTraceExporter({
        url: `${app().url}/v1/traces`,
        headers: { Authorization: `Basic ${Buffer.from(`${key.apiKey}:${key.secret}`).toString('base64')}` },
      });
      expectExported(
        await exportSpans(
          exporter,
          recorded.flatMap((item) => item.spans),
        ),
      );
      await exporter.shutdown();
      const traces = { ...seeded, appId };
      const byCost = [...recorded.keys()].sort((a, b) => costs[b]! - costs[a]!).map((index) => recorded[index]!.traceId);
      const header = (name: string) =>
        page.locator('table.traces-table thead th').filter({ has: page.getByRole('button', { name, exact: true }) });
      // The Cost header marks the order and the URL carries it (a shared link keeps it).
      const expectByCost = async (order: 'asc' | 'desc') => {
        expect(await header('Cost').getAttribute('aria-sort')).to.equal(order === 'desc' ? 'descending' : 'ascending');
        expect(Object.fromEntries(new URL(page.url()).searchParams)).to.include({ sort: 'total_cost', order });
      };

      await signIn(app(), watch, seeded.member);
      await page.goto(`${app().url}/ui/traces?app=${appId}`);
      await waitForList(page, (await apiTraces(app(), traces, undefined)).ids);
      expect(await header('Start').getAttribute('aria-sort')).to.equal('descending');
      expect(await header('Cost').getAttribute('aria-sort')).to.equal(null);

      await page.getByRole('button', { name: 'Cost', exact: true }).click();
      const desc = await apiTraces(app(), traces, undefined, false, undefined, undefined, { sort: 'total_cost', order: 'desc' });
      expect(desc.ids).to.deep.equal(byCost.slice(0, 20));
      await waitForList(page, desc.ids);
      expect((await listedTraceIds(page))[0], 'the most expensive trace first').to.equal(byCost[0]);
      await expectByCost('desc');
      expect(await header('Start').getAttribute('aria-sort')).to.equal(null);
      expect(await accessibilityViolations(page), 'traces sorted by cost').to.deep.equal([]);

      // Again: the cheapest first.
      await page.getByRole('button', { name: 'Cost', exact: true }).click();
      const ascending = [...byCost].reverse();
      await waitForList(page, ascending.slice(0, 20));
      expect((await listedTraceIds(page))[0], 'the cheapest trace first').to.equal(ascending[0]);
      await expectByCost('asc');
      await screenshot(page, `traces-by-cost-${app().database}`);

      // The next page goes on from the cursor: the rest, none repeated.
      await page.getByRole('button', { name: 'Next page' }).click();
      await waitForList(page, ascending.slice(20));
      await page.getByTestId('traces-count').filter({ hasText: 'Traces 21–25 of 25' }).waitFor();

      // A reload (a shared link) keeps the order and the page (by its number).
      await page.reload();
      await waitForList(page, ascending.slice(20));
      await expectByCost('asc');
      expect(new URL(page.url()).searchParams.get('page')).to.equal('2');

      // Another column starts highest first; back to Start drops the order from the URL.
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await waitForList(page, (await apiTraces(app(), traces, undefined)).ids);
      expect(await header('Start').getAttribute('aria-sort')).to.equal('descending');
      expect(new URL(page.url()).searchParams.has('sort')).to.equal(false);
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it("shows the engine's 422 message for a filter it refuses, with 1-based rows, and marks the refused row in the builder", async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      await signIn(app(), watch, seeded.member);
      // The second row of an OR group is refused: the engine's loc is ["body", "filter", "or", 1, ...].
      const filter = {
        or: [
          { field: 'service_name', op: 'eq', value: 'shop' },
          { field: 'duration_ms', op: 'contains', value: '12' },
        ],
      };
      const refused = await apiTraces(app(), seeded, filter);
      expect(refused.status).to.equal(422);
      const issue = (refused.body.detail as Array<{ loc: unknown[]; msg: string }> | undefined)?.[0];
      expect(issue?.loc.slice(0, 4)).to.deep.equal(['body', 'filter', 'or', 1]);
      const message = issue?.msg ?? '';
      expect(message).not.to.equal('');
      await page.goto(`${app().url}/ui/traces?app=${seeded.appId}&filter=${encodeURIComponent(JSON.stringify(filter))}`);
      const alert = page.getByTestId('traces-error');
      await alert.waitFor();
      expect(await alert.innerText())
        .to.include(message)
        .and.include('filter, row 2 of the OR group');
      // The builder shows the refused filter, to be corrected, its second row marked and described.
      const rows = page.locator('.filter-condition');
      await rows.nth(1).locator('.filter-issue').waitFor();
      expect(await page.getByLabel('Field').nth(1).inputValue()).to.equal('duration_ms');
      expect(await page.getByLabel('Operator').nth(1).inputValue()).to.equal('contains');
      expect(await page.getByLabel('Field').nth(1).getAttribute('aria-invalid')).to.equal('true');
      expect(await page.getByLabel('Field').nth(0).getAttribute('aria-invalid')).to.equal(null);
      expect(await rows.nth(1).locator('.filter-issue').innerText()).to.equal(message);
      expect(await rows.nth(0).locator('.filter-issue').count()).to.equal(0);
      expect(await accessibilityViolations(page), 'traces view with a refused filter').to.deep.equal([]);
      // Editing the row takes the mark away (it named the filter as applied).
      await page.getByLabel('Operator').nth(1).selectOption('gt');
      expect(await rows.nth(1).locator('.filter-issue').count()).to.equal(0);
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it('opens a trace from the list as a nested waterfall, and a span in the panel with its fields', async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      await signIn(app(), watch, seeded.member);
      const traceId = seeded.ids.get('POST /checkout') as string;
      const filter = { field: 'span_name', op: 'eq', value: 'POST /checkout' };
      await page.goto(`${app().url}/ui/traces?app=${seeded.appId}&filter=${encodeURIComponent(JSON.stringify(filter))}`);
      await page.getByRole('link', { name: 'POST /checkout' }).click();
      await page.waitForURL(`${app().url}/ui/traces/${traceId}?app=${seeded.appId}`);
      await page.locator('li.wf-row').first().waitFor();

      const rows = await page.locator('li.wf-row').evaluateAll((items) =>
        items.map((item) => ({
          name: item.querySelector('.wf-select')?.textContent ?? '',
          depth: Number(item.getAttribute('data-depth')),
        })),
      );
      expect(rows).to.deep.equal([
        { name: 'POST /checkout', depth: 0 },
        { name: 'charge card', depth: 1 },
        { name: 'render receipt', depth: 1 },
      ]);
      // Nesting is seen: the child's name starts to the right of its parent's.
      const rootBox = await page.locator('li.wf-row[data-depth="0"] .wf-select').boundingBox();
      const childBox = await page.locator('li.wf-row[data-depth="1"] .wf-select').first().boundingBox();
      expect((childBox?.x ?? 0) - (rootBox?.x ?? 0)).to.be.greaterThan(8);
      const summary = await page.getByTestId('trace-summary').innerText();
      expect(summary).to.include('POST /checkout').and.include('shop').and.include('0.0042');
      expect(await page.locator('ul.wf-legend').innerText())
        .to.include('payments')
        .and.include('shop');
      expect(await page.locator('li.wf-row', { hasText: 'charge card' }).innerText())
        .to.include('15 ms')
        .and.include('0.0042');

      await page.getByRole('button', { name: 'charge card' }).click();
      const panel = page.getByTestId('span-panel');
      await panel.getByRole('heading', { name: 'charge card' }).waitFor();
      const text = await panel.innerText();
      expect(text)
        .to.include('payment.provider')
        .and.include('stripe')
        .and.include('payments')
        .and.include('SPAN_KIND_CLIENT')
        .and.include('STATUS_CODE_UNSET')
        .and.include('spanledger-tests');
      expect(text).to.include(traceId);
      await screenshot(page, `trace-waterfall-${app().database}`);
      expect(await accessibilityViolations(page), 'trace view').to.deep.equal([]);

      // Collapsing the root hides its children; the parent link in the panel goes up.
      await page.getByRole('button', { name: 'Collapse POST /checkout' }).click();
      expect(await page.locator('li.wf-row').count()).to.equal(1);
      await page.getByRole('button', { name: 'Expand POST /checkout' }).click();
      expect(await page.locator('li.wf-row').count()).to.equal(3);
      await panel.getByRole('button', { name: /^[0-9a-f]{16}$/ }).click();
      await panel.getByRole('heading', { name: 'POST /checkout' }).waitFor();
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it("shows a span's model, provider and token counts in the panel, none for a span without them, and filters on them", async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      const orgId = await seedOrganization(app().server.knex, [[seeded.member.userId, 'member']]);
      const appId = await seedApplication(app().server.knex, orgId);
      const key = await seedApiKey(app().server.knex, appId, ['write:traces']);
      const start = Date.now() - 600_000;
      // GenAI attributes (the total is computed: input + output), OpenInference ones, and none.
      const genAi = await recordTrace(
        start,
        {
          service: 'chat',
          name: 'POST /chat',
          attributes: {
            'gen_ai.provider.name': 'gcp.vertex_ai',
            'gen_ai.request.model': 'gemini-2.5-flash',
            'gen_ai.response.model': 'gemini-2.5-flash-001',
            'gen_ai.usage.input_tokens': 125_000,
            'gen_ai.usage.output_tokens': 1680,
            'gen_ai.usage.cache_read.input_tokens': 4096,
          },
        },
        [{ service: 'chat', name: 'render reply' }],
      );
      const openInference = await recordTrace(start + 1000, {
        service: 'summarizer',
        name: 'POST /summarize',
        attributes: {
          'llm.model_name': 'gpt-4o-mini',
          'llm.provider': 'openai',
          'llm.token_count.prompt': 800,
          'llm.token_count.total': 1000,
        },
      });
      const plain = await recordTrace(start + 2000, { service: 'shop', name: 'GET /health' });
      const exporter = new OTLPTraceExporter({
        url: `${app().url}/v1/traces`,
        headers: { Authorization: `Basic ${Buffer.from(`${key.apiKey}:${key.secret}`).toString('base64')}` },
      });
      expectExported(await exportSpans(exporter, [...genAi.spans, ...openInference.spans, ...plain.spans]));
      await exporter.shutdown();
      const traces = { ...seeded, appId };

      await signIn(app(), watch, seeded.member);
      await page.goto(`${app().url}/ui/traces?app=${appId}`);
      await waitForList(page, [plain.traceId, openInference.traceId, genAi.traceId]);
      // The builder offers the new fields (read from the served engine document).
      await page.getByRole('button', { name: 'Add condition' }).click();
      for (const field of ['model', 'provider', 'tokens.input', 'tokens.cache_creation', 'tokens.total'])
        expect(await page.locator(`form.filter-builder datalist option[value="${field}"]`).count(), field).to.equal(1);

      // A numeric condition typed in the page: only the GenAI trace holds more than 5,000 tokens.
      await page.getByLabel('Field').fill('tokens.total');
      await page.getByLabel('Operator').selectOption('gt');
      await page.getByLabel('Value', { exact: true }).fill('5000');
      await page.getByRole('button', { name: 'Apply filter' }).click();
      const byTokens = { field: 'tokens.total', op: 'gt', value: '5000' };
      expect((await apiTraces(app(), traces, byTokens)).ids).to.deep.equal([genAi.traceId]);
      await waitForList(page, [genAi.traceId]);
      expect(urlFilter(page)).to.deep.equal(byTokens);

      // A text condition: the model read from OpenInference's llm.model_name.
      await page.getByLabel('Field').fill('model');
      await page.getByLabel('Operator').selectOption('eq');
      await page.getByLabel('Value', { exact: true }).fill('gpt-4o-mini');
      await page.getByRole('button', { name: 'Apply filter' }).click();
      const byModel = { field: 'model', op: 'eq', value: 'gpt-4o-mini' };
      expect((await apiTraces(app(), traces, byModel)).ids).to.deep.equal([openInference.traceId]);
      await waitForList(page, [openInference.traceId]);

      // The panel: the group with every count set, written with thousands separators.
      await page.goto(`${app().url}/ui/traces/${genAi.traceId}?app=${appId}`);
      await page.getByRole('button', { name: 'POST /chat', exact: true }).click();
      const panel = page.getByTestId('span-panel');
      await panel.getByRole('heading', { name: 'POST /chat' }).waitFor();
      const group = panel.getByTestId('span-model');
      expect(await group.getByRole('heading').innerText()).to.equal('Model and tokens');
      const rows = await group
        .locator('dl.span-fields > div')
        .evaluateAll((items) => items.map((item) => [item.querySelector('dt')?.textContent, item.querySelector('dd')?.textContent]));
      expect(rows).to.deep.equal([
        ['Model', 'gemini-2.5-flash-001'],
        ['Provider', 'gcp.vertex_ai'],
        ['Input tokens', '125,000'],
        ['Output tokens', '1,680'],
        ['Cache read tokens (of input)', '4,096'],
        ['Total tokens', '126,680'],
        // The book has no price for this model id (test/dashboard/prices.test.ts covers priced calls).
        ['Cost source', 'unpriced: unknown model'],
      ]);
      await screenshot(page, `span-panel-model-${app().database}`);
      expect(await accessibilityViolations(page), 'span panel with model and tokens').to.deep.equal([]);

      // A span without any of them: no group at all, not a block of "none" rows.
      await page.getByRole('button', { name: 'render reply' }).click();
      await panel.getByRole('heading', { name: 'render reply' }).waitFor();
      expect(await panel.getByTestId('span-model').count()).to.equal(0);
      expect(await panel.innerText()).not.to.include('Model and tokens');
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it('renders hostile span names, services and attributes as text in the list, the waterfall and the panel, running nothing', async () => {
    const watch = await openPage(browser());
    const { page } = watch;
    try {
      const orgId = await seedOrganization(app().server.knex, [[seeded.member.userId, 'member']]);
      const appId = await seedApplication(app().server.knex, orgId);
      const key = await seedApiKey(app().server.knex, appId, ['write:traces']);
      const recorded = await recordTrace(
        Date.now() - 60_000,
        { service: PAYLOADS[1], name: PAYLOADS[0], attributes: { [PAYLOADS[2]]: PAYLOADS[3], 'http.route': PAYLOADS[4] } },
        [{ service: PAYLOADS[3], name: PAYLOADS[1], attributes: { [PAYLOADS[0]]: PAYLOADS[1] } }],
      );
      const exporter = new OTLPTraceExporter({
        url: `${app().url}/v1/traces`,
        headers: { Authorization: `Basic ${Buffer.from(`${key.apiKey}:${key.secret}`).toString('base64')}` },
      });
      expectExported(await exportSpans(exporter, recorded.spans));
      await exporter.shutdown();

      await signIn(app(), watch, seeded.member);
      await page.goto(`${app().url}/ui/traces?app=${appId}`);
      const link = page.getByRole('link', { name: PAYLOADS[0] });
      await link.waitFor();
      expect(await page.locator('table.traces-table tbody').innerText())
        .to.include(PAYLOADS[0])
        .and.include(PAYLOADS[1]);
      await link.click();
      await page.locator('li.wf-row').nth(1).waitFor();
      const waterfall = await page.locator('section.waterfall').innerText();
      for (const payload of [PAYLOADS[0], PAYLOADS[1], PAYLOADS[3]]) expect(waterfall, 'waterfall').to.include(payload);
      await page.getByRole('button', { name: PAYLOADS[0], exact: true }).click();
      const panel = page.getByTestId('span-panel');
      await panel.getByRole('heading', { name: PAYLOADS[0] }).waitFor();
      const text = await panel.innerText();
      for (const payload of PAYLOADS) expect(text, 'span panel').to.include(payload);
      await page.getByRole('button', { name: PAYLOADS[1], exact: true }).click();
      await panel.getByRole('heading', { name: PAYLOADS[1] }).waitFor();
      expect(await panel.innerText()).to.include(PAYLOADS[0]);
      await screenshot(page, `trace-hostile-text-${app().database}`);

      // Nothing the payloads hold became an element or ran.
      const elements = await page.evaluate(`({
        images: document.querySelectorAll('img, svg, iframe, object, embed').length,
        scripts: [...document.querySelectorAll('script')].map((script) => script.getAttribute('src')),
        handlers: [...document.querySelectorAll('*')].filter((element) => [...element.attributes].some((attribute) => attribute.name.startsWith('on'))).length,
      })`);
      expect(elements).to.deep.equal({ images: 0, scripts: [(elements as { scripts: string[] }).scripts[0]], handlers: 0 });
      expect((elements as { scripts: string[] }).scripts[0]).to.match(/^\/ui\/assets\/main-[A-Z0-9]+\.js$/);
      expect(await page.evaluate('window.__xss === undefined')).to.equal(true);
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });
});

/** The page's width overflow: how much wider the document is than the window (0 when it fits). */
async function overflow(page: Page): Promise<number> {
  return (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
}

/** The controls and charts that run past the screen's right edge (a wide table may scroll; these must fit). */
async function controlsOffScreen(page: Page): Promise<string[]> {
  const width = (await page.evaluate('window.innerWidth')) as number;
  return page.locator('main select, main input, main button, main fieldset, main canvas').evaluateAll(
    (controls, screenWidth) =>
      controls
        .filter((control) => {
          const box = control.getBoundingClientRect();
          return box.width > 0 && !control.closest('table') && box.right > screenWidth;
        })
        .map((control) => control.outerHTML.slice(0, 80)),
    width,
  );
}

/** What POST /traces answers for one root span name: its start, in Unix nanoseconds. */
async function startOf(app: TestServer, seeded: SeededTraces, name: string): Promise<number> {
  const now = Date.now();
  const query = new URLSearchParams({
    start_time: new Date(now - 86_400_000).toISOString(),
    end_time: new Date(now + 60_000).toISOString(),
  });
  const response = await fetch(`${app.url}/traces?${query}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${seeded.member.token}`, 'X-Vendor-App-Id': seeded.appId, 'Content-Type': 'application/json' },
    body: JSON.stringify({ filter: { field: 'span_name', op: 'eq', value: name } }),
  });
  const body = (await response.json()) as { data: Array<{ min_start_time_unix_nano: number }> };
  expect(body.data).to.have.length(1);
  return body.data[0].min_start_time_unix_nano;
}

onEachDatabase('dashboard times, dark theme and small screens', (app) => {
  const browser = useBrowser();
  let seeded: SeededTraces;

  before(async function () {
    this.timeout(60_000);
    seeded = await seedTraces(app());
  });

  it('writes times with their zone, in the local zone or UTC as chosen in the header, remembered over a reload', async () => {
    // A zone off UTC by a fraction of an hour, so a time in it cannot pass for UTC; and the dark theme.
    const zone = 'America/St_Johns';
    const watch = await openPage(browser(), { timezoneId: zone, colorScheme: 'dark' });
    const { page } = watch;
    try {
      await signIn(app(), watch, seeded.member);
      const start = await startOf(app(), seeded, 'POST /checkout');
      const traceId = seeded.ids.get('POST /checkout') as string;
      const filter = { field: 'span_name', op: 'eq', value: 'POST /checkout' };
      await page.goto(`${app().url}/ui/traces?app=${seeded.appId}&filter=${encodeURIComponent(JSON.stringify(filter))}`);
      await waitForList(page, [traceId]);
      const startCell = page.locator('table.traces-table tbody tr td').nth(2);
      const local = formatDateTime(start / 1e6, zone);
      expect(local).to.match(/ UTC-03:30$/);
      expect(await startCell.innerText()).to.equal(local);
      // The cost in its currency, noise-free.
      expect(await page.locator('table.traces-table tbody tr td').nth(5).innerText()).to.equal('0.0042 USD');

      const localFrom = await page.getByLabel('From (local time)').inputValue();
      await page.getByLabel('Times in').selectOption('utc');
      await startCell.filter({ hasText: formatDateTime(start / 1e6, 'UTC') }).waitFor();
      // The time range's fields follow the switch: the same instant, now written and typed in UTC.
      expect(Date.parse(`${await page.getByLabel('From (UTC)').inputValue()}Z`)).to.equal(Date.parse(`${localFrom}:00-03:30`));
      await page.getByLabel('From (UTC)').fill('2026-11-20T10:00');
      await page.getByLabel('To (UTC)').fill('2026-11-21T10:00');
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await page.waitForURL(
        /from=2026-11-20T10%3A00%3A00\.000Z&to=2026-11-21T10%3A00%3A00\.000Z|from=2026-11-20T10:00:00\.000Z&to=2026-11-21T10:00:00\.000Z/,
      );
      await page.goBack();
      await page.reload();
      await waitForList(page, [traceId]);
      expect(await page.getByLabel('Times in').inputValue()).to.equal('utc');
      expect(await startCell.innerText()).to.equal(formatDateTime(start / 1e6, 'UTC'));

      // The trace's summary and the span panel follow the same choice, to the millisecond.
      await page.getByRole('link', { name: 'POST /checkout' }).click();
      await page.locator('li.wf-row').first().waitFor();
      const summary = page.getByTestId('trace-summary');
      expect(await summary.innerText()).to.include(formatUnixNano(start, 'UTC'));
      await page.getByRole('button', { name: 'charge card' }).click();
      const panel = page.getByTestId('span-panel');
      await panel.getByRole('heading', { name: 'charge card' }).waitFor();
      expect(await panel.innerText())
        .to.match(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC \(\+/)
        .and.include('0.0042 USD')
        .and.include('No billing or usage data.');
      expect(await page.locator('li.wf-row', { hasText: 'charge card' }).innerText()).to.include('cost 0.0042 USD');
      await page.getByLabel('Times in').selectOption('local');
      await summary.filter({ hasText: formatUnixNano(start, zone) }).waitFor();
      expect(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')).to.equal('rgb(13, 17, 23)');
      await screenshot(page, `trace-waterfall-dark-${app().database}`);
      expect(await accessibilityViolations(page), 'trace view, dark theme').to.deep.equal([]);
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });

  it('fits a 390 px screen in the dark theme on every main view, axe clean, with waterfall ticks that do not overlap', async () => {
    const watch = await openPage(browser(), { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    const { page } = watch;
    try {
      await signIn(app(), watch, seeded.member);
      const traceId = seeded.ids.get('POST /checkout') as string;
      const views: Array<[name: string, path: string, ready: () => Promise<void>]> = [
        ['organizations', '/ui/', () => page.getByRole('table').first().waitFor()],
        ['organization', `/ui/organizations/${seeded.orgId}`, () => page.locator('#organization-heading').waitFor()],
        ['application', `/ui/applications/${seeded.appId}`, () => page.getByRole('table', { name: 'Usage by hour' }).waitFor()],
        ['traces', `/ui/traces?app=${seeded.appId}`, () => page.locator('table.traces-table').waitFor()],
        ['trace', `/ui/traces/${traceId}?app=${seeded.appId}`, () => page.locator('li.wf-row').first().waitFor()],
        ['metrics', `/ui/metrics?app=${seeded.appId}`, () => page.locator('#count-chart canvas').waitFor()],
        ['live', `/ui/live?app=${seeded.appId}`, () => page.getByTestId('live-status').waitFor()],
      ];
      for (const [name, path, ready] of views) {
        await page.goto(`${app().url}${path}`);
        await ready();
        expect(await overflow(page), `${name}: wider than the screen by`).to.be.at.most(0);
        expect(await controlsOffScreen(page), `${name}: controls past the screen's edge`).to.deep.equal([]);
        expect(await accessibilityViolations(page), `${name}, dark theme at 390 px`).to.deep.equal([]);
        if (name === 'trace') {
          const ticks = await page.locator('.wf-tick').evaluateAll((items) =>
            items.map((item) => {
              const box = item.getBoundingClientRect();
              return { left: box.left, right: box.right };
            }),
          );
          expect(ticks.length).to.be.within(2, 4);
          for (let index = 1; index < ticks.length; index += 1)
            expect(ticks[index].left, `tick ${index} starts after tick ${index - 1} ends`).to.be.at.least(ticks[index - 1].right);
          await page.getByRole('button', { name: 'charge card' }).click();
          await page.getByTestId('span-panel').waitFor();
          expect(await overflow(page), 'trace with its span panel: wider than the screen by').to.be.at.most(0);
        }
        await screenshot(page, `narrow-dark-${name}-${app().database}`);
      }
      expectNothingRan(watch);
    } finally {
      await watch.context.close();
    }
  });
});

onEachDatabase(
  'dashboard exports',
  (app) => {
    const browser = useBrowser();
    let seeded: SeededTraces;

    before(async function () {
      this.timeout(60_000);
      seeded = await seedTraces(app());
    });

    it('exports the traces the list shows, follows the job, and downloads the file through its link', async () => {
      const watch = await openPage(browser());
      const { page } = watch;
      try {
        await signIn(app(), watch, seeded.member);
        const filter = { field: 'service_name', op: 'eq', value: 'filler' };
        const listed = await apiTraces(app(), seeded, filter);
        expect(listed.ids.length).to.be.greaterThan(1);
        await page.goto(`${app().url}/ui/traces?app=${seeded.appId}&filter=${encodeURIComponent(JSON.stringify(filter))}`);
        await waitForList(page, listed.ids);
        await page.locator('details.export-panel summary').click();
        const form = page.getByRole('form', { name: 'Export' });
        await form.getByLabel('The traces listed (newest first)').check();
        await form.getByLabel('Format').selectOption('csv');
        await form.getByLabel(/^Compress \(gzip/).check();
        await form.getByRole('button', { name: 'Export' }).click();
        const state = page.getByTestId('export-state');
        await state.filter({ hasText: /Export (queued|running)/ }).waitFor();
        await app().server.exporter.runOnce();
        const link = page.getByRole('link', { name: 'Download CSV file (gzip)' });
        await link.waitFor();
        expect(await state.innerText()).to.match(/^Export ready: [\d,]+ records, [\d,]+ bytes\./);
        expect(await accessibilityViolations(page), 'traces view with an export').to.deep.equal([]);

        // The link works by itself (no session, no token): the traces of the filter, one a row.
        const href = (await link.getAttribute('href')) as string;
        expect(href).to.match(/^\/engine\/exports\/exp_\w+\/download\?token=/);
        const file = await fetch(new URL(href, app().url));
        expect(file.status).to.equal(200);
        expect(file.headers.get('content-type')).to.equal('application/gzip');
        const rows = gunzipSync(Buffer.from(await file.arrayBuffer()))
          .toString('utf8')
          .trim()
          .split('\r\n');
        expect(rows[0]?.split(',')[0]).to.equal('trace_id');
        const exported = rows.slice(1).map((row) => row.split(',')[0]);
        // Every page of the API's walk, in one fixed window, as a cursor needs.
        const window = { start: new Date(Date.now() - 86_400_000).toISOString(), end: new Date(Date.now() + 60_000).toISOString() };
        const all = await apiTraces(app(), seeded, filter, false, undefined, window);
        const everyFiller = [...all.ids];
        for (let next = all.nextCursor; next;) {
          const more = await apiTraces(app(), seeded, filter, false, next, window);
          expect(more.status).to.equal(200);
          everyFiller.push(...more.ids);
          next = more.nextCursor;
        }
        expect(exported).to.deep.equal(everyFiller);
        expectNothingRan(watch);
      } finally {
        await watch.context.close();
      }
    });
  },
  { EXPORT_SETTLE_SECONDS: '0' },
);

describe('filter builder logic', () => {
  it('reads the fields, operators and node kinds from the engine document', async () => {
    const { default: YAML } = await import('yaml');
    const fs = await import('node:fs');
    const words = vocabularyFromDocument(YAML.parse(fs.readFileSync('openapi/engine.yaml', 'utf8')));
    expect(words.fields).to.include.members(['span_name', 'service_name', 'duration_ms', 'billing.sku_id', 'status_code']);
    expect(words.fields).to.include.members([
      'model',
      'provider',
      'tokens.input',
      'tokens.output',
      'tokens.cache_read',
      'tokens.cache_creation',
      'tokens.total',
    ]);
    expect(words.traceFields).to.deep.equal(['trace.duration_ms', 'trace.total_cost', 'trace.spans_count', 'trace.error_count']);
    expect(words.attributePrefixes).to.deep.equal(['span_attributes.', 'resource_attributes.']);
    expect(words.operators).to.include.members(['eq', 'neq', 'in', 'not_in', 'exists', 'not_exists', 'regex', 'gt']);
    expect(words.listOperators).to.deep.equal(['in', 'not_in']);
    expect(words.presenceOperators).to.deep.equal(['exists', 'not_exists']);
    expect(words.hasNot).to.equal(true);
    expect(() => vocabularyFromDocument({ components: { schemas: {} } })).to.throw(/FilterField/);
  });

  it('turns a filter into a draft and back, and edits the draft by id', () => {
    const kinds = { listOperators: ['in', 'not_in'], presenceOperators: ['exists', 'not_exists'] };
    const filter = {
      and: [
        { field: 'span_kind', op: 'in', value: ['SERVER', 'CLIENT'] },
        { not: { field: 'status_code', op: 'eq', value: 'ERROR' } },
        { or: [{ field: 'span_attributes.user.id', op: 'exists' }, { something: 'unknown' }] },
      ],
    };
    const draft = toDraft(filter);
    expect(fromDraft(draft, kinds)).to.deep.equal(filter);
    expect(toDraft(undefined).children).to.deep.equal([]);
    expect(fromDraft(emptyGroup(), kinds)).to.equal(undefined);

    // A single condition is written alone; values are text, a list one per line.
    const root = emptyGroup('or');
    const condition = newCondition();
    let built = addChild(root, root.id, condition);
    built = updateCondition(built, condition.id, { field: ' duration_ms ', op: 'gt', value: '250' });
    expect(fromDraft(built, kinds)).to.deep.equal({ field: 'duration_ms', op: 'gt', value: '250' });
    built = updateCondition(built, condition.id, { op: 'not_in', value: 'a\n\nb' });
    expect(fromDraft(built, kinds)).to.deep.equal({ field: 'duration_ms', op: 'not_in', value: ['a', 'b'] });
    built = toggleNot(built, condition.id);
    expect(fromDraft(built, kinds)).to.deep.equal({ not: { field: 'duration_ms', op: 'not_in', value: ['a', 'b'] } });
    const inner = emptyGroup('and');
    built = addChild(built, root.id, inner);
    built = addChild(built, inner.id, newCondition('span_name', 'exists'));
    expect(fromDraft(built, kinds)).to.deep.equal({
      or: [{ not: { field: 'duration_ms', op: 'not_in', value: ['a', 'b'] } }, { and: [{ field: 'span_name', op: 'exists' }] }],
    });
    // Removing the member of a NOT node removes the NOT node too.
    built = removeNode(built, condition.id);
    expect(fromDraft(built, kinds)).to.deep.equal({ and: [{ field: 'span_name', op: 'exists' }] });
  });
});
