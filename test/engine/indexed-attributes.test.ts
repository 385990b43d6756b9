// Indexed attribute slots end to end, on every database: the management API's
// indexed_attributes (create, PATCH, every representation, 422s), ingestion over OTLP/HTTP
// filling the slots, the backfill after a PATCH (queries read the JSON until it is complete,
// then the slot), a span page's total and span-grain analytics through span_slot_values, another application's keys
// never applying, and the retention purge and application delete with slots in place.
import { expect } from 'chai';
import { parseIndexedAttributes } from '../../src/storage/accounts/indexed-attributes.js';
import type { Knex } from 'knex';
import { matchingSpans } from '../../src/storage/spans/reads/span-pages.js';
import { spanSlotRows } from '../../src/storage/spans/slots/span-slot-values.js';
import { migratorConfig } from '../../src/storage/migrations/index.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import {
  callerFor,
  createApiKey,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  ownerWithApplication,
  type Caller,
} from '../support/management.js';
import { spanRow } from '../support/span-rows.js';
import { StaleSlotKeysError, storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { ingestTraces } from '../../src/ingest/ingest-traces.js';
import { sqlSpanStore } from '../../src/storage/spans/sql-span-store.js';
import { ExportBody } from '../../src/ingest/export-body.js';
import { NO_INDEXED_ATTRIBUTES } from '../../src/storage/accounts/indexed-attributes.js';
import { createLogger } from '../../src/logger.js';
import { statementsDuring } from '../support/statements.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

const MODEL = 'span_attributes.gen_ai.request.model';
const ENVIRONMENT = 'resource_attributes.deployment.environment';
const T0 = 1_795_355_100_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(T0 - 60_000_000_000n), end_time: nanosToRfc3339(T0 + 3_600_000_000_000n) };

/** One OTLP/JSON span with string, number or absent attribute values. */
function otlpSpan(index: number, attributes: Record<string, string | number | undefined>) {
  return {
    traceId: index.toString(16).padStart(32, '0'),
    spanId: (index + 1).toString(16).padStart(16, '0'),
    name: `call ${index}`,
    kind: 3,
    startTimeUnixNano: (T0 + BigInt(index) * 1_000_000n).toString(),
    endTimeUnixNano: (T0 + BigInt(index) * 1_000_000n + 5_000_000n).toString(),
    attributes: Object.entries(attributes)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } })),
  };
}

const LONG = 'm'.repeat(256);
/** Model values: kept strings, a number, a string too long for a slot, none; the environment on the resource. */
const SPANS = [
  otlpSpan(1, { 'gen_ai.request.model': 'gemini-2.5-pro' }),
  otlpSpan(2, { 'gen_ai.request.model': 'gemini-2.5-flash' }),
  otlpSpan(3, { 'gen_ai.request.model': 200 }),
  otlpSpan(4, { 'gen_ai.request.model': LONG }),
  otlpSpan(5, {}),
  otlpSpan(6, { 'gen_ai.request.model': 'gemini-2.5-pro ' }),
];

async function exportSpans(app: TestServer, token: string, appId: string): Promise<void> {
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'deployment.environment', value: { stringValue: 'production' } }] },
        scopeSpans: [{ scope: { name: 't' }, spans: SPANS }],
      },
    ],
  };
  const response = await call(app.url, 'POST', '/v1/traces', {
    headers: { authorization: `Bearer ${token}`, 'x-vendor-app-id': appId },
    json: body,
  });
  expect(response.status, response.text).to.equal(200);
}

const FILTERS: Array<[string, unknown, string[]]> = [
  ['eq', { field: MODEL, op: 'eq', value: 'gemini-2.5-pro' }, ['call 1']],
  ['in', { field: MODEL, op: 'in', value: ['gemini-2.5-flash', 'gemini-2.5-pro ', 'nope'] }, ['call 2', 'call 6']],
  ['a long value (read from the JSON)', { field: MODEL, op: 'eq', value: LONG }, ['call 4']],
  ['a number as text (read from the JSON)', { field: MODEL, op: 'eq', value: '200' }, ['call 3']],
  [
    'a resource attribute',
    {
      and: [
        { field: ENVIRONMENT, op: 'eq', value: 'production' },
        { field: MODEL, op: 'in', value: ['gemini-2.5-pro', 'gemini-2.5-flash'] },
      ],
    },
    ['call 1', 'call 2'],
  ],
];

onEachDatabase(
  'indexed attributes',
  (app) => {
    async function engine(
      token: string,
      appId: string,
      path: '/engine/query' | '/traces',
      filter: unknown,
      query: Record<string, string | boolean> = {},
    ): Promise<string[]> {
      const response = await call(app().url, 'POST', path, {
        query: { ...WINDOW, limit: '100', ...query },
        headers: { authorization: `Bearer ${token}`, 'x-vendor-app-id': appId },
        json: { filter },
      });
      expect(response.status, response.text).to.equal(200);
      const names = (response.body.data as Array<{ span_name: string }>).map((row) => row.span_name);
      return names.sort();
    }

    async function ownerAndKey(paths?: string[]): Promise<{ as: Caller; orgId: string; appId: string; token: string }> {
      const as = callerFor(app(), (await dashboardUser(app())).token);
      const orgId = await createOrganization(as);
      const created = await as('POST', '/applications', {
        json: { organization_id: orgId, name: 'Gen AI', region: 'EU', ...(paths && { indexed_attributes: paths }) },
      });
      expectStatus(created, 201);
      const key = await createApiKey(as, created.body.id, ['read:traces', 'write:traces']);
      return { as, orgId, appId: created.body.id, token: await keyToken(app(), key.apiKey, key.secret) };
    }

    async function state(appId: string) {
      const row = (await app().server.knex('applications').where({ id: appId }).first('indexed_attributes_state')) as {
        indexed_attributes_state: string | null;
      };
      return parseIndexedAttributes(row.indexed_attributes_state);
    }

    async function slotValues(appId: string, column: string): Promise<Array<string | null>> {
      return (await app().server.knex('spans').where({ application_id: appId }).orderBy('span_name').pluck(column)) as Array<string | null>;
    }

    /** The application's rows of span_slot_values as `slot:value`, sorted. */
    async function slotValueTable(appId: string): Promise<string[]> {
      const rows = (await app().server.knex('span_slot_values').where({ application_id: appId }).select('slot', 'value')) as Array<{
        slot: number;
        value: string | Buffer;
      }>;
      return rows.map((row) => `${row.slot}:${String(row.value)}`).sort();
    }

    it('answers indexed_attributes in every representation ([] by default), sets it at creation and replaces it by PATCH', async () => {
      const { as, appId } = await ownerWithApplication(app());
      const plain = await as('GET', `/applications/${appId}`);
      expect(plain.body.indexed_attributes).to.deep.equal([]);
      const set = await as('PATCH', `/applications/${appId}`, { json: { indexed_attributes: [MODEL, ENVIRONMENT] } });
      expectStatus(set, 200);
      expect(set.body).to.have.all.keys('id', 'name', 'indexed_attributes', 'updated_at');
      expect(set.body.indexed_attributes).to.deep.equal([MODEL, ENVIRONMENT]);
      expect((await as('GET', `/applications/${appId}`)).body.indexed_attributes).to.deep.equal([MODEL, ENVIRONMENT]);
      const listed = await as('GET', '/applications', { query: { organization_id: plain.body.organization_id } });
      expect(listed.body.data.map((item: { indexed_attributes: string[] }) => item.indexed_attributes)).to.deep.include([
        MODEL,
        ENVIRONMENT,
      ]);
      // A rename answers as before and keeps the list; a PATCH replaces the whole list.
      const renamed = await as('PATCH', `/applications/${appId}`, { json: { name: 'Renamed' } });
      expect(renamed.body).to.have.all.keys('id', 'name', 'updated_at');
      expect((await as('GET', `/applications/${appId}`)).body.indexed_attributes).to.deep.equal([MODEL, ENVIRONMENT]);
      // A kept path keeps its slot; a new one takes a free slot.
      const slotsBefore = (await state(appId)).slots.map((slot) => slot?.path ?? null);
      const replaced = await as('PATCH', `/applications/${appId}`, {
        json: { indexed_attributes: ['span_attributes.http.route', ENVIRONMENT] },
      });
      expect(replaced.body.indexed_attributes).to.deep.equal(['span_attributes.http.route', ENVIRONMENT]);
      const slotsAfter = (await state(appId)).slots.map((slot) => slot?.path ?? null);
      expect(slotsAfter[slotsBefore.indexOf(ENVIRONMENT)]).to.equal(ENVIRONMENT);
      expect(slotsAfter).to.include('span_attributes.http.route');
      const cleared = await as('PATCH', `/applications/${appId}`, { json: { indexed_attributes: [] } });
      expect(cleared.body.indexed_attributes).to.deep.equal([]);
      expect((await state(appId)).slots).to.deep.equal([null, null, null]);

      const orgId = (await as('GET', `/applications/${appId}`)).body.organization_id;
      const created = await as('POST', '/applications', {
        json: { organization_id: orgId, name: 'Indexed', region: 'US', indexed_attributes: [MODEL] },
      });
      expectStatus(created, 201);
      expect(created.body.indexed_attributes).to.deep.equal([MODEL]);
      // A new application has no spans: its slots are ready at once.
      expect((await state(created.body.id)).slots[0]).to.include({ path: MODEL, ready: true });
    });

    it('refuses more than 3 paths, a path that is no attribute path, and duplicates (422 at the field)', async () => {
      const { as, appId, orgId } = await ownerWithApplication(app());
      const refusals: Array<[unknown, string]> = [
        [[MODEL, ENVIRONMENT, 'span_attributes.a', 'span_attributes.b'], 'too_long'],
        [['gen_ai.request.model'], 'string_pattern_mismatch'],
        [['span_attributes.http-method'], 'string_pattern_mismatch'],
        [['span_attributes.'], 'string_pattern_mismatch'],
        [[MODEL, MODEL], ''],
        ['span_attributes.x', ''],
      ];
      for (const [paths] of refusals) {
        const patched = await as('PATCH', `/applications/${appId}`, { json: { indexed_attributes: paths } });
        expectStatus(patched, 422);
        expect(patched.body.detail[0].loc.slice(0, 2), JSON.stringify(paths)).to.deep.equal(['body', 'indexed_attributes']);
        const created = await as('POST', '/applications', {
          json: { organization_id: orgId, name: 'x', region: 'EU', indexed_attributes: paths },
        });
        expectStatus(created, 422);
      }
      expect((await as('GET', `/applications/${appId}`)).body.indexed_attributes).to.deep.equal([]);
    });

    it('fills the slots at ingestion (OTLP/HTTP), and eq/in on the keys read them with the same answers', async () => {
      const { appId, token } = await ownerAndKey([MODEL, ENVIRONMENT]);
      await exportSpans(app(), token, appId);
      // Slot 1 keeps the model's string values of at most 255 characters, slot 2 the environment.
      expect(await slotValues(appId, 'indexed_value_1')).to.deep.equal([
        'gemini-2.5-pro',
        'gemini-2.5-flash',
        null,
        null,
        null,
        'gemini-2.5-pro ',
      ]);
      expect(await slotValues(appId, 'indexed_value_2')).to.deep.equal(Array(6).fill('production'));
      // span_slot_values holds a row for each value and none for a span without one.
      expect(await slotValueTable(appId)).to.deep.equal(
        ['1:gemini-2.5-flash', '1:gemini-2.5-pro', '1:gemini-2.5-pro ', ...Array(6).fill('2:production')].sort(),
      );
      for (const [name, filter, wanted] of FILTERS) {
        const sql = await statementsDuring(app().server.knex, async () => {
          expect(await engine(token, appId, '/engine/query', filter), name).to.deep.equal(wanted);
        });
        if (name === 'eq' || name === 'in')
          expect(
            sql.some((text) => text.includes('indexed_value_1')),
            `${name}: ${sql.join('\n')}`,
          ).to.equal(true);
        if (name.includes('JSON'))
          expect(
            sql.some((text) => text.includes('indexed_value_')),
            name,
          ).to.equal(false);
        // Every span is its own trace's root here: the trace list names the same spans, by either search.
        for (const search_child_spans of [false, true]) {
          const traces = await call(app().url, 'POST', '/traces', {
            query: { ...WINDOW, limit: '100', search_child_spans },
            headers: { authorization: `Bearer ${token}`, 'x-vendor-app-id': appId },
            json: { filter },
          });
          expect(
            (traces.body.data as Array<{ span_name: string }>).map((row) => row.span_name).sort(),
            `${name}, search_child_spans=${search_child_spans}`,
          ).to.deep.equal(wanted);
        }
      }
    });

    it('backfills the stored spans after a PATCH; until then queries read the JSON, then the slot', async () => {
      const { as, appId, token } = await ownerAndKey();
      await exportSpans(app(), token, appId);
      expectStatus(await as('PATCH', `/applications/${appId}`, { json: { indexed_attributes: [MODEL] } }), 200);
      expect((await state(appId)).slots[0]).to.include({ path: MODEL, ready: false });
      const eq = FILTERS[0] as [string, unknown, string[]];
      const before = await statementsDuring(app().server.knex, async () => {
        expect(await engine(token, appId, '/engine/query', eq[1])).to.deep.equal(eq[2]);
      });
      expect(before.some((text) => text.includes('indexed_value_'))).to.equal(false);
      // Batches of 2 (INDEXING_BACKFILL_BATCH_SIZE): six spans, three batches and the last one.
      const batches = await app().server.backfiller.runOnce();
      expect(batches).to.be.at.least(3);
      expect((await state(appId)).slots[0]).to.include({ path: MODEL, ready: true });
      expect(await slotValues(appId, 'indexed_value_1')).to.deep.equal([
        'gemini-2.5-pro',
        'gemini-2.5-flash',
        null,
        null,
        null,
        'gemini-2.5-pro ',
      ]);
      expect(await slotValueTable(appId)).to.deep.equal(['1:gemini-2.5-flash', '1:gemini-2.5-pro', '1:gemini-2.5-pro ']);
      for (const [name, filter, wanted] of FILTERS) expect(await engine(token, appId, '/engine/query', filter), name).to.deep.equal(wanted);
      const after = await statementsDuring(app().server.knex, async () => {
        expect(await engine(token, appId, '/engine/query', eq[1])).to.deep.equal(eq[2]);
      });
      expect(after.some((text) => text.includes('indexed_value_1'))).to.equal(true);

      // Replacing the key reuses the slot: not ready again, then rewritten whole (old values gone).
      expectStatus(await as('PATCH', `/applications/${appId}`, { json: { indexed_attributes: ['span_attributes.none'] } }), 200);
      expect((await state(appId)).slots[0]).to.include({ path: 'span_attributes.none', ready: false });
      await app().server.backfiller.runOnce();
      expect((await state(appId)).slots[0]).to.include({ ready: true });
      expect(await slotValues(appId, 'indexed_value_1')).to.deep.equal(Array(6).fill(null));
      expect(await slotValueTable(appId), "the old key's rows gone with its values").to.deep.equal([]);
      expect(await engine(token, appId, '/engine/query', { field: 'span_attributes.none', op: 'eq', value: 'x' })).to.deep.equal([]);
    });

    it('stores no span with keys read over 30 s before: the writer refuses, ingestion reads the keys again', async () => {
      const knex = app().server.knex;
      const { orgId, appId } = await ownerAndKey([MODEL]);
      const rows = [spanRow({ application_id: appId, trace_id: 'f'.repeat(32), span_id: 'f'.repeat(16) })];
      let refused: unknown;
      await storeSpans(knex, rows, { slotKeysValidUntil: Date.now() - 1 }).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(StaleSlotKeysError);
      expect(await slotValues(appId, 'span_id')).to.deep.equal([]);
      // Keys as authorization read them a minute ago (none): ingestion reads the current ones (MODEL).
      const span = {
        traceId: 'e'.repeat(32),
        spanId: 'e'.repeat(16),
        parentSpanId: '',
        name: 'late',
        kind: 3,
        startTimeUnixNano: T0.toString(),
        endTimeUnixNano: (T0 + 1_000_000n).toString(),
        attributes: { 'gen_ai.request.model': 'gemini-2.5-pro' },
        statusCode: 0,
        statusMessage: '',
        scope: { name: '', version: '' },
        events: [],
        links: [],
        droppedAttributesCount: 0,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
      };
      await ingestTraces(
        knex,
        sqlSpanStore(knex),
        app().server.prices,
        {
          applicationId: appId,
          organizationId: orgId,
          indexedAttributes: NO_INDEXED_ATTRIBUTES,
          readAt: Date.now() - 60_000,
          dailySpanQuota: null,
        },
        new ExportBody(Buffer.alloc(0), () => ({ resourceSpans: [{ resourceAttributes: {}, spans: [span] }] })),
        createLogger('silent'),
      );
      expect(await slotValues(appId, 'indexed_value_1')).to.deep.equal(['gemini-2.5-pro']);
    });

    it("never applies another application's indexed keys", async () => {
      const indexed = await ownerAndKey([MODEL]);
      const plain = await ownerAndKey();
      await exportSpans(app(), indexed.token, indexed.appId);
      await exportSpans(app(), plain.token, plain.appId);
      expect(await slotValues(plain.appId, 'indexed_value_1')).to.deep.equal(Array(6).fill(null));
      for (const [name, filter, wanted] of FILTERS) {
        const sql = await statementsDuring(app().server.knex, async () => {
          expect(await engine(plain.token, plain.appId, '/engine/query', filter), name).to.deep.equal(wanted);
          expect(await engine(plain.token, plain.appId, '/traces', filter, { search_child_spans: true }), name).to.deep.equal(wanted);
        });
        expect(
          sql.some((text) => text.includes('indexed_value_')),
          name,
        ).to.equal(false);
      }
      // The indexed application's key cannot even see the other one (another organization: 404).
      const response = await call(app().url, 'POST', '/engine/query', {
        query: WINDOW,
        headers: { authorization: `Bearer ${indexed.token}`, 'x-vendor-app-id': plain.appId },
        json: {},
      });
      expect(response.status).to.equal(404);
    });

    it("counts a span page's total in span_slot_values' lookup index, and answers span-grain analytics through it", async () => {
      const knex = app().server.knex;
      const { appId } = await ownerAndKey([MODEL]);
      const models = ['gemini-2.5-pro', 'gemini-2.5-flash', 'gpt-4o', 'claude', 'llama'];
      const rows = Array.from({ length: 2000 }, (_, index) =>
        spanRow({
          application_id: appId,
          trace_id: index.toString(16).padStart(32, '0'),
          span_id: (index + 1).toString(16).padStart(16, '0'),
          start_time_unix_nano: (T0 + BigInt(index) * 1_000_000_000n).toString(),
          span_attributes: JSON.stringify({ 'gen_ai.request.model': models[index % models.length] }),
          indexed_value_1: models[index % models.length] as string,
        }),
      );
      await storeSpans(knex, rows, {
        traceSlots: [
          { slot: 1, source: 'span_attributes', key: 'gen_ai.request.model', generation: (await state(appId)).slots[0]?.since ?? 0 },
        ],
      });
      if (app().database === 'mysql') await knex.raw('ANALYZE TABLE spans');
      else await knex.raw('ANALYZE');
      const filter = {
        kind: 'condition',
        field: MODEL,
        op: 'eq',
        value: 'gemini-2.5-pro',
        resolved: { kind: 'attribute', source: 'span_attributes', key: 'gen_ai.request.model' },
      } as const;
      const window = { applicationId: appId, startNs: T0, endNs: T0 + 3_600_000_000_000n };
      const match = { slot: 1, values: ['gemini-2.5-pro'] } as const;
      const indexedSlots = [{ slot: 1, source: 'span_attributes', key: 'gen_ai.request.model', generation: 0 }] as const;
      const planOf = async (query: Knex.QueryBuilder) => {
        const { sql, bindings } = query.toSQL().toNative();
        const plan =
          app().database === 'mysql'
            ? ((await knex.raw(`EXPLAIN ${sql}`, bindings)) as [Array<{ key: string | null }>])[0].map((row) => row.key)
            : ((await knex.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings)) as Array<{ detail: string }>).map((row) => row.detail);
        return plan.join(' | ');
      };
      const total = spanSlotRows(knex, window, match).count({ total: '*' });
      expect(await planOf(total)).to.include('span_slot_values_lookup');
      expect(Number(((await total) as Array<{ total: number | string }>)[0]?.total)).to.equal(400);
      // The spans it names, read by identity, are the spans the filter matches on the rows.
      const through = matchingSpans(knex, { ...window, filter, indexedSlots }, { throughSlotValues: true }).count({ total: '*' });
      expect(await planOf(through)).to.include('span_slot_values_lookup');
      expect(Number(((await through) as Array<{ total: number | string }>)[0]?.total)).to.equal(400);
      const onRows = matchingSpans(knex, { ...window, filter, indexedSlots }).count({ total: '*' });
      expect(Number(((await onRows) as Array<{ total: number | string }>)[0]?.total)).to.equal(400);
      expect(await slotValueTable(appId)).to.have.length(2000);
    });

    it('fills span_slot_values from the slot columns of the spans stored before its migration (run again here)', async () => {
      const knex = app().server.knex;
      const { appId, token } = await ownerAndKey([MODEL, ENVIRONMENT]);
      await exportSpans(app(), token, appId);
      const rows = await slotValueTable(appId);
      expect(rows).to.have.length(9);
      // Each filter's page and total (the total of a slot's values is counted in span_slot_values).
      const answers = async () => {
        const found: unknown[] = [];
        for (const [, filter] of FILTERS) {
          const response = await call(app().url, 'POST', '/engine/query', {
            query: { ...WINDOW, limit: '100' },
            headers: { authorization: `Bearer ${token}`, 'x-vendor-app-id': appId },
            json: { filter },
          });
          expect(response.status, response.text).to.equal(200);
          found.push([response.body.total, (response.body.data as Array<{ span_name: string }>).map((span) => span.span_name).sort()]);
        }
        return found;
      };
      const before = await answers();
      await knex.migrate.down({ ...migratorConfig, name: '20261204000100_span_slot_values' });
      expect(await knex.schema.hasTable('span_slot_values')).to.equal(false);
      await knex.migrate.latest(migratorConfig);
      expect(await slotValueTable(appId)).to.deep.equal(rows);
      expect(await answers()).to.deep.equal(before);
    });

    it('keeps the retention purge and the application delete working with slots in place', async () => {
      const { as, appId, token } = await ownerAndKey([MODEL]);
      await exportSpans(app(), token, appId);
      // T0 lies in 2026-11: with a retention of one day every span is past it.
      expectStatus(await as('PATCH', `/applications/${appId}`, { json: { retention_days: 1 } }), 200);
      await app().server.purger.runOnce();
      expect(await slotValues(appId, 'indexed_value_1')).to.deep.equal([]);
      expect(await slotValueTable(appId)).to.deep.equal([]);
      await exportSpans(app(), token, appId);
      expect(await slotValueTable(appId)).to.have.length.above(0);
      expectStatus(await as('DELETE', `/applications/${appId}`), 200);
      expectStatus(await as('GET', `/applications/${appId}`), 404);
      await app().server.purger.runOnce();
      expect(await slotValues(appId, 'indexed_value_1')).to.deep.equal([]);
      // A deleted application is no backfill target.
      expect(await app().server.backfiller.runOnce()).to.equal(0);
    });
  },
  {
    INDEXING_SETTLE_SECONDS: '0',
    INDEXING_BACKFILL_BATCH_SIZE: '2',
    INDEXING_BACKFILL_INTERVAL_SECONDS: '0',
    RETENTION_PURGE_INTERVAL_SECONDS: '0',
  },
);
