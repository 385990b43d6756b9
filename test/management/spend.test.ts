// Spend summaries (getOrganizationSpend, getApplicationSpend) on every database: random spans of
// two applications (services, models, providers, SKUs, resource types, reported and computed
// costs in three currencies, unpriced LLM calls, traces of four spans whose root may be any of them
// or missing, over five weeks of hours) stored through the span writer, then every group_by and
// period (custom windows on ragged hours at both ends, of a week and of 40 days) checked against
// a reference computed here from the spans read back, previous period, traces, spend per day and
// other currencies included; the same after retention cut the spans below an edge the roll-up
// rows still count; and who may read them.
import { expect } from 'chai';
import { raisePurgeEdgeQuery } from '../../src/storage/spans/purge-edge.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { expectDeepClose, isClose } from '../support/engine-helpers.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  type Caller,
} from '../support/management.js';
import { seededRandom } from '../support/seeded-random.js';
import { randomSpendSpans } from '../support/spend-spans.js';
import { onEachDatabase } from '../support/test-server.js';

const DAY_MS = 86_400_000;
/** 2026-10-20T00:00:00Z: the spans run from here for 35 days, across October and November. */
const FIRST_MS = Date.UTC(2026, 9, 20);
const SEED = Number(process.env.SPEND_TEST_SEED ?? 20261209);

/** What the reference reads of a stored span. */
interface StoredSpan {
  application_id: string;
  start: bigint;
  root: boolean;
  service_name: string | null;
  model: string | null;
  provider: string | null;
  billing_sku_id: string | null;
  billing_resource_type: string | null;
  cost: number | null;
  price_currency: string | null;
  unpriced_reason: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_creation_tokens: number | null;
  total_tokens: number | null;
}

const GROUPS = {
  application: 'application_id',
  service: 'service_name',
  model: 'model',
  provider: 'provider',
  sku: 'billing_sku_id',
  resource_type: 'billing_resource_type',
} as const;
type GroupBy = keyof typeof GROUPS;

interface Figures {
  value: string | null;
  spend: number;
  spans: number;
  traces: number;
  spans_with_cost: number;
  tokens: { input: number; output: number; cache_read: number; cache_creation: number; total: number };
  unpriced: { spans: number; tokens: number };
  previous: { spend: number; spans: number };
  /** The period's spend per UTC day (`YYYY-MM-DD`) on which the value has a span. */
  days: Map<string, number>;
}

/** The reference: the spans of [previousStart, end) summed per value, in JS. */
function reference(spans: StoredSpan[], window: { previousStart: bigint; start: bigint; end: bigint }, groupBy: GroupBy, currency: string) {
  const byValue = new Map<string | null, Figures>();
  const others = new Map<string, { currency: string; spend: number; spans: number }>();
  for (const span of spans) {
    if (span.start < window.previousStart || span.start >= window.end) continue;
    const value = span[GROUPS[groupBy]];
    let figures = byValue.get(value);
    if (figures === undefined) {
      figures = {
        value,
        spend: 0,
        spans: 0,
        traces: 0,
        spans_with_cost: 0,
        tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0, total: 0 },
        unpriced: { spans: 0, tokens: 0 },
        previous: { spend: 0, spans: 0 },
        days: new Map(),
      };
      byValue.set(value, figures);
    }
    const spanCurrency = span.cost === null ? null : (span.price_currency ?? 'USD');
    const inCurrency = spanCurrency === currency;
    if (span.start < window.start) {
      figures.previous.spans += 1;
      if (inCurrency) figures.previous.spend += span.cost ?? 0;
      continue;
    }
    figures.spans += 1;
    if (span.root) figures.traces += 1;
    const date = new Date(Number(span.start / 1_000_000n)).toISOString().slice(0, 10);
    figures.days.set(date, (figures.days.get(date) ?? 0) + (inCurrency ? (span.cost ?? 0) : 0));
    if (inCurrency) {
      figures.spend += span.cost ?? 0;
      figures.spans_with_cost += 1;
    } else if (spanCurrency !== null) {
      const other = others.get(spanCurrency) ?? { currency: spanCurrency, spend: 0, spans: 0 };
      other.spend += span.cost ?? 0;
      other.spans += 1;
      others.set(spanCurrency, other);
    }
    figures.tokens.input += span.input_tokens ?? 0;
    figures.tokens.output += span.output_tokens ?? 0;
    figures.tokens.cache_read += span.cache_read_tokens ?? 0;
    figures.tokens.cache_creation += span.cache_creation_tokens ?? 0;
    figures.tokens.total += span.total_tokens ?? 0;
    if (span.unpriced_reason !== null) {
      figures.unpriced.spans += 1;
      figures.unpriced.tokens += span.total_tokens ?? 0;
    }
  }
  const all = [...byValue.values()];
  const rows = all
    .filter((figures) => figures.spans > 0)
    .sort((a, b) => {
      if (a.spend !== b.spend) return b.spend - a.spend;
      if (a.spans !== b.spans) return b.spans - a.spans;
      if (a.value === null || b.value === null) return a.value === null ? -1 : 1;
      return Buffer.compare(Buffer.from(a.value), Buffer.from(b.value));
    });
  const total = (pick: (figures: Figures) => number) => all.reduce((sum, figures) => sum + pick(figures), 0);
  return {
    rows,
    totals: {
      spend: total((f) => f.spend),
      spans: total((f) => f.spans),
      traces: total((f) => f.traces),
      previousSpend: total((f) => f.previous.spend),
    },
    otherCurrencies: [...others.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1)),
  };
}

const close = (actual: number, expected: number) => isClose(actual, expected, 1e-9, 1e-9);

function expectFigures(actual: Record<string, any>, wanted: Figures, where: string): void {
  expect(close(actual.spend, wanted.spend), `${where} spend ${actual.spend} vs ${wanted.spend}`).to.equal(true);
  expect(close(actual.previous.spend, wanted.previous.spend), `${where} previous spend`).to.equal(true);
  expect(
    {
      spans: actual.spans,
      traces: actual.traces,
      spans_with_cost: actual.spans_with_cost,
      tokens: actual.tokens,
      unpriced: actual.unpriced,
      previous: actual.previous.spans,
    },
    where,
  ).to.deep.equal({
    spans: wanted.spans,
    traces: wanted.traces,
    spans_with_cost: wanted.spans_with_cost,
    tokens: wanted.tokens,
    unpriced: wanted.unpriced,
    previous: wanted.previous.spans,
  });
  const change = actual.spend - actual.previous.spend;
  expect(close(actual.change.spend, change), `${where} change`).to.equal(true);
  if (wanted.previous.spend === 0) expect(actual.change.ratio, `${where} ratio`).to.equal(null);
  else expect(close(actual.change.ratio, change / actual.previous.spend), `${where} ratio`).to.equal(true);
}

/** `days` of a row or `other` against the reference's days: the same dates in order, each spend as close as `spend`. */
function expectDays(actual: Array<{ date: string; spend: number }> | undefined, wanted: Map<string, number>, where: string): void {
  const dates = [...wanted.keys()].sort();
  expect(
    actual?.map((day) => day.date),
    `${where} days`,
  ).to.deep.equal(dates);
  actual?.forEach((day) =>
    expect(close(day.spend, wanted.get(day.date) ?? NaN), `${where} ${day.date} spend ${day.spend} vs ${wanted.get(day.date)}`).to.equal(
      true,
    ),
  );
}

/** The days of several values added up. */
function summedDays(values: Figures[]): Map<string, number> {
  const days = new Map<string, number>();
  for (const value of values) for (const [date, spend] of value.days) days.set(date, (days.get(date) ?? 0) + spend);
  return days;
}

const msToNs = (ms: number) => BigInt(ms) * 1_000_000n;

/** The periods checked, with the windows the summary must read. */
const PERIODS: Array<{ query: Record<string, string>; previousStart: number; start: number; end: number }> = [
  {
    query: { period: 'month', date: '2026-11-17' },
    previousStart: Date.UTC(2026, 9, 1),
    start: Date.UTC(2026, 10, 1),
    end: Date.UTC(2026, 11, 1),
  },
  // 2026-11-05 is a Thursday: its ISO week starts on Monday 2026-11-02.
  {
    query: { period: 'week', date: '2026-11-05' },
    previousStart: Date.UTC(2026, 9, 26),
    start: Date.UTC(2026, 10, 2),
    end: Date.UTC(2026, 10, 9),
  },
  {
    query: { period: 'day', date: '2026-11-01' },
    previousStart: Date.UTC(2026, 9, 31),
    start: Date.UTC(2026, 10, 1),
    end: Date.UTC(2026, 10, 2),
  },
  {
    query: { period: 'custom', start_time: '2026-11-03T05:00:00Z', end_time: '2026-11-10T17:00:00+02:00' },
    previousStart: Date.UTC(2026, 9, 26, 19),
    start: Date.UTC(2026, 10, 3, 5),
    end: Date.UTC(2026, 10, 10, 15),
  },
  // 40 days less 4 hours, ragged at both ends: whole days from day rows, the ends from hour rows.
  {
    query: { period: 'custom', start_time: '2026-10-22T07:00:00Z', end_time: '2026-12-01T03:00:00Z' },
    previousStart: Date.UTC(2026, 9, 22, 7) - (40 * DAY_MS - 4 * 3_600_000),
    start: Date.UTC(2026, 9, 22, 7),
    end: Date.UTC(2026, 11, 1, 3),
  },
];

onEachDatabase('spend summaries', (app) => {
  const knex = () => app().server.knex;
  let owner: Caller;
  let orgId: string;
  let appIds: string[];

  before(async function () {
    this.timeout(120_000);
    owner = callerFor(app(), (await dashboardUser(app())).token);
    orgId = await createOrganization(owner);
    appIds = [await createApplication(owner, orgId), await createApplication(owner, orgId, { name: 'Search' })];
    const next = seededRandom(SEED);
    await storeSpans(knex(), randomSpendSpans(appIds[0] as string, 1500, next, 'a', { firstMs: FIRST_MS, days: 35 }));
    await storeSpans(knex(), randomSpendSpans(appIds[1] as string, 700, next, 'b', { firstMs: FIRST_MS, days: 35 }));
  });

  async function storedSpans(applicationIds: string[]): Promise<StoredSpan[]> {
    const rows = (await knex()('spans')
      .whereIn('application_id', applicationIds)
      .select(
        'application_id',
        'parent_span_id',
        knex().raw(`CAST(start_time_unix_nano AS ${knex().client.config.client === 'mysql2' ? 'CHAR' : 'TEXT'}) AS start_text`),
        ...Object.values(GROUPS).filter((column) => column !== 'application_id'),
        'cost',
        'price_currency',
        'unpriced_reason',
        'input_tokens',
        'output_tokens',
        'cache_read_tokens',
        'cache_creation_tokens',
        'total_tokens',
      )) as Array<Record<string, unknown>>;
    const text = (value: unknown) => (value === null ? null : Buffer.isBuffer(value) ? value.toString('utf8') : String(value));
    const count = (value: unknown) => (value === null ? null : Number(value));
    return rows.map((row) => ({
      application_id: String(row.application_id),
      start: BigInt(String(row.start_text)),
      root: row.parent_span_id === null,
      service_name: text(row.service_name),
      model: text(row.model),
      provider: text(row.provider),
      billing_sku_id: text(row.billing_sku_id),
      billing_resource_type: text(row.billing_resource_type),
      cost: count(row.cost),
      price_currency: text(row.price_currency),
      unpriced_reason: text(row.unpriced_reason),
      input_tokens: count(row.input_tokens),
      output_tokens: count(row.output_tokens),
      cache_read_tokens: count(row.cache_read_tokens),
      cache_creation_tokens: count(row.cache_creation_tokens),
      total_tokens: count(row.total_tokens),
    }));
  }

  /** Every period and group_by of `path` in each currency against the spans, with the spend per day (granularity=day). */
  async function expectSummaries(path: string, spans: StoredSpan[], currencies: string[], limit?: number): Promise<void> {
    for (const period of PERIODS)
      for (const groupBy of Object.keys(GROUPS) as GroupBy[])
        for (const currency of currencies) {
          const where = `${path} ${JSON.stringify(period.query)} ${groupBy} ${currency}`;
          const response = await owner('GET', path, { query: { ...period.query, group_by: groupBy, currency, limit, granularity: 'day' } });
          expectStatus(response, 200);
          const body = response.body;
          const window = { previousStart: msToNs(period.previousStart), start: msToNs(period.start), end: msToNs(period.end) };
          expect(
            [body.previous_start_time, body.start_time, body.end_time, body.previous_end_time].map((text: string) => Date.parse(text)),
            where,
          ).to.deep.equal([period.previousStart, period.start, period.end, period.start]);
          const wanted = reference(spans, window, groupBy, currency);
          const listed = limit === undefined ? wanted.rows : wanted.rows.slice(0, limit);
          expect(
            body.rows.map((row: Figures) => row.value),
            where,
          ).to.deep.equal(listed.map((row) => row.value));
          listed.forEach((row, index) => {
            expectFigures(body.rows[index], row, `${where} row ${String(row.value)}`);
            expectDays(body.rows[index].days, row.days, `${where} row ${String(row.value)}`);
            const share = wanted.totals.spend === 0 ? null : row.spend / wanted.totals.spend;
            if (share === null) expect(body.rows[index].share).to.equal(null);
            else expect(close(body.rows[index].share, share), `${where} share`).to.equal(true);
          });
          const rest = wanted.rows.slice(listed.length);
          if (rest.length === 0) expect(body.other, where).to.equal(null);
          else {
            expect(body.other.values, where).to.equal(rest.length);
            expect(body.other.spans, where).to.equal(rest.reduce((sum, row) => sum + row.spans, 0));
            expect(
              close(
                body.other.spend,
                rest.reduce((sum, row) => sum + row.spend, 0),
              ),
              `${where} other spend`,
            ).to.equal(true);
            expectDays(body.other.days, summedDays(rest), `${where} other`);
          }
          expect(close(body.totals.spend, wanted.totals.spend), `${where} total`).to.equal(true);
          expect(body.totals.spans, where).to.equal(wanted.totals.spans);
          expect(body.totals.traces, where).to.equal(wanted.totals.traces);
          expect(close(body.totals.previous.spend, wanted.totals.previousSpend), `${where} previous total`).to.equal(true);
          expect(
            body.other_currencies.map((other: { currency: string; spans: number }) => [other.currency, other.spans]),
            where,
          ).to.deep.equal(wanted.otherCurrencies.map((other) => [other.currency, other.spans]));
          body.other_currencies.forEach((other: { spend: number }, index: number) =>
            expect(close(other.spend, wanted.otherCurrencies[index]?.spend ?? NaN), `${where} other currency`).to.equal(true),
          );
        }
  }

  it('answers every group_by and period of the organization as the spans do, in USD and in EUR', async function () {
    this.timeout(120_000);
    const spans = await storedSpans(appIds);
    expect(spans.length).to.equal(2200);
    await expectSummaries(`/organizations/${orgId}/spend`, spans, ['USD', 'EUR']);
  });

  it('answers every group_by and period of one application as its spans do, the rest past `limit` in `other`', async function () {
    this.timeout(120_000);
    const spans = await storedSpans([appIds[1] as string]);
    await expectSummaries(`/applications/${appIds[1]}/spend`, spans, ['JPY'], 2);
  });

  it('answers a period whose previous period reaches below the purge edge from the spans that are left, exactly', async function () {
    this.timeout(120_000);
    // As a purge batch leaves it: the edge raised, the spans below gone, the roll-up rows below
    // not yet deleted (they go a bounded number per batch) and still counting those spans.
    const applicationId = appIds[0] as string;
    const edge = msToNs(Date.UTC(2026, 10, 5, 13));
    await knex().transaction(async (trx) => {
      await raisePurgeEdgeQuery(trx, applicationId, edge);
      await trx('spans')
        .where('application_id', applicationId)
        .whereRaw(`start_time_unix_nano < ${trx.client.config.client === 'mysql2' ? 'CAST(? AS SIGNED)' : 'CAST(? AS INTEGER)'}`, [
          edge.toString(),
        ])
        .del();
    });
    const left = await storedSpans([applicationId]);
    expect(left.every((span) => span.start >= edge)).to.equal(true);
    expect(left.length).to.be.below(1500);
    await expectSummaries(`/applications/${applicationId}/spend`, left, ['USD']);
    await expectSummaries(`/organizations/${orgId}/spend`, await storedSpans(appIds), ['USD']);
  });

  it('answers without granularity as with granularity=day (sums within rounding), less `days`', async function () {
    this.timeout(120_000);
    for (const path of [`/organizations/${orgId}/spend`, `/applications/${appIds[1]}/spend`])
      for (const period of PERIODS)
        for (const groupBy of ['application', 'model', 'sku'] as const) {
          const query = { ...period.query, group_by: groupBy, limit: 2 };
          const [plain, daily] = [
            await owner('GET', path, { query }),
            await owner('GET', path, { query: { ...query, granularity: 'day' } }),
          ];
          expectStatus(plain, 200);
          expectStatus(daily, 200);
          const where = `${path} ${JSON.stringify(query)}`;
          expect(JSON.stringify(plain.body), where).not.to.include('"days"');
          const withoutDays = (body: any) => ({
            ...body,
            rows: body.rows.map(({ days: _days, ...row }: any) => row),
            other: body.other === null ? null : (({ days: _days, ...other }: any) => other)(body.other),
          });
          expect(withoutDays(daily.body).rows.length, where).to.be.above(0);
          expectDeepClose(withoutDays(daily.body), plain.body, where);
        }
  });

  it('answers the current month, grouped by application in USD, by default', async () => {
    const response = await owner('GET', `/organizations/${orgId}/spend`);
    expectStatus(response, 200);
    expect(response.body).to.include({ period: 'month', group_by: 'application', currency: 'USD' });
    const now = new Date();
    expect(Date.parse(response.body.start_time)).to.equal(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  });

  it('lets members and the application’s own API key read, and hides other applications and organizations (404)', async () => {
    const member = await dashboardUser(app(), 'Bob');
    const asMember = callerFor(app(), member.token);
    expectStatus(await owner('POST', `/organizations/${orgId}/members`, { json: { email: member.email } }), 201);
    expectStatus(await asMember('GET', `/organizations/${orgId}/spend`), 200);
    expectStatus(await asMember('GET', `/applications/${appIds[0]}/spend`), 200);

    const key = await createApiKey(owner, appIds[0] as string, ['read:applications']);
    const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
    expectStatus(await asKey('GET', `/applications/${appIds[0]}/spend`, { query: { group_by: 'model' } }), 200);
    expectStatus(await asKey('GET', `/applications/${appIds[1]}/spend`), 404);
    expectStatus(await asKey('GET', `/organizations/${orgId}/spend`), 403);

    const stranger = callerFor(app(), (await dashboardUser(app(), 'Eve')).token);
    const otherOrg = await createOrganization(stranger, 'Globex');
    expectStatus(await stranger('GET', `/organizations/${orgId}/spend`), 404);
    expectStatus(await stranger('GET', `/applications/${appIds[0]}/spend`), 404);
    expectStatus(await owner('GET', `/organizations/${otherOrg}/spend`), 404);
  });

  it('refuses periods it cannot answer with a 422 at the parameter', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ period: 'custom', start_time: '2026-11-01T00:30:00Z', end_time: '2026-11-02T00:00:00Z' }, 'start_time'],
      [{ period: 'custom', start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00.5Z' }, 'end_time'],
      [{ period: 'custom', start_time: '2026-11-02T00:00:00Z', end_time: '2026-11-02T00:00:00Z' }, 'end_time'],
      [{ period: 'custom', start_time: '2025-11-01T00:00:00Z', end_time: '2026-11-03T00:00:00Z' }, 'end_time'],
      [{ period: 'custom', end_time: '2026-11-03T00:00:00Z' }, 'start_time'],
      [{ period: 'custom', start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-03T00:00:00Z', date: '2026-11-01' }, 'date'],
      [{ period: 'day', start_time: '2026-11-01T00:00:00Z' }, 'start_time'],
      [{ period: 'month', date: '2026-02-30' }, 'date'],
      [{ period: 'year' }, 'period'],
      [{ currency: 'usd' }, 'currency'],
      [{ limit: '0' }, 'limit'],
      [{ granularity: 'hour' }, 'granularity'],
    ];
    for (const [query, parameter] of cases) {
      const response = await owner('GET', `/applications/${appIds[0]}/spend`, { query });
      expectStatus(response, 422);
      expect(JSON.stringify(response.body), JSON.stringify(query)).to.include(`"${parameter}"`);
    }
  });
});
