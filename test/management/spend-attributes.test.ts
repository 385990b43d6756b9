// Spend summaries grouped by an indexed attribute (group_by=attribute; spend_slot_rollups,
// src/storage/spend/spend-slot-rollups.ts) on every database: random spans of three applications
// (one keeps `tenant` in slot 1 filled by the writer, one in slot 2 filled by the backfill, one
// does not index it) whose `tenant` is a string, missing, JSON null, a number, a boolean, an
// object, a string of 255 or 256 characters, with reported and computed costs in three
// currencies, checked against a reference computed here from the spans read back for day, week,
// month and custom periods, with and without granularity=day and `limit`; then the refusals, a
// key indexed again (a new generation, backfilled), a rebuild, the roll-ups left short, retention,
// the migration's fill and who may read.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { rollUpStoredSpans } from '../../src/storage/migrations/20261212000100_spend_slot_rollups.js';
import { rebuildDerivedData } from '../../src/storage/spans/derived/derived-rebuild.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { purgeBatch } from '../../src/storage/spans/writes/span-purge.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { spendSlotRollups } from '../../src/storage/spend/spend-slot-rollups.js';
import { expectDeepClose, isClose } from '../support/engine-helpers.js';
import { backfillAll, setIndexedPaths, withSlotValues } from '../support/indexed-slots.js';
import { callerFor, createApplication, createOrganization, dashboardUser, expectStatus, type Caller } from '../support/management.js';
import { seededRandom } from '../support/seeded-random.js';
import { spanRow } from '../support/span-rows.js';
import { initialIndexedAttributes, writtenSlots } from '../../src/storage/accounts/indexed-attributes.js';
import { onEachDatabase } from '../support/test-server.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** 2026-10-20T00:00:00Z: spans on four hours of each of 35 days from here, across October and November. */
const FIRST_MS = Date.UTC(2026, 9, 20);
const SEED = Number(process.env.SPEND_TEST_SEED ?? 20261212);
const TENANT = 'span_attributes.tenant';
const REGION = 'span_attributes.region';

/** A tenant attribute as drawn: undefined leaves it out. */
const TENANTS: unknown[] = [
  'acme',
  'acme',
  'globex',
  'globex',
  'initech',
  'ünïcode',
  'acme ',
  '',
  undefined,
  null,
  42,
  true,
  { id: 'acme' },
  'x'.repeat(255),
  'y'.repeat(256),
];

function randomSpans(applicationId: string, count: number, next: () => number, salt: string): SpanRow[] {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  return Array.from({ length: count }, (_, index) => {
    const startMs = FIRST_MS + Math.floor(next() * 35) * DAY_MS + pick([1, 7, 13, 23]) * HOUR_MS + Math.floor(next() * HOUR_MS);
    const startNs = (BigInt(startMs) * 1_000_000n + BigInt(Math.floor(next() * 1e6))).toString();
    const kind = pick(['none', 'reported', 'computed', 'computed', 'unpriced'] as const);
    const tenant = pick(TENANTS);
    const attributes: Record<string, unknown> = { region: pick(['eu', 'us']) };
    if (tenant !== undefined) attributes.tenant = tenant;
    const tokens = next() < 0.2 ? null : Math.floor(next() * 5000);
    return spanRow({
      application_id: applicationId,
      trace_id: `${salt}${Math.floor(index / 3)}`.padStart(32, '0'),
      span_id: `${salt}${index}`.padStart(16, '0'),
      parent_span_id: index % 3 === 0 ? null : `${salt}p${index}`.padStart(16, '0'),
      start_time_unix_nano: startNs,
      end_time_unix_nano: (BigInt(startNs) + 1_000_000n).toString(),
      duration_ms: 1,
      span_attributes: JSON.stringify(attributes),
      input_tokens: tokens,
      total_tokens: tokens === null ? null : 2 * tokens,
      cost: kind === 'reported' || kind === 'computed' ? Math.round(next() * 1e6) / 1e4 : null,
      cost_source: kind === 'reported' ? 'reported' : kind === 'computed' ? 'computed' : null,
      price_currency: kind === 'computed' ? pick(['USD', 'USD', 'EUR', 'JPY']) : null,
      unpriced_reason: kind === 'unpriced' ? 'unknown_model' : null,
    });
  });
}

/** What the reference reads of a stored span. */
interface StoredSpan {
  start: bigint;
  root: boolean;
  /** The tenant as the index keeps it: a string, null (none), or 'unkept'. */
  tenant: { value: string | null; unkept: boolean };
  cost: number | null;
  currency: string | null;
  unpriced: boolean;
  input_tokens: number;
  total_tokens: number;
}

/** The reference's reading of the attribute: a kept string, none (missing or JSON null), or a value the index does not keep. */
function tenantOf(json: unknown): StoredSpan['tenant'] {
  // mysql2 answers a JSON column parsed.
  const map = (json === null ? {} : typeof json === 'string' ? JSON.parse(json) : json) as Record<string, unknown>;
  const value = map.tenant;
  if (value === undefined || value === null) return { value: null, unkept: false };
  if (typeof value === 'string' && value.length <= 255) return { value, unkept: false };
  return { value: null, unkept: true };
}

interface Figures {
  value: string | null;
  unkept: boolean;
  spend: number;
  spans: number;
  traces: number;
  spans_with_cost: number;
  input: number;
  total: number;
  unpriced: number;
  previousSpend: number;
  previousSpans: number;
  days: Map<string, number>;
}

interface Window {
  previousStart: bigint;
  start: bigint;
  end: bigint;
}

function reference(spans: StoredSpan[], window: Window, currency: string) {
  const byValue = new Map<string, Figures>();
  const others = new Map<string, number>();
  for (const span of spans) {
    if (span.start < window.previousStart || span.start >= window.end) continue;
    const id = span.tenant.unkept ? '?' : span.tenant.value === null ? '' : `=${span.tenant.value}`;
    let figures = byValue.get(id);
    if (figures === undefined) {
      figures = {
        ...span.tenant,
        spend: 0,
        spans: 0,
        traces: 0,
        spans_with_cost: 0,
        input: 0,
        total: 0,
        unpriced: 0,
        previousSpend: 0,
        previousSpans: 0,
        days: new Map(),
      };
      byValue.set(id, figures);
    }
    const counted = span.currency === currency;
    if (span.start < window.start) {
      figures.previousSpans += 1;
      if (counted) figures.previousSpend += span.cost ?? 0;
      continue;
    }
    figures.spans += 1;
    if (span.root) figures.traces += 1;
    figures.input += span.input_tokens;
    figures.total += span.total_tokens;
    if (span.unpriced) figures.unpriced += 1;
    const date = new Date(Number(span.start / 1_000_000n)).toISOString().slice(0, 10);
    figures.days.set(date, (figures.days.get(date) ?? 0) + (counted ? (span.cost ?? 0) : 0));
    if (counted) {
      figures.spend += span.cost ?? 0;
      figures.spans_with_cost += 1;
    } else if (span.currency !== null) others.set(span.currency, (others.get(span.currency) ?? 0) + 1);
  }
  const all = [...byValue.values()];
  const rows = all
    .filter((figures) => figures.spans > 0)
    .sort((a, b) => {
      if (a.spend !== b.spend) return b.spend - a.spend;
      if (a.spans !== b.spans) return b.spans - a.spans;
      if (a.value === null && b.value === null) return Number(a.unkept) - Number(b.unkept);
      if (a.value === null || b.value === null) return a.value === null ? -1 : 1;
      return Buffer.compare(Buffer.from(a.value), Buffer.from(b.value));
    });
  const total = (pick: (figures: Figures) => number) => all.reduce((sum, figures) => sum + pick(figures), 0);
  return {
    rows,
    totals: { spend: total((f) => f.spend), spans: total((f) => f.spans), previousSpans: total((f) => f.previousSpans) },
    otherCurrencies: [...others.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
  };
}

const close = (actual: number, expected: number) => isClose(actual, expected, 1e-9, 1e-9);
const msToNs = (ms: number) => BigInt(ms) * 1_000_000n;

const PERIODS: Array<{ query: Record<string, string>; window: Window }> = [
  {
    query: { period: 'month', date: '2026-11-17' },
    window: { previousStart: msToNs(Date.UTC(2026, 9, 1)), start: msToNs(Date.UTC(2026, 10, 1)), end: msToNs(Date.UTC(2026, 11, 1)) },
  },
  {
    query: { period: 'week', date: '2026-11-05' },
    window: { previousStart: msToNs(Date.UTC(2026, 9, 26)), start: msToNs(Date.UTC(2026, 10, 2)), end: msToNs(Date.UTC(2026, 10, 9)) },
  },
  {
    query: { period: 'day', date: '2026-11-01' },
    window: { previousStart: msToNs(Date.UTC(2026, 9, 31)), start: msToNs(Date.UTC(2026, 10, 1)), end: msToNs(Date.UTC(2026, 10, 2)) },
  },
  // Ragged at both ends: the whole days from day rows, the hours around them from hour rows.
  {
    query: { period: 'custom', start_time: '2026-11-03T05:00:00Z', end_time: '2026-11-10T15:00:00Z' },
    window: {
      previousStart: msToNs(Date.UTC(2026, 9, 26, 19)),
      start: msToNs(Date.UTC(2026, 10, 3, 5)),
      end: msToNs(Date.UTC(2026, 10, 10, 15)),
    },
  },
];

onEachDatabase('spend summaries grouped by an indexed attribute', (app) => {
  const knex = () => app().server.knex;
  /** A bound nanosecond time, compared as an integer (MariaDB would compare a text as a double). */
  const exact = () => (knex().client.config.client === 'mysql2' ? 'CAST(? AS SIGNED)' : 'CAST(? AS INTEGER)');
  let owner: Caller;
  let orgId: string;
  /** [writer-filled slot 1, backfilled slot 2, not indexing the key] */
  let appIds: [string, string, string];

  before(async function () {
    this.timeout(180_000);
    owner = callerFor(app(), (await dashboardUser(app())).token);
    orgId = await createOrganization(owner);
    appIds = [
      await createApplication(owner, orgId),
      await createApplication(owner, orgId, { name: 'Search' }),
      await createApplication(owner, orgId, { name: 'Batch' }),
    ];
    const next = seededRandom(SEED);
    // As ingestion stores them: slot values in the rows, filed under the slot's generation.
    const paths = [TENANT];
    await storeSpans(knex(), withSlotValues(randomSpans(appIds[0], 1200, next, 'a'), paths), {
      traceSlots: writtenSlots(initialIndexedAttributes(paths, 0)),
    });
    await setIndexedPaths(knex(), appIds[0], paths, true);
    // Stored before the keys were indexed, then backfilled (tenant in slot 2).
    await storeSpans(knex(), randomSpans(appIds[1], 500, next, 'b'));
    await setIndexedPaths(knex(), appIds[1], [REGION, TENANT], false);
    await backfillAll(knex(), appIds[1], 100);
    await storeSpans(knex(), randomSpans(appIds[2], 300, next, 'c'));
  });

  async function storedSpans(applicationIds: string[]): Promise<StoredSpan[]> {
    const mysql = knex().client.config.client === 'mysql2';
    const rows = (await knex()('spans')
      .whereIn('application_id', applicationIds)
      .select(
        'parent_span_id',
        'span_attributes',
        'cost',
        'price_currency',
        'unpriced_reason',
        'input_tokens',
        'total_tokens',
        knex().raw(`CAST(start_time_unix_nano AS ${mysql ? 'CHAR' : 'TEXT'}) AS start_text`),
      )) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      start: BigInt(String(row.start_text)),
      root: row.parent_span_id === null,
      tenant: tenantOf(row.span_attributes),
      cost: row.cost === null ? null : Number(row.cost),
      currency: row.cost === null ? null : row.price_currency === null ? 'USD' : String(row.price_currency),
      unpriced: row.unpriced_reason !== null,
      input_tokens: Number(row.input_tokens ?? 0),
      total_tokens: Number(row.total_tokens ?? 0),
    }));
  }

  /** Every period of `path` grouped by tenant in each currency against the spans, with days, with and without `limit`. */
  async function expectSummaries(
    path: string,
    spans: StoredSpan[],
    currencies: string[],
    limits: Array<number | undefined>,
  ): Promise<void> {
    for (const { query, window } of PERIODS)
      for (const currency of currencies)
        for (const limit of limits) {
          const where = `${path} ${JSON.stringify(query)} ${currency} limit ${limit}`;
          const response = await owner('GET', path, {
            query: { ...query, group_by: 'attribute', attribute: TENANT, currency, limit, granularity: 'day' },
          });
          expectStatus(response, 200);
          const body = response.body;
          expect(body, where).to.include({ group_by: 'attribute', attribute: TENANT });
          const wanted = reference(spans, window, currency);
          const listed = limit === undefined ? wanted.rows : wanted.rows.slice(0, limit);
          expect(
            body.rows.map((row: { value: string | null; unkept?: boolean }) => [row.value, row.unkept ?? false]),
            where,
          ).to.deep.equal(listed.map((row) => [row.value, row.unkept]));
          listed.forEach((row, index) => {
            const actual = body.rows[index];
            const at = `${where} row ${String(row.value)}${row.unkept ? ' unkept' : ''}`;
            expect(close(actual.spend, row.spend), `${at} spend ${actual.spend} vs ${row.spend}`).to.equal(true);
            expect(close(actual.previous.spend, row.previousSpend), `${at} previous spend`).to.equal(true);
            expect(
              [
                actual.spans,
                actual.traces,
                actual.spans_with_cost,
                actual.tokens.input,
                actual.tokens.total,
                actual.unpriced.spans,
                actual.previous.spans,
              ],
              at,
            ).to.deep.equal([row.spans, row.traces, row.spans_with_cost, row.input, row.total, row.unpriced, row.previousSpans]);
            const dates = [...row.days.keys()].sort();
            expect(
              actual.days.map((day: { date: string }) => day.date),
              `${at} days`,
            ).to.deep.equal(dates);
            actual.days.forEach((day: { date: string; spend: number }) =>
              expect(close(day.spend, row.days.get(day.date) ?? NaN), `${at} ${day.date}`).to.equal(true),
            );
          });
          const rest = wanted.rows.slice(listed.length);
          if (rest.length === 0) expect(body.other, where).to.equal(null);
          else {
            expect([body.other.values, body.other.spans], where).to.deep.equal([
              rest.length,
              rest.reduce((sum, row) => sum + row.spans, 0),
            ]);
            expect(
              close(
                body.other.spend,
                rest.reduce((sum, row) => sum + row.spend, 0),
              ),
              `${where} other spend`,
            ).to.equal(true);
          }
          expect(close(body.totals.spend, wanted.totals.spend), `${where} total`).to.equal(true);
          expect([body.totals.spans, body.totals.previous.spans], where).to.deep.equal([wanted.totals.spans, wanted.totals.previousSpans]);
          expect(
            body.other_currencies.map((other: { currency: string; spans: number }) => [other.currency, other.spans]),
            where,
          ).to.deep.equal(wanted.otherCurrencies);
        }
  }

  /** The application's spend_slot_rollups rows, in key order, the sums rounded (compared across rebuilds). */
  async function slotRows(applicationId: string): Promise<Array<Record<string, unknown>>> {
    const rows = (await knex()('spend_slot_rollups')
      .where({ application_id: applicationId })
      .orderBy(['bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash'])
      .select('*')) as Array<Record<string, unknown>>;
    return rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([column, value]) => [
          column,
          column === 'cost_sum' ? Math.round(Number(value) * 1e6) : Buffer.isBuffer(value) ? value.toString('utf8') : String(value),
        ]),
      ),
    );
  }

  it('answers every period of the application as its spans do: writer-filled and backfilled slots, with and without limit', async function () {
    this.timeout(180_000);
    for (const applicationId of appIds.slice(0, 2)) {
      const spans = await storedSpans([applicationId]);
      // Every kind of value is drawn: kept strings, none, unkept.
      expect(new Set(spans.map((span) => (span.tenant.unkept ? '?' : span.tenant.value === null ? '' : 'kept')))).to.have.lengthOf(3);
      await expectSummaries(`/applications/${applicationId}/spend`, spans, ['USD', 'EUR'], [undefined, 3]);
    }
  });

  it('sums the organization’s applications that index the key and lists the others in unindexed_applications', async function () {
    this.timeout(180_000);
    await expectSummaries(`/organizations/${orgId}/spend`, await storedSpans(appIds.slice(0, 2)), ['USD', 'JPY'], [undefined, 4]);
    const response = await owner('GET', `/organizations/${orgId}/spend`, { query: { group_by: 'attribute', attribute: TENANT } });
    expectStatus(response, 200);
    expect(response.body.unindexed_applications).to.deep.equal([{ application_id: appIds[2], reason: 'not_indexed' }]);
  });

  it('answers without granularity as with it (sums within rounding), less `days`, and never marks `unkept` on another group_by', async () => {
    const path = `/applications/${appIds[0]}/spend`;
    const query = { period: 'month', date: '2026-11-17', group_by: 'attribute', attribute: TENANT, limit: 5 };
    const [plain, daily] = [await owner('GET', path, { query }), await owner('GET', path, { query: { ...query, granularity: 'day' } })];
    expectStatus(plain, 200);
    expectStatus(daily, 200);
    const withoutDays = (body: any) => ({
      ...body,
      rows: body.rows.map(({ days: _days, ...row }: any) => row),
      other: (({ days: _days, ...other }: any) => other)(body.other),
    });
    expect(JSON.stringify(plain.body)).to.include('"unkept":true').and.not.include('"days"');
    expectDeepClose(withoutDays(daily.body), plain.body, path);
    const byModel = await owner('GET', path, { query: { period: 'month', date: '2026-11-17', group_by: 'model' } });
    expectStatus(byModel, 200);
    expect(JSON.stringify(byModel.body)).not.to.include('unkept').and.not.include('"attribute"').and.not.include('unindexed_applications');
  });

  it('reads the roll-up rows themselves: a row changed (its span count kept) changes the answer', async () => {
    const path = `/applications/${appIds[0]}/spend`;
    const query = { period: 'month', date: '2026-11-17', group_by: 'attribute', attribute: TENANT, currency: 'USD' };
    const acme = async () => {
      const response = await owner('GET', path, { query });
      expectStatus(response, 200);
      return response.body.rows.find((row: { value: string | null }) => row.value === 'acme').spend as number;
    };
    const before = await acme();
    // The day row of `acme` found by its exact bytes (MariaDB's PAD SPACE would take `acme ` too), changed by its key.
    const dayNs = msToNs(Date.UTC(2026, 10, 4)).toString();
    const ofDay = () =>
      knex()('spend_slot_rollups')
        .where({ application_id: appIds[0], bucket_width_s: 86400 })
        .whereRaw(`bucket_start_unix_nano = ${exact()}`, [dayNs]);
    const rows = (await ofDay().where({ value_kind: 1, currency: 'USD' }).select('value', 'dimensions_hash')) as Array<{
      value: string | Buffer;
      dimensions_hash: string;
    }>;
    const hash = rows.find((row) => String(row.value) === 'acme')?.dimensions_hash;
    expect(hash).to.be.a('string');
    const dayRow = () => ofDay().where({ dimensions_hash: hash });
    await dayRow().increment('cost_sum', 1000);
    try {
      expect(close(await acme(), before + 1000)).to.equal(true);
    } finally {
      await dayRow().decrement('cost_sum', 1000);
    }
  });

  it('refuses an attribute it cannot answer with a 422 at ["query","attribute"] that says what to do', async () => {
    const cases: Array<[string, Record<string, string>, string]> = [
      [`/applications/${appIds[0]}/spend`, { group_by: 'attribute' }, 'required with group_by=attribute'],
      [`/applications/${appIds[0]}/spend`, { group_by: 'model', attribute: TENANT }, 'only taken with group_by=attribute'],
      [`/applications/${appIds[0]}/spend`, { attribute: TENANT }, 'only taken with group_by=attribute'],
      [`/applications/${appIds[0]}/spend`, { group_by: 'attribute', attribute: 'tenant' }, ''],
      [`/applications/${appIds[0]}/spend`, { group_by: 'attribute', attribute: REGION }, 'PATCH /applications/'],
      [`/applications/${appIds[2]}/spend`, { group_by: 'attribute', attribute: TENANT }, 'PATCH /applications/'],
      [
        `/organizations/${orgId}/spend`,
        { group_by: 'attribute', attribute: 'span_attributes.nobody' },
        'no application of the organization',
      ],
      [`/organizations/${orgId}/spend`, { group_by: 'attribute' }, 'required with group_by=attribute'],
    ];
    for (const [path, query, message] of cases) {
      const response = await owner('GET', path, { query });
      expectStatus(response, 422);
      const where = `${path} ${JSON.stringify(query)}`;
      expect(
        response.body.detail.map((issue: { loc: unknown[] }) => issue.loc),
        where,
      ).to.deep.equal([['query', 'attribute']]);
      expect(JSON.stringify(response.body), where).to.include(message);
    }
  });

  it('fills the table from the stored spans of ready slots in its migration', async function () {
    this.timeout(180_000);
    const before = await Promise.all(appIds.map((id) => slotRows(id)));
    expect(before[2]).to.deep.equal([]);
    await knex()('spend_slot_rollups').del();
    await rollUpStoredSpans(knex());
    expect(await Promise.all(appIds.map((id) => slotRows(id)))).to.deep.equal(before);
  });

  it('leaves the rows as they were after a rebuild of their hours, and reads an application whose rows are short from its spans', async function () {
    this.timeout(180_000);
    const applicationId = appIds[1];
    const before = await slotRows(applicationId);
    expect(before.length).to.be.above(0);
    // Hour rows of a day taken away, a day row changed: the rebuild of the day's hours puts them back.
    const dayNs = msToNs(Date.UTC(2026, 10, 4));
    const nextDayNs = dayNs + msToNs(DAY_MS);
    const inDay = (query: Knex.QueryBuilder) =>
      query
        .where({ application_id: applicationId })
        .whereRaw(`bucket_start_unix_nano >= ${exact()}`, [dayNs.toString()])
        .whereRaw(`bucket_start_unix_nano < ${exact()}`, [nextDayNs.toString()]);
    const changed = await inDay(knex()('spend_slot_rollups').where({ bucket_width_s: 3600 })).del();
    expect(changed).to.be.above(0);
    await inDay(knex()('spend_slot_rollups').where({ bucket_width_s: 86400 })).update({ span_count: 999_999 });
    // Short of spend_rollups' spans: that application is read from its spans, still exact.
    await expectSummaries(`/applications/${applicationId}/spend`, await storedSpans([applicationId]), ['USD'], [undefined]);
    await rebuildDerivedData(knex(), { applicationId, fromNs: dayNs, toNs: nextDayNs, structures: [spendSlotRollups] });
    expect(await slotRows(applicationId)).to.deep.equal(before);
  });

  it('refuses a key whose backfill is running (422) and answers a key indexed again once its new backfill is done', async function () {
    this.timeout(180_000);
    const applicationId = appIds[0];
    const path = `/applications/${applicationId}/spend`;
    const query = { period: 'month', date: '2026-11-17', group_by: 'attribute', attribute: TENANT };
    // The slot takes another key (its column then holds region values), then tenant again: a new generation.
    expectStatus(await owner('PATCH', `/applications/${applicationId}`, { json: { indexed_attributes: [REGION] } }), 200);
    await backfillAll(knex(), applicationId, 400);
    expectStatus(await owner('PATCH', `/applications/${applicationId}`, { json: { indexed_attributes: [TENANT] } }), 200);
    const waiting = await owner('GET', path, { query });
    expectStatus(waiting, 422);
    expect(waiting.body.detail[0].loc).to.deep.equal(['query', 'attribute']);
    expect(waiting.body.detail[0].msg).to.include('backfill');
    const organization = await owner('GET', `/organizations/${orgId}/spend`, { query });
    expectStatus(organization, 200);
    expect(organization.body.unindexed_applications).to.deep.include({ application_id: applicationId, reason: 'backfill_running' });
    await backfillAll(knex(), applicationId, 400);
    await expectSummaries(path, await storedSpans([applicationId]), ['USD'], [undefined]);
  });

  it('answers a period whose previous period reaches below the purge edge from the spans that are left, and the purge deletes the rows below it', async function () {
    this.timeout(180_000);
    const applicationId = appIds[1];
    const edge = msToNs(Date.UTC(2026, 9, 29, 13));
    while ((await purgeBatch(knex(), { applicationId, beforeNs: edge, limit: 100 })).full);
    const left = await storedSpans([applicationId]);
    expect(left.every((span) => span.start >= edge)).to.equal(true);
    expect(left.length).to.be.below(500);
    const below = (await knex()('spend_slot_rollups')
      .where({ application_id: applicationId, bucket_width_s: 3600 })
      .whereRaw(`bucket_start_unix_nano < ${exact()}`, [edge.toString()])
      .count({ n: '*' })) as Array<{ n: number | string }>;
    expect(Number(below[0]?.n)).to.equal(0);
    await expectSummaries(`/applications/${applicationId}/spend`, left, ['USD'], [undefined]);
  });

  it('hides other organizations’ applications (404)', async () => {
    const stranger = callerFor(app(), (await dashboardUser(app(), 'Eve')).token);
    const query = { group_by: 'attribute', attribute: TENANT };
    expectStatus(await stranger('GET', `/applications/${appIds[0]}/spend`, { query }), 404);
    expectStatus(await stranger('GET', `/organizations/${orgId}/spend`, { query }), 404);
    const otherOrg = await createOrganization(stranger, 'Globex');
    const otherApp = await createApplication(stranger, otherOrg, { indexed_attributes: [TENANT] });
    expectStatus(await owner('GET', `/applications/${otherApp}/spend`, { query }), 404);
  });
});
