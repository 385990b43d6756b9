// The budget evaluator on every database, driven by its injectable clock: a threshold fires once
// per period (again after a day's or a month's reset, never twice within one, not again when
// spend falls and rises within the period), thresholds reached together fire one event each,
// late spans of the period just ended fire it during the first hour of the next, two evaluators
// at once fire each crossing once, a budget of one application counts that application only and
// one of the organization all of them, spend in another currency never counts, changes keep or
// forget crossings as documented, and a real receiver gets the signed event with every field.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { BudgetEvaluator } from '../../src/jobs/budget-evaluator.js';
import { fireCrossing } from '../../src/storage/budgets/budget-crossings.js';
import { enabledBudgets } from '../../src/storage/budgets/budgets.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { createApplication, expectStatus, ownerWithApplication, type Caller } from '../support/management.js';
import { costSpan } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';
import { FAST_WEBHOOKS, startReceiver, verify, waitForDeliveries } from '../support/webhook-receiver.js';

/** The clock of the service and of the evaluators this file makes. */
let now = Date.parse('2026-11-10T20:00:00.000Z');
const setClock = (iso: string) => {
  now = Date.parse(iso);
};

interface FiredEvent {
  id: string;
  created_at: string;
  data: {
    budget_id: string;
    application_id: string | null;
    period: { start: string; end: string };
    amount: number;
    currency: string;
    threshold_percent: number;
    spend: number;
    crossed_at: string;
  };
}

/** The organization's budget events as stored in the outbox, by budget, period and threshold. */
async function eventsOf(knex: Knex, organizationId: string): Promise<FiredEvent[]> {
  const rows = (await knex('webhook_events')
    .where({ organization_id: organizationId, type: 'budget.threshold_crossed' })
    .select('payload')) as Array<{
    payload: string;
  }>;
  return rows
    .map((row) => JSON.parse(row.payload) as FiredEvent)
    .sort((a, b) =>
      a.data.budget_id !== b.data.budget_id
        ? a.data.budget_id.localeCompare(b.data.budget_id)
        : a.data.period.start !== b.data.period.start
          ? a.data.period.start.localeCompare(b.data.period.start)
          : a.data.threshold_percent - b.data.threshold_percent,
    );
}

/** What the events say, compactly: `<period start day> <threshold>`. */
const fired = (events: FiredEvent[], budgetId?: string) =>
  events
    .filter((event) => budgetId === undefined || event.data.budget_id === budgetId)
    .map((event) => `${event.data.period.start.slice(0, 10)} ${event.data.threshold_percent}`);

onEachDatabase(
  'budget evaluator',
  (app) => {
    const knex = () => app().server.knex;
    const evaluator = () =>
      new BudgetEvaluator({ knex: knex(), logger: app().server.logger, config: { intervalSeconds: 0 }, clock: () => now });
    const store = (...spans: SpanRow[]) => storeSpans(knex(), spans);
    // Every pass evaluates every budget of the database: each test's budgets end with it, so that
    // a pass at another test's clock fires only that test's.
    afterEach(async () => {
      await knex()('budgets').whereNull('deleted_at').update({ deleted_at: Date.now() });
    });

    async function budget(as: Caller, orgId: string, body: Record<string, unknown>): Promise<string> {
      const created = await as('POST', `/organizations/${orgId}/budgets`, { json: { name: 'LLM', currency: 'USD', ...body } });
      expectStatus(created, 201);
      return created.body.id;
    }

    it('fires once per crossing across a day boundary: again after the reset, never twice within the day', async () => {
      setClock('2026-11-10T20:00:00Z');
      const { as, orgId, appId } = await ownerWithApplication(app());
      const id = await budget(as, orgId, { amount: 10, period: 'day', thresholds: [50, 100] });
      const run = evaluator();
      expect(await run.runOnce()).to.equal(0);
      await store(costSpan(appId, '2026-11-10T10:00:00Z', 6));
      expect(await run.runOnce()).to.equal(1);
      expect(await run.runOnce()).to.equal(0);
      await store(costSpan(appId, '2026-11-10T19:59:00Z', 5));
      expect(await run.runOnce()).to.equal(1);
      expect(await run.runOnce()).to.equal(0);
      expect(fired(await eventsOf(knex(), orgId))).to.deep.equal(['2026-11-10 50', '2026-11-10 100']);

      // The next day, after its first hour: nothing spent yet, nothing fires; then it fires again.
      setClock('2026-11-11T02:00:00Z');
      expect(await run.runOnce()).to.equal(0);
      const status = (await as('GET', `/organizations/${orgId}/budgets/${id}`)).body.status;
      expect(status).to.deep.equal({
        current_period: { start: '2026-11-11T00:00:00.000Z', end: '2026-11-12T00:00:00.000Z' },
        spend: 0,
        percent: 0,
        thresholds_crossed: [],
      });
      await store(costSpan(appId, '2026-11-11T01:00:00Z', 5));
      expect(await run.runOnce()).to.equal(1);
      expect(await run.runOnce()).to.equal(0);
      expect(fired(await eventsOf(knex(), orgId))).to.deep.equal(['2026-11-10 50', '2026-11-10 100', '2026-11-11 50']);
      const after = (await as('GET', `/organizations/${orgId}/budgets/${id}`)).body.status;
      expect(after.thresholds_crossed).to.deep.equal([{ threshold_percent: 50, crossed_at: '2026-11-11T02:00:00.000Z', spend: 5 }]);
    });

    it('fires again after a month boundary, and fires the month just ended for its late spans during the first hour only', async () => {
      setClock('2026-10-31T23:30:00Z');
      const { as, orgId, appId } = await ownerWithApplication(app());
      const id = await budget(as, orgId, { amount: 100, period: 'month', thresholds: [80] });
      const run = evaluator();
      await store(costSpan(appId, '2026-10-15T12:00:00Z', 50));
      expect(await run.runOnce()).to.equal(0);

      // 20 minutes into November: a late span of October 31 arrives, and November has spend of its own.
      setClock('2026-11-01T00:20:00Z');
      await store(costSpan(appId, '2026-10-31T23:50:00Z', 40), costSpan(appId, '2026-11-01T00:10:00Z', 85));
      expect(await run.runOnce()).to.equal(2);
      expect(await run.runOnce()).to.equal(0);
      const events = await eventsOf(knex(), orgId);
      expect(fired(events)).to.deep.equal(['2026-10-01 80', '2026-11-01 80']);
      expect(events[0].data).to.deep.include({ period: { start: '2026-10-01T00:00:00.000Z', end: '2026-11-01T00:00:00.000Z' }, spend: 90 });
      expect(events[1].data).to.deep.include({ period: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' }, spend: 85 });

      // A December budget's month: reset, fires again; within December, never twice.
      setClock('2026-12-01T05:00:00Z');
      expect(await run.runOnce()).to.equal(0);
      await store(costSpan(appId, '2026-12-01T04:00:00Z', 79.99));
      expect(await run.runOnce()).to.equal(0);
      await store(costSpan(appId, '2026-12-01T04:30:00Z', 0.01));
      expect(await run.runOnce()).to.equal(1);
      await store(costSpan(appId, '2026-12-01T04:40:00Z', 500));
      setClock('2026-12-20T05:00:00Z');
      expect(await run.runOnce()).to.equal(0);
      expect(fired(await eventsOf(knex(), orgId), id)).to.deep.equal(['2026-10-01 80', '2026-11-01 80', '2026-12-01 80']);
    });

    it('past the first hour a late span no longer fires the period before; a budget created after a period ended never fires it', async () => {
      setClock('2026-11-01T00:30:00Z');
      const { as, orgId, appId } = await ownerWithApplication(app());
      // October's spend is over the threshold, but the budget did not exist in October.
      await store(costSpan(appId, '2026-10-20T00:00:00Z', 95));
      await budget(as, orgId, { amount: 100, period: 'month', thresholds: [50] });
      const run = evaluator();
      expect(await run.runOnce()).to.equal(0);
      setClock('2026-11-30T23:00:00Z');
      expect(await run.runOnce()).to.equal(0);
      // Past the hour of grace, November's late span is left alone.
      setClock('2026-12-01T01:00:00Z');
      await store(costSpan(appId, '2026-11-30T23:59:00Z', 60));
      expect(await run.runOnce()).to.equal(0);
      expect(await eventsOf(knex(), orgId)).to.deep.equal([]);
    });

    it('fires one event per threshold reached together, and nothing again when spend falls and rises within the period', async () => {
      setClock('2026-11-10T20:00:00Z');
      const { as, orgId, appId } = await ownerWithApplication(app());
      const id = await budget(as, orgId, { amount: 200, period: 'month', thresholds: [100, 50, 80, 150] });
      await store(costSpan(appId, '2026-11-05T00:00:00Z', 240));
      const run = evaluator();
      expect(await run.runOnce()).to.equal(3);
      const events = await eventsOf(knex(), orgId);
      expect(fired(events)).to.deep.equal(['2026-11-01 50', '2026-11-01 80', '2026-11-01 100']);
      expect(new Set(events.map((event) => event.id)).size).to.equal(3);
      const status = (await as('GET', `/organizations/${orgId}/budgets/${id}`)).body.status;
      expect(status.thresholds_crossed.map((crossing: { threshold_percent: number }) => crossing.threshold_percent)).to.deep.equal([
        50, 80, 100,
      ]);
      expect(status).to.deep.include({ spend: 240, percent: 120 });

      // A re-pricing lowers the period's spend below every threshold, then a later one raises it back.
      await knex()('spend_rollups').where({ application_id: appId }).update({ cost_sum: 10 });
      expect(await run.runOnce()).to.equal(0);
      await knex()('spend_rollups').where({ application_id: appId }).update({ cost_sum: 240 });
      expect(await run.runOnce()).to.equal(0);
      expect(await eventsOf(knex(), orgId)).to.have.length(3);
    });

    it('two evaluators on one database fire each crossing once', async () => {
      setClock('2026-11-10T20:00:00Z');
      const { as, orgId, appId } = await ownerWithApplication(app());
      const ids: string[] = [];
      for (let index = 0; index < 6; index += 1)
        ids.push(await budget(as, orgId, { amount: 10 + index, period: 'day', thresholds: [10, 50, 100] }));
      await store(costSpan(appId, '2026-11-10T12:00:00Z', 20));
      const [first, second] = await Promise.all([evaluator().runOnce(), evaluator().runOnce()]);
      expect(first + second).to.equal(18);
      const events = await eventsOf(knex(), orgId);
      expect(events).to.have.length(18);
      for (const id of ids) expect(fired(events, id)).to.deep.equal(['2026-11-10 10', '2026-11-10 50', '2026-11-10 100']);
      expect(await evaluator().runOnce()).to.equal(0);

      // The same crossing fired by two at once, at the storage seam: one wins, the other stores nothing.
      const id = await budget(as, orgId, { amount: 1, period: 'day', thresholds: [100] });
      const [read] = (await enabledBudgets(knex())).filter((candidate) => candidate.id === id);
      const crossing = {
        budget: read,
        period: { startMs: Date.parse('2026-11-10'), endMs: Date.parse('2026-11-11') },
        thresholdPercent: 100,
        spend: 20,
      };
      const outcomes = await Promise.all([
        fireCrossing(knex(), crossing, now),
        fireCrossing(knex(), crossing, now),
        fireCrossing(knex(), crossing, now),
      ]);
      expect(outcomes.filter(Boolean)).to.have.length(1);
      expect(fired(await eventsOf(knex(), orgId), id)).to.deep.equal(['2026-11-10 100']);
    });

    it("counts an application's spend in its own budget and every application's in the organization's", async () => {
      setClock('2026-11-10T20:00:00Z');
      const { as, orgId, appId } = await ownerWithApplication(app());
      const otherAppId = await createApplication(as, orgId);
      const organizationBudget = await budget(as, orgId, { amount: 100, period: 'month', thresholds: [50, 100] });
      const applicationBudget = await budget(as, orgId, { amount: 100, period: 'month', thresholds: [50, 100], application_id: appId });
      const run = evaluator();
      await store(costSpan(otherAppId, '2026-11-02T00:00:00Z', 60));
      expect(await run.runOnce()).to.equal(1);
      expect(fired(await eventsOf(knex(), orgId), organizationBudget)).to.deep.equal(['2026-11-01 50']);
      expect(fired(await eventsOf(knex(), orgId), applicationBudget)).to.deep.equal([]);
      await store(costSpan(appId, '2026-11-03T00:00:00Z', 55));
      expect(await run.runOnce()).to.equal(2);
      const events = await eventsOf(knex(), orgId);
      expect(fired(events, organizationBudget)).to.deep.equal(['2026-11-01 50', '2026-11-01 100']);
      expect(fired(events, applicationBudget)).to.deep.equal(['2026-11-01 50']);
      expect(events.find((event) => event.data.budget_id === applicationBudget)?.data).to.deep.include({
        application_id: appId,
        spend: 55,
      });
      expect(
        events.find((event) => event.data.budget_id === organizationBudget && event.data.threshold_percent === 100)?.data,
      ).to.deep.include({
        application_id: null,
        spend: 115,
      });
    });

    it('never counts spend in another currency', async () => {
      setClock('2026-11-10T20:00:00Z');
      const { as, orgId, appId } = await ownerWithApplication(app());
      const usd = await budget(as, orgId, { amount: 10, period: 'month', thresholds: [50] });
      const eur = await budget(as, orgId, { amount: 10, period: 'month', thresholds: [50], currency: 'EUR' });
      await store(costSpan(appId, '2026-11-02T00:00:00Z', 1000, 'EUR'), costSpan(appId, '2026-11-02T00:00:00Z', 1000, 'JPY'));
      expect(await evaluator().runOnce()).to.equal(1);
      const events = await eventsOf(knex(), orgId);
      expect(fired(events, usd)).to.deep.equal([]);
      expect(fired(events, eur)).to.deep.equal(['2026-11-01 50']);
      expect(events[0].data).to.deep.include({ currency: 'EUR', spend: 1000 });
    });

    it('keeps crossings when the amount or thresholds change and forgets them when the currency does; a disabled budget fires nothing; deleting one deletes its crossings', async () => {
      setClock('2026-11-10T20:00:00Z');
      const { as, orgId, appId } = await ownerWithApplication(app());
      const id = await budget(as, orgId, { amount: 100, period: 'month', thresholds: [50, 100] });
      const path = `/organizations/${orgId}/budgets/${id}`;
      await store(costSpan(appId, '2026-11-02T00:00:00Z', 60), costSpan(appId, '2026-11-02T00:00:00Z', 60, 'EUR'));
      const run = evaluator();
      expect(await run.runOnce()).to.equal(1);
      // A lower amount brings 100 % within reach; 50 % stays fired. A threshold added below the spend fires.
      expectStatus(await as('PATCH', path, { json: { amount: 60, thresholds: [10, 50, 100] } }), 200);
      expect(await run.runOnce()).to.equal(2);
      expect(fired(await eventsOf(knex(), orgId), id)).to.deep.equal(['2026-11-01 10', '2026-11-01 50', '2026-11-01 100']);
      // Another currency measures another spend: its thresholds fire anew.
      expectStatus(await as('PATCH', path, { json: { currency: 'EUR', enabled: false } }), 200);
      expect((await as('GET', path)).body.status.thresholds_crossed).to.deep.equal([]);
      expect(await run.runOnce()).to.equal(0);
      expectStatus(await as('PATCH', path, { json: { enabled: true } }), 200);
      expect(await run.runOnce()).to.equal(3);
      expect(Number((await knex()('budget_crossings').where({ budget_id: id }).count({ n: '*' }).first())?.n)).to.equal(3);
      expectStatus(await as('DELETE', path), 204);
      expect(Number((await knex()('budget_crossings').where({ budget_id: id }).count({ n: '*' }).first())?.n)).to.equal(0);
      await store(costSpan(appId, '2026-11-03T00:00:00Z', 1000));
      expect(await run.runOnce()).to.equal(0);
    });

    it('delivers the signed event to a real receiver, every field of BudgetThresholdCrossed filled', async () => {
      const receiver = await startReceiver();
      try {
        now = Date.now();
        const { as, orgId, appId } = await ownerWithApplication(app());
        const endpoint = await as('POST', `/organizations/${orgId}/webhook-endpoints`, {
          json: { url: receiver.url, event_types: ['budget.threshold_crossed'] },
        });
        expectStatus(endpoint, 201);
        const id = await budget(as, orgId, { amount: 2.5, period: 'day', thresholds: [80], application_id: appId });
        await store(costSpan(appId, new Date(now).toISOString(), 2.25));
        expect(await evaluator().runOnce()).to.equal(1);
        const [delivery] = await waitForDeliveries(
          as,
          `/organizations/${orgId}/webhook-endpoints/${endpoint.body.id}`,
          (deliveries) => deliveries.every((candidate) => candidate.state === 'succeeded') && deliveries.length === 1,
        );
        expect(receiver.requests).to.have.length(1);
        const [request] = receiver.requests;
        expect(verify(endpoint.body.secret, request.headers, request.body)).to.equal(true);
        const body = JSON.parse(request.body);
        expect(body).to.deep.equal(delivery.event);
        const day = new Date(now).toISOString().slice(0, 10);
        const next = new Date(Date.parse(day) + 86_400_000).toISOString();
        expect(body).to.deep.include({ type: 'budget.threshold_crossed', organization_id: orgId, created_at: new Date(now).toISOString() });
        expect(body.data).to.deep.equal({
          budget_id: id,
          application_id: appId,
          period: { start: `${day}T00:00:00.000Z`, end: next },
          amount: 2.5,
          currency: 'USD',
          threshold_percent: 80,
          spend: 2.25,
          crossed_at: new Date(now).toISOString(),
        });
      } finally {
        await receiver.close();
      }
    });
  },
  { ...FAST_WEBHOOKS, BUDGET_EVALUATION_INTERVAL_SECONDS: '0', RETENTION_PURGE_INTERVAL_SECONDS: '0' },
  { clock: () => now },
);
