// The waterfall of one trace of 10,000 spans (stored in bulk) in a real Chromium, on every
// database: every page of GET /traces/{trace_id} is read, only the rows in view are rendered,
// scrolling to the end shows the last span, a span opens in the panel, the keyboard moves the
// selection, and a span whose parent is not stored sits at the top level. The time to the first
// rendered row is printed (no timed assertion). Also the layout's pure parts: tree, orphans,
// parent cycles, collapsing, bar geometry, the rows a viewport shows.
import { expect } from 'chai';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import {
  barGeometry,
  buildSpanTree,
  rowWindow,
  serviceColours,
  visibleRows,
  SERVICE_PALETTE,
  type LayoutSpan,
} from '../../ui/src/waterfall-layout.js';
import { seedApplication, seedOrganization, seedUser } from '../support/accounts.js';
import { accessibilityViolations, openPage, screenshot, signInLink, useBrowser } from '../support/dashboard.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const CHILDREN = 99;
const GRANDCHILDREN = 100;
const SPAN_COUNT = 1 + CHILDREN * GRANDCHILDREN + CHILDREN; // 10,000
const TRACE_ID = '5b8efff798038103d269b633813fc60c';

function spanId(index: number): string {
  return (index + 1).toString(16).padStart(16, '0');
}

/**
 * A root, 99 children, 100 grandchildren each (10,000 spans), starting 1 µs apart in depth-first
 * order; the last span names a parent that is not stored, so it is an orphan and the last row.
 */
function bigTrace(applicationId: string) {
  const base = BigInt(Date.now() - 600_000) * 1_000_000n;
  const rows: Array<ReturnType<typeof spanRow>> = [];
  let index = 0;
  const add = (parent: number | null, service: string, orphanParent?: string) => {
    const start = base + BigInt(index) * 1000n;
    const end = parent === null ? base + BigInt(SPAN_COUNT) * 1000n + 1_000_000n : start + 800n;
    rows.push(
      spanRow({
        application_id: applicationId,
        trace_id: TRACE_ID,
        span_id: spanId(index),
        parent_span_id: orphanParent ?? (parent === null ? null : spanId(parent)),
        start_time_unix_nano: start.toString(),
        end_time_unix_nano: end.toString(),
        span_name: `span ${String(index).padStart(5, '0')}`,
        service_name: service,
        span_kind: parent === null ? 'SPAN_KIND_SERVER' : 'SPAN_KIND_INTERNAL',
        cost: parent === null ? null : 0.0001,
        span_attributes: JSON.stringify({ 'row.index': index }),
      }),
    );
    index += 1;
    return index - 1;
  };
  const root = add(null, 'gateway');
  for (let child = 0; child < CHILDREN; child += 1) {
    const parent = add(root, `service-${child % 4}`);
    for (let grandchild = 0; grandchild < GRANDCHILDREN; grandchild += 1) {
      const last = child === CHILDREN - 1 && grandchild === GRANDCHILDREN - 1;
      add(parent, 'worker', last ? 'ffffffffffffffff' : undefined);
    }
  }
  return rows;
}

onEachDatabase('dashboard waterfall of a trace of 10,000 spans', (app) => {
  const browser = useBrowser();

  it('reads every page, renders only the rows in view, scrolls to the last span, and opens spans in the panel', async function () {
    this.timeout(180_000);
    const member = await seedUser(app(), 'member');
    const orgId = await seedOrganization(app().server.knex, [[member.userId, 'member']]);
    const appId = await seedApplication(app().server.knex, orgId);
    const rows = bigTrace(appId);
    expect(rows).to.have.length(10_000);
    await storeSpans(app().server.knex, rows);

    const watch = await openPage(browser());
    const { page } = watch;
    try {
      await page.goto(await signInLink(app(), { subject: member.subject }));
      await page.getByTestId('user-name').filter({ hasText: 'member' }).waitFor();
      const traceRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(`${app().url}/traces/${TRACE_ID}`)) traceRequests.push(request.url());
      });

      const started = Date.now();
      await page.goto(`${app().url}/ui/traces/${TRACE_ID}?app=${appId}`);
      await page.locator('li.wf-row').first().waitFor({ timeout: 120_000 });
      console.log(`      [${app().database}] 10,000-span trace: first waterfall row painted ${Date.now() - started} ms after navigation`);

      expect(traceRequests, 'one request a page of 1000 spans').to.have.length(10);
      expect(await page.locator('ul.wf-rows').getAttribute('data-row-count')).to.equal('10000');
      expect(await page.getByTestId('trace-summary').innerText()).to.include('10,000');
      const rendered = await page.locator('li.wf-row').count();
      expect(rendered, 'rows in the DOM (virtualized)').to.be.greaterThan(10).and.lessThan(80);
      const first = await page
        .locator('li.wf-row')
        .evaluateAll((items) => items.slice(0, 3).map((item) => [item.getAttribute('data-span-id'), item.getAttribute('data-depth')]));
      expect(first).to.deep.equal([
        [spanId(0), '0'],
        [spanId(1), '1'],
        [spanId(2), '2'],
      ]);
      await screenshot(page, `trace-waterfall-10000-${app().database}`);

      // The end: the last span, an orphan, at the top level.
      const lastId = spanId(SPAN_COUNT - 1);
      await page.locator('.wf-viewport').evaluate((element) => {
        element.scrollTop = element.scrollHeight;
      });
      const lastRow = page.locator(`li.wf-row[data-span-id="${lastId}"]`);
      await lastRow.waitFor();
      expect(await lastRow.getAttribute('data-depth')).to.equal('0');
      expect(await lastRow.innerText())
        .to.include('span 09999')
        .and.include('parent not stored');
      expect(await page.locator('li.wf-row').count(), 'rows in the DOM after scrolling').to.be.lessThan(80);
      await lastRow.getByRole('button', { name: /span 09999/ }).click();
      const panel = page.getByTestId('span-panel');
      await panel.getByRole('heading', { name: 'span 09999' }).waitFor();
      expect(await panel.innerText())
        .to.include('ffffffffffffffff')
        .and.include('not stored')
        .and.include('row.index')
        .and.include('9999');

      // The keyboard: Home goes to the first row, ArrowDown to the next.
      await page.locator('.wf-viewport').focus();
      await page.keyboard.press('Home');
      await panel.getByRole('heading', { name: 'span 00000' }).waitFor();
      await page.keyboard.press('ArrowDown');
      await panel.getByRole('heading', { name: 'span 00001' }).waitFor();
      // ArrowLeft collapses the selected span's 100 children.
      await page.keyboard.press('ArrowLeft');
      expect(await page.locator('ul.wf-rows').getAttribute('data-row-count')).to.equal(String(10_000 - GRANDCHILDREN));
      expect(await accessibilityViolations(page), 'trace view of 10,000 spans').to.deep.equal([]);
      expect(watch.pageErrors).to.deep.equal([]);
      expect(watch.cspViolations).to.deep.equal([]);
    } finally {
      await watch.context.close();
    }
  });
});

describe('waterfall layout', () => {
  const span = (id: string, parent: string | null, start: number, end = start + 10, service: string | null = 'svc'): LayoutSpan => ({
    span_id: id,
    parent_span_id: parent,
    span_start_time_unix_nano: start,
    span_end_time_unix_nano: end,
    service_name: service,
  });

  it('nests spans under their parents in start order and puts orphans at the top level', () => {
    const spans = [span('a', null, 0, 100), span('b', 'a', 10), span('o', 'missing', 15), span('c', 'b', 20), span('d', 'a', 30)];
    const tree = buildSpanTree(spans);
    expect(tree.roots).to.deep.equal([0, 2]);
    expect(tree.children).to.deep.equal([[1, 4], [3], [], [], []]);
    expect(tree.orphan).to.deep.equal([false, false, true, false, false]);
    expect([tree.start, tree.end]).to.deep.equal([0, 100]);
    const rows = visibleRows(tree, new Set());
    expect(rows.map((row) => [spans[row.span].span_id, row.depth])).to.deep.equal([
      ['a', 0],
      ['b', 1],
      ['c', 2],
      ['d', 1],
      ['o', 0],
    ]);
    expect(visibleRows(tree, new Set([1])).map((row) => spans[row.span].span_id)).to.deep.equal(['a', 'b', 'd', 'o']);
    expect(visibleRows(tree, new Set([0])).map((row) => spans[row.span].span_id)).to.deep.equal(['a', 'o']);
  });

  it('shows every span once when parents form a cycle or a span is its own parent', () => {
    const spans = [span('x', 'y', 0), span('y', 'x', 5), span('z', 'y', 6), span('s', 's', 7)];
    const tree = buildSpanTree(spans);
    const rows = visibleRows(tree, new Set());
    expect(rows.map((row) => spans[row.span].span_id).sort()).to.deep.equal(['s', 'x', 'y', 'z']);
    expect(rows.filter((row) => row.depth === 0).map((row) => spans[row.span].span_id)).to.include('s');
    expect(buildSpanTree([]).roots).to.deep.equal([]);
  });

  it('handles a chain 50,000 deep without recursion', () => {
    const spans = Array.from({ length: 50_000 }, (_, index) => span(`s${index}`, index === 0 ? null : `s${index - 1}`, index));
    const rows = visibleRows(buildSpanTree(spans), new Set());
    expect(rows).to.have.length(50_000);
    expect(rows.at(-1)?.depth).to.equal(49_999);
  });

  it('places bars on the time axis, colours services in a stable order, and windows the rows in view', () => {
    const spans = [span('a', null, 1000, 2000), span('b', 'a', 1500, 1500, 'beta'), span('c', 'a', 1250, 1750, null)];
    const tree = buildSpanTree(spans);
    expect(barGeometry(spans[0], tree)).to.deep.equal({ left: 0, width: 100 });
    expect(barGeometry(spans[2], tree)).to.deep.equal({ left: 25, width: 50 });
    expect(barGeometry(spans[1], tree).width, 'a zero-length span still shows').to.be.greaterThan(0);
    const colours = serviceColours(spans);
    expect(colours.get('beta')).to.equal(SERVICE_PALETTE[0]);
    expect(colours.get('svc')).to.equal(SERVICE_PALETTE[1]);
    expect(colours.get(null)).to.be.a('string');
    expect(rowWindow(0, 280, 28, 10_000, 5)).to.deep.equal({ first: 0, last: 15 });
    expect(rowWindow(28 * 9_990, 280, 28, 10_000, 5)).to.deep.equal({ first: 9_985, last: 9_999 });
  });
});
