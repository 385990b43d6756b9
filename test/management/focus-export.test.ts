// FOCUS export (exportOrganizationFocus) on every database: random spans of two applications
// (services, models, providers, SKUs, resource types, reported and computed costs in three
// currencies; traces of four spans, most with a root) over October 2026 and the days around it,
// stored through the span writer; the CSV
// and NDJSON of October checked against the FOCUS 1.3 column list (fixtures/focus-1.3-columns.json:
// names, types, nullability, Mandatory columns), then against a reference grouped here from the
// spans (per day, application, dimensions and currency), neighbour months left out; and who may export.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { raisePurgeEdgeQuery } from '../../src/storage/spans/purge-edge.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { isClose } from '../support/engine-helpers.js';
import { callerFor, createApplication, createOrganization, dashboardUser, expectStatus, type Caller } from '../support/management.js';
import { seededRandom } from '../support/seeded-random.js';
import { randomSpendSpans } from '../support/spend-spans.js';
import { onEachDatabase } from '../support/test-server.js';

interface FixtureColumn {
  name: string;
  dataType: 'String' | 'Decimal' | 'DateTime' | 'JSON';
  allowsNulls: boolean;
  featureLevel: 'Mandatory' | 'Conditional' | 'Recommended';
}

const FIXTURE = JSON.parse(readFileSync(new URL('./fixtures/focus-1.3-columns.json', import.meta.url), 'utf8')) as {
  columns: FixtureColumn[];
};
const SPEC = new Map(FIXTURE.columns.map((column) => [column.name, column]));

const DAY_MS = 86_400_000;
/** The spans run from 2026-09-28 for 38 days: the end of September, October, the start of November. */
const FIRST_MS = Date.UTC(2026, 8, 28);
const OCTOBER = [Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1)] as const;

/** A strict RFC 4180 reader: quoted fields with doubled quotes, CRLF line ends, every record as wide as the header. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  while (index < text.length) {
    if (text[index] === '"' && field === '') {
      index += 1;
      for (;;) {
        if (index >= text.length) throw new Error('unterminated quoted field');
        if (text[index] === '"') {
          if (text[index + 1] === '"') {
            field += '"';
            index += 2;
            continue;
          }
          index += 1;
          break;
        }
        field += text[index];
        index += 1;
      }
      if (index < text.length && text[index] !== ',' && text[index] !== '\r') throw new Error(`text after a quoted field at ${index}`);
      continue;
    }
    if (text[index] === ',') {
      record.push(field);
      field = '';
      index += 1;
    } else if (text[index] === '\r') {
      if (text[index + 1] !== '\n') throw new Error(`bare CR at ${index}`);
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 2;
    } else if (text[index] === '\n' || text[index] === '"') {
      throw new Error(`${JSON.stringify(text[index])} outside a quoted field at ${index}`);
    } else {
      field += text[index];
      index += 1;
    }
  }
  if (field !== '' || record.length > 0) throw new Error('the last record does not end with CRLF');
  const width = records[0]?.length;
  records.forEach((fields, at) => expect(fields.length, `record ${at} width`).to.equal(width));
  return records;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** The key of the export's grain: application, day, the five dimensions, the billing currency. */
const grainKey = (values: Array<string | null>) => JSON.stringify(values);

interface Figures {
  spans: number;
  traces: number;
  cost: number;
  tokens: number;
}

/** The reference: October's spans per grain, and the cost per currency. */
function reference(spans: SpanRow[]): { byGrain: Map<string, Figures>; costByCurrency: Map<string, number>; spans: number } {
  const byGrain = new Map<string, Figures>();
  const costByCurrency = new Map<string, number>();
  let count = 0;
  for (const span of spans) {
    const ms = Number(BigInt(span.start_time_unix_nano) / 1_000_000n);
    if (ms < OCTOBER[0] || ms >= OCTOBER[1]) continue;
    count += 1;
    const currency = span.cost === null ? null : (span.price_currency ?? 'USD');
    const day = new Date(ms - (ms % DAY_MS)).toISOString().replace('.000Z', 'Z');
    const key = grainKey([
      span.application_id,
      day,
      span.service_name ?? 'unknown_service',
      span.model,
      span.provider,
      span.billing_sku_id,
      span.billing_resource_type,
      currency,
    ]);
    const figures = byGrain.get(key) ?? { spans: 0, traces: 0, cost: 0, tokens: 0 };
    figures.spans += 1;
    if (span.parent_span_id === null) figures.traces += 1;
    figures.cost += span.cost ?? 0;
    figures.tokens += span.total_tokens ?? 0;
    byGrain.set(key, figures);
    const billing = currency ?? 'USD';
    costByCurrency.set(billing, (costByCurrency.get(billing) ?? 0) + (span.cost ?? 0));
  }
  return { byGrain, costByCurrency, spans: count };
}

const close = (actual: number, expected: number) => isClose(actual, expected, 1e-9, 1e-9);

onEachDatabase('FOCUS export', (app) => {
  let owner: Caller;
  let orgId: string;
  let appIds: string[];
  let spans: SpanRow[];

  before(async function () {
    this.timeout(120_000);
    owner = callerFor(app(), (await dashboardUser(app())).token);
    orgId = await createOrganization(owner, 'Acme, "Inc"');
    appIds = [await createApplication(owner, orgId), await createApplication(owner, orgId, { name: 'Search' })];
    const next = seededRandom(20261128);
    spans = [
      ...randomSpendSpans(appIds[0] as string, 900, next, 'a', { firstMs: FIRST_MS, days: 38 }),
      ...randomSpendSpans(appIds[1] as string, 500, next, 'b', { firstMs: FIRST_MS, days: 38 }),
    ];
    await storeSpans(app().server.knex, spans);
  });

  const exportOf = (format: 'csv' | 'ndjson', as: Caller = owner, billingPeriod = '2026-10') =>
    as('GET', `/organizations/${orgId}/focus-export`, { query: { billing_period: billingPeriod, format } });

  it('writes a CSV whose header is FOCUS 1.3 columns (every Mandatory one) then valid x_ columns, each value of its column’s type', async () => {
    const response = await exportOf('csv');
    expectStatus(response, 200);
    expect(response.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).to.equal(`attachment; filename="focus-1.3-${orgId}-2026-10.csv"`);
    const [header = [], ...rows] = parseCsv(response.text);
    const focus = header.filter((name) => !name.startsWith('x_'));
    const extensions = header.slice(focus.length);
    expect(header.slice(0, focus.length), 'FOCUS columns before x_ columns').to.deep.equal(focus);
    expect(
      focus.filter((name) => !SPEC.has(name)),
      'columns outside FOCUS 1.3',
    ).to.deep.equal([]);
    expect(
      FIXTURE.columns.filter((column) => column.featureLevel === 'Mandatory' && !header.includes(column.name)).map((column) => column.name),
      'Mandatory columns missing',
    ).to.deep.equal([]);
    expect(extensions).to.include.members([
      'x_ApplicationId',
      'x_SpanCount',
      'x_TraceCount',
      'x_Model',
      'x_Provider',
      'x_InputTokens',
      'x_UnpricedSpanCount',
    ]);
    for (const name of extensions)
      expect(name, 'x_ name')
        .to.match(/^x_[A-Z][A-Za-z0-9]*$/)
        .and.have.length.at.most(50);
    expect(new Set(header).size).to.equal(header.length);

    expect(rows.length).to.be.above(100);
    for (const fields of rows) {
      const value = (name: string) => fields[header.indexOf(name)] as string;
      for (const name of focus) {
        const spec = SPEC.get(name) as FixtureColumn;
        const text = value(name);
        if (text === '') {
          expect(spec.allowsNulls, `${name} null`).to.equal(true);
          continue;
        }
        if (spec.dataType === 'DateTime') expect(text, name).to.match(DATE_TIME);
        if (spec.dataType === 'Decimal') expect(text, name).to.match(DECIMAL);
        if (spec.dataType === 'JSON') expect(JSON.parse(text), name).to.be.an('object').and.not.be.an('array');
      }
      expect(CURRENCIES.has(value('BillingCurrency')), value('BillingCurrency')).to.equal(true);
      expect(value('BillingPeriodStart')).to.equal('2026-10-01T00:00:00Z');
      expect(value('BillingPeriodEnd')).to.equal('2026-11-01T00:00:00Z');
      expect(Date.parse(value('ChargePeriodEnd')) - Date.parse(value('ChargePeriodStart'))).to.equal(DAY_MS);
      expect(value('ChargeCategory')).to.equal('Usage');
      expect(value('ConsumedUnit')).to.equal(value('x_Model') === '' ? 'Requests' : 'Tokens');
      for (const name of ['x_SpanCount', 'x_TraceCount', 'x_PricedSpanCount', 'x_InputTokens', 'x_TotalTokens'])
        expect(value(name), name).to.match(/^\d+$/);
    }
  });

  it('answers the same rows as NDJSON, each a FocusExportRow with the CSV’s columns in order', async () => {
    const [csv, ndjson] = [await exportOf('csv'), await exportOf('ndjson')];
    expectStatus(ndjson, 200);
    expect(ndjson.headers.get('content-type')).to.equal('application/x-ndjson');
    const [header = [], ...rows] = parseCsv(csv.text);
    const lines = ndjson.text.split('\n');
    expect(lines.pop()).to.equal('');
    expect(lines.length).to.equal(rows.length);
    lines.forEach((line, index) => {
      const object = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(object)).to.deep.equal(header);
      header.forEach((name, column) => {
        const text = rows[index]?.[column] as string;
        const value = object[name];
        if (value === null) expect(text, name).to.equal('');
        else if (typeof value === 'number') expect(Number(text), name).to.equal(value);
        else if (typeof value === 'object') expect(JSON.parse(text), name).to.deep.equal(value);
        else expect(text, name).to.equal(value);
      });
    });
  });

  /** The export of October against the reference grouped from `stored`. */
  async function expectSums(stored: SpanRow[]): Promise<void> {
    const rows = (await exportOf('ndjson')).text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, any>);
    const wanted = reference(stored);
    const got = new Map<string, Figures>();
    const costByCurrency = new Map<string, number>();
    for (const row of rows) {
      expect(Date.parse(row.ChargePeriodStart)).to.be.at.least(OCTOBER[0]).and.below(OCTOBER[1]);
      const currency = row.x_PricedSpanCount === 0 ? null : row.BillingCurrency;
      const key = grainKey([
        row.SubAccountId,
        row.ChargePeriodStart,
        row.ServiceName,
        row.x_Model,
        row.x_Provider,
        row.SkuId === row.x_Model && row.x_Model !== null ? null : row.SkuId,
        row.x_ResourceType,
        currency,
      ]);
      expect(got.has(key), `one row per grain ${key}`).to.equal(false);
      got.set(key, { spans: row.x_SpanCount, traces: row.x_TraceCount, cost: row.BilledCost, tokens: row.x_TotalTokens });
      for (const name of ['EffectiveCost', 'ListCost', 'ContractedCost']) expect(row[name], name).to.equal(row.BilledCost);
      expect(row.ConsumedQuantity).to.equal(row.x_Model === null ? row.x_SpanCount : row.x_TotalTokens);
      costByCurrency.set(row.BillingCurrency, (costByCurrency.get(row.BillingCurrency) ?? 0) + row.BilledCost);
    }
    expect(rows.reduce((sum, row) => sum + row.x_SpanCount, 0)).to.equal(wanted.spans);
    expect(rows.reduce((sum, row) => sum + row.x_TraceCount, 0)).to.be.above(0);
    expect([...costByCurrency.keys()].sort()).to.deep.equal([...wanted.costByCurrency.keys()].sort());
    for (const [currency, cost] of wanted.costByCurrency)
      expect(close(costByCurrency.get(currency) ?? NaN, cost), `${currency} ${costByCurrency.get(currency)} vs ${cost}`).to.equal(true);
    // A SKU-less LLM row's SkuId is its model: the key above reads it back as no SKU.
    const reread = new Map([...wanted.byGrain].map(([key, figures]) => [key, figures]));
    expect([...got.keys()].sort()).to.deep.equal([...reread.keys()].sort());
    for (const [key, figures] of reread) {
      const actual = got.get(key) as Figures;
      expect(actual.spans, key).to.equal(figures.spans);
      expect(actual.traces, key).to.equal(figures.traces);
      expect(actual.tokens, key).to.equal(figures.tokens);
      expect(close(actual.cost, figures.cost), `${key} cost ${actual.cost} vs ${figures.cost}`).to.equal(true);
    }
  }

  it('sums to the spans of the month per day, application, dimensions and currency; neighbour months left out', async () => {
    expect(reference(spans).spans).to.be.above(800).and.below(spans.length);
    await expectSums(spans);
  });

  it('lets members export, hides other organizations (404) and refuses a bad or future billing period (422)', async () => {
    const member = await dashboardUser(app(), 'Bob');
    expectStatus(await owner('POST', `/organizations/${orgId}/members`, { json: { email: member.email } }), 201);
    expectStatus(await exportOf('csv', callerFor(app(), member.token)), 200);

    const stranger = callerFor(app(), (await dashboardUser(app(), 'Eve')).token);
    const otherOrg = await createOrganization(stranger, 'Globex');
    expectStatus(await exportOf('csv', stranger), 404);
    expectStatus(await owner('GET', `/organizations/${otherOrg}/focus-export`, { query: { billing_period: '2026-10' } }), 404);

    for (const billingPeriod of ['2026-13', '2026-1', '2026-10-01', 'october', '2999-01']) {
      const response = await exportOf('csv', owner, billingPeriod);
      expectStatus(response, 422);
      expect(response.text, billingPeriod).to.include('billing_period');
    }
    expectStatus(await owner('GET', `/organizations/${orgId}/focus-export`), 422);
    expectStatus(await exportOf('csv', owner, '2026-11'), 200);
  });

  it('answers an application whose purge edge lies inside the month from the spans that are left, exactly', async () => {
    // As a purge batch leaves it: the edge raised, the spans below gone, the roll-up rows below still counting them.
    const knex = app().server.knex;
    const applicationId = appIds[0] as string;
    const edge = BigInt(Date.UTC(2026, 9, 12, 13)) * 1_000_000n;
    await knex.transaction(async (trx) => {
      await raisePurgeEdgeQuery(trx, applicationId, edge);
      await trx('spans')
        .where('application_id', applicationId)
        .whereRaw(`start_time_unix_nano < ${trx.client.config.client === 'mysql2' ? 'CAST(? AS SIGNED)' : 'CAST(? AS INTEGER)'}`, [
          edge.toString(),
        ])
        .del();
    });
    const left = spans.filter((span) => span.application_id !== applicationId || BigInt(span.start_time_unix_nano) >= edge);
    expect(left.length).to.be.below(spans.length);
    await expectSums(left);
  });
});
