// Budgets through HTTP on every database: create (defaults, thresholds answered ascending), list,
// get, update and delete, each change audited; the 422s at their fields (amount, currency,
// thresholds, period, name, an application of another organization or none); who may read and
// change them (members read, owners change, API keys by their permissions, another organization
// 404); and the status every answer carries: its spend is the spend summary's total for the same
// period, currency and applications, to the last digit, and spend in another currency is not in it.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  ownerWithApplication,
  type Caller,
} from '../support/management.js';
import { costSpan } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

/** The service's clock in this suite: the budgets' current period is November 2026 (its 20th for a day budget). */
const NOW = Date.parse('2026-11-20T12:00:00.000Z');

const BUDGET = { name: 'LLM spend', amount: 500, currency: 'USD', period: 'month' };

onEachDatabase(
  'budgets',
  (app) => {
    async function owner(): Promise<{ as: Caller; orgId: string; appId: string; path: string }> {
      const { as, orgId, appId } = await ownerWithApplication(app());
      return { as, orgId, appId, path: `/organizations/${orgId}/budgets` };
    }

    it('creates a budget with the defaults, gets, lists, changes and deletes it, each change audited', async () => {
      const { as, orgId, appId, path } = await owner();
      const created = await as('POST', path, { json: BUDGET });
      expectStatus(created, 201);
      expect(created.body.id).to.match(/^bud_[A-Za-z0-9]{20}$/);
      expect(created.body).to.deep.include({
        organization_id: orgId,
        name: 'LLM spend',
        application_id: null,
        amount: 500,
        currency: 'USD',
        period: 'month',
        thresholds: [50, 80, 100],
        enabled: true,
        status: {
          current_period: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' },
          spend: 0,
          percent: 0,
          thresholds_crossed: [],
        },
      });
      const budgetPath = `${path}/${created.body.id}`;
      expect((await as('GET', budgetPath)).body).to.deep.equal(created.body);
      expect((await as('GET', path)).body).to.deep.include({ data: [created.body], next_cursor: null });

      const changed = await as('PATCH', budgetPath, {
        json: { application_id: appId, period: 'day', thresholds: [100, 25, 75], amount: 12.345678901234567, enabled: false },
      });
      expectStatus(changed, 200);
      expect(changed.body).to.deep.include({
        application_id: appId,
        period: 'day',
        thresholds: [25, 75, 100],
        amount: 12.3456789012346,
        enabled: false,
        name: 'LLM spend',
      });
      expect(changed.body.status.current_period).to.deep.equal({ start: '2026-11-20T00:00:00.000Z', end: '2026-11-21T00:00:00.000Z' });
      expectStatus(await as('PATCH', budgetPath, { json: {} }), 422);

      const events = await as('GET', `/organizations/${orgId}/audit-events`, { query: { resource_type: 'budget' } });
      expectStatus(events, 200);
      expect(events.body.data.map((event: { operation_id: string }) => event.operation_id)).to.deep.equal(['updateBudget', 'createBudget']);
      expect(events.body.data[0]).to.deep.include({
        before: { application_id: null, period: 'month', thresholds: [50, 80, 100], amount: 500, enabled: true },
        after: { application_id: appId, period: 'day', thresholds: [25, 75, 100], amount: 12.3456789012346, enabled: false },
      });

      expectStatus(await as('DELETE', budgetPath), 204);
      for (const method of ['GET', 'PATCH', 'DELETE'])
        expectStatus(await as(method, budgetPath, method === 'PATCH' ? { json: { enabled: true } } : {}), 404);
      expect((await as('GET', path)).body.data).to.deep.equal([]);
      const deleted = await as('GET', `/organizations/${orgId}/audit-events`, { query: { resource_type: 'budget', limit: 1 } });
      expect(deleted.body.data[0]).to.deep.include({ operation_id: 'deleteBudget', after: null });
    });

    describe('refuses with a 422 at the field', () => {
      const CASES: Array<[string, Record<string, unknown>, string[], RegExp | null]> = [
        ['an amount of 0', { amount: 0 }, ['body', 'amount'], null],
        ['a negative amount', { amount: -5 }, ['body', 'amount'], null],
        ['an amount above 10^12', { amount: 1e12 + 1 }, ['body', 'amount'], null],
        ['an amount of 1e308', { amount: 1e308 }, ['body', 'amount'], null],
        ['a currency in lower case', { currency: 'usd' }, ['body', 'currency'], null],
        ['a currency no runtime knows', { currency: 'ABC' }, ['body', 'currency'], /ISO 4217/],
        ['a week period', { period: 'week' }, ['body', 'period'], null],
        ['no thresholds', { thresholds: [] }, ['body', 'thresholds'], null],
        ['a threshold of 0', { thresholds: [0, 50] }, ['body', 'thresholds', '0'], null],
        ['a threshold above 1000', { thresholds: [50, 1001] }, ['body', 'thresholds', '1'], null],
        ['a threshold that is not a whole percent', { thresholds: [12.5] }, ['body', 'thresholds', '0'], null],
        ['a threshold twice', { thresholds: [50, 80, 50] }, ['body', 'thresholds'], null],
        ['eleven thresholds', { thresholds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }, ['body', 'thresholds'], null],
        ['a blank name', { name: '   ' }, ['body', 'name'], /blank/],
        ['an application that does not exist', { application_id: 'app_doesnotexist0' }, ['body', 'application_id'], /no application/],
      ];
      for (const [name, change, loc, message] of CASES) {
        it(name, async () => {
          const { as, path } = await owner();
          const response = await as('POST', path, { json: { ...BUDGET, ...change } });
          expectStatus(response, 422);
          const issue = response.body.detail.find(
            (entry: { loc: unknown[] }) => JSON.stringify(entry.loc.map(String)) === JSON.stringify(loc),
          );
          expect(issue, response.text).to.not.equal(undefined);
          if (message) expect(issue.msg).to.match(message);
          expect((await as('GET', path)).body.data).to.deep.equal([]);
        });
      }

      it('an application of another organization, on create and update, answered as one that does not exist', async () => {
        const { as, path } = await owner();
        const other = await owner();
        const foreign = await as('POST', path, { json: { ...BUDGET, application_id: other.appId } });
        expectStatus(foreign, 422);
        const unknown = await as('POST', path, { json: { ...BUDGET, application_id: 'app_doesnotexist0' } });
        // The same words but the id: nothing tells that the other organization's application exists.
        expect(foreign.body.detail[0].msg.replace(other.appId, 'X')).to.equal(unknown.body.detail[0].msg.replace('app_doesnotexist0', 'X'));
        expect(foreign.body.detail[0].loc).to.deep.equal(['body', 'application_id']);
        const created = await as('POST', path, { json: BUDGET });
        expectStatus(created, 201);
        const patched = await as('PATCH', `${path}/${created.body.id}`, { json: { application_id: other.appId } });
        expectStatus(patched, 422);
        expect(patched.body.detail[0].loc).to.deep.equal(['body', 'application_id']);
        expect((await as('GET', `${path}/${created.body.id}`)).body.application_id).to.equal(null);
      });

      it('an application deleted since (budgets of the organization only name active ones)', async () => {
        const { as, orgId, path } = await owner();
        const appId = await createApplication(as, orgId);
        expectStatus(await as('DELETE', `/applications/${appId}`), 200);
        const response = await as('POST', path, { json: { ...BUDGET, application_id: appId } });
        expectStatus(response, 422);
        expect(response.body.detail[0].loc).to.deep.equal(['body', 'application_id']);
      });
    });

    it('lets members read and only owners change; API keys by their permissions; another organization gets 404', async () => {
      const { as, orgId, appId, path } = await owner();
      const created = await as('POST', path, { json: BUDGET });
      expectStatus(created, 201);
      const budgetPath = `${path}/${created.body.id}`;
      const member = await dashboardUser(app(), 'Member');
      expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email: member.email, role: 'member' } }), 201);
      const asMember = callerFor(app(), member.token);
      expectStatus(await asMember('GET', path), 200);
      expectStatus(await asMember('GET', budgetPath), 200);
      expectStatus(await asMember('POST', path, { json: BUDGET }), 403);
      expectStatus(await asMember('PATCH', budgetPath, { json: { amount: 1 } }), 403);
      expectStatus(await asMember('DELETE', budgetPath), 403);

      const reader = await createApiKey(as, appId, ['read:organizations']);
      const asReader = callerFor(app(), await keyToken(app(), reader.apiKey, reader.secret));
      expectStatus(await asReader('GET', budgetPath), 200);
      expectStatus(await asReader('POST', path, { json: BUDGET }), 403);
      const writer = await createApiKey(as, appId, ['update:organizations']);
      const asWriter = callerFor(app(), await keyToken(app(), writer.apiKey, writer.secret));
      expectStatus(await asWriter('POST', path, { json: { ...BUDGET, application_id: appId } }), 201);
      expectStatus(await asWriter('GET', budgetPath), 403);

      const stranger = callerFor(app(), (await dashboardUser(app(), 'Stranger')).token);
      await createOrganization(stranger);
      expectStatus(await stranger('GET', path), 404);
      expectStatus(await stranger('GET', budgetPath), 404);
      expectStatus(await stranger('PATCH', budgetPath, { json: { amount: 1 } }), 404);
      expectStatus(await stranger('DELETE', budgetPath), 404);
      expect((await as('GET', budgetPath)).body.amount).to.equal(500);
    });

    it("answers a status whose spend is the spend summary's total for the same period, currency and applications", async () => {
      const { as, orgId, appId, path } = await owner();
      const otherAppId = await createApplication(as, orgId);
      const spans = [
        // November, reported in USD, both applications; awkward decimals so that the sum's rounding shows.
        ...Array.from({ length: 40 }, (_, index) =>
          costSpan(appId, `2026-11-${String(1 + (index % 19)).padStart(2, '0')}T0${index % 10}:15:00Z`, 0.1 + index * 0.07),
        ),
        ...Array.from({ length: 25 }, (_, index) => costSpan(otherAppId, `2026-11-20T0${index % 10}:30:00Z`, 1.3 + index * 0.011)),
        // November in EUR (computed): counts in a EUR budget only.
        costSpan(appId, '2026-11-20T08:00:00Z', 100, 'EUR'),
        costSpan(appId, '2026-11-20T09:00:00Z', 0.3, 'EUR'),
        // October and the 21st of November: outside the month and the day respectively.
        costSpan(appId, '2026-10-31T23:59:59Z', 1000),
        costSpan(appId, '2026-11-21T00:00:00Z', 7),
      ];
      await storeSpans(app().server.knex, spans);
      const inWindow = (span: SpanRow, start: string, end: string) =>
        BigInt(span.start_time_unix_nano) >= BigInt(Date.parse(start)) * 1_000_000n &&
        BigInt(span.start_time_unix_nano) < BigInt(Date.parse(end)) * 1_000_000n;

      const cases = [
        {
          budget: { ...BUDGET },
          summary: `/organizations/${orgId}/spend`,
          query: { period: 'month', currency: 'USD' },
          apps: [appId, otherAppId],
          currency: null,
          window: ['2026-11-01', '2026-12-01'],
        },
        {
          budget: { ...BUDGET, application_id: appId },
          summary: `/applications/${appId}/spend`,
          query: { period: 'month', currency: 'USD' },
          apps: [appId],
          currency: null,
          window: ['2026-11-01', '2026-12-01'],
        },
        {
          budget: { ...BUDGET, period: 'day' },
          summary: `/organizations/${orgId}/spend`,
          query: { period: 'day', currency: 'USD' },
          apps: [appId, otherAppId],
          currency: null,
          window: ['2026-11-20', '2026-11-21'],
        },
        {
          budget: { ...BUDGET, currency: 'EUR', application_id: appId },
          summary: `/applications/${appId}/spend`,
          query: { period: 'month', currency: 'EUR' },
          apps: [appId],
          currency: 'EUR',
          window: ['2026-11-01', '2026-12-01'],
        },
      ];
      for (const { budget, summary, query, apps, currency, window } of cases) {
        const created = await as('POST', path, { json: budget });
        expectStatus(created, 201);
        const read = await as('GET', summary, { query });
        expectStatus(read, 200);
        const { status } = (await as('GET', `${path}/${created.body.id}`)).body;
        // The same number, not merely a close one.
        expect(status.spend, JSON.stringify(budget)).to.equal(read.body.totals.spend);
        const expected = spans
          .filter(
            (span) =>
              apps.includes(span.application_id) &&
              span.price_currency === currency &&
              inWindow(span, `${window[0]}T00:00:00Z`, `${window[1]}T00:00:00Z`),
          )
          .reduce((sum, span) => sum + (span.cost ?? 0), 0);
        expect(status.spend).to.be.closeTo(expected, 1e-9);
        expect(status.spend).to.be.greaterThan(0);
        expect(status.percent).to.equal((status.spend / budget.amount) * 100);
      }
    });

    it('counts no spend in another currency, nor of a deleted application', async () => {
      const { as, orgId, appId, path } = await owner();
      await storeSpans(app().server.knex, [
        costSpan(appId, '2026-11-20T10:00:00Z', 900, 'EUR'),
        costSpan(appId, '2026-11-20T10:00:00Z', 2, 'JPY'),
      ]);
      const usd = await as('POST', path, { json: BUDGET });
      expect(usd.body.status).to.deep.include({ spend: 0, percent: 0 });
      const eur = await as('POST', path, { json: { ...BUDGET, currency: 'EUR', application_id: appId } });
      expect(eur.body.status).to.deep.include({ spend: 900, percent: 180 });
      expectStatus(await as('DELETE', `/applications/${appId}`), 200);
      expect((await as('GET', `${path}/${eur.body.id}`)).body.status).to.deep.include({ spend: 0, percent: 0 });
      expect((await as('GET', `/organizations/${orgId}/budgets/${usd.body.id}`)).body.status.spend).to.equal(0);
    });
  },
  { BUDGET_EVALUATION_INTERVAL_SECONDS: '0', RETENTION_PURGE_INTERVAL_SECONDS: '0' },
  { clock: () => NOW },
);
