// Any-span trace searches on an indexed key (src/storage/spans/slots/trace-slot-values.ts), on every
// database: an application that indexes the model key and one that does not receive the same
// random traces over OTLP/HTTP, split across requests in random order (roots arriving last,
// values held by several spans, `x` beside `x `, rootless traces, spans outside the window);
// every any-span search, cursor walk, deep page and metrics call answers the same for both,
// before and after a retention purge of part of the traces and after a slot backfill. Further:
// the table is what answers (its rows taken away, the trace is no longer found), its rows are
// filed under the slot's current key only, and its migration files the spans stored before it.
import { expect } from 'chai';
import fc from 'fast-check';
import { migratorConfig } from '../../../../src/storage/migrations/index.js';
import { purgeBatch } from '../../../../src/storage/spans/writes/span-purge.js';
import { storeSpans } from '../../../../src/storage/spans/writes/span-writer.js';
import { spanRow } from '../../../support/span-rows.js';
import { parseIndexedAttributes } from '../../../../src/storage/accounts/indexed-attributes.js';
import { call } from '../../../support/contract.js';
import { nanosToRfc3339 } from '../../../support/engine-helpers.js';
import {
  callerFor,
  createApiKey,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  type Caller,
} from '../../../support/management.js';
import { onEachDatabase } from '../../../support/test-server.js';

const MODEL = 'span_attributes.gen_ai.request.model';
const MINUTE = 60_000_000_000n;
const T0 = 1_795_355_100_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(T0), end_time: nanosToRfc3339(T0 + 30n * MINUTE) };
const VALUES = ['a', 'a ', 'b', 'c'] as const;

interface GeneratedSpan {
  trace: number;
  span: number;
  parent: number | null;
  minute: number;
  model: (typeof VALUES)[number] | 'number' | null;
  part: number;
}

/** Traces of 1-4 spans: a root (or none), children, starts from 5 minutes before the window to 5 after. */
const traceArbitrary = (trace: number) =>
  fc
    .record({
      rooted: fc.boolean(),
      spans: fc.array(
        fc.record({
          minute: fc.integer({ min: -5, max: 34 }),
          model: fc.constantFrom(...VALUES, 'number', null),
          part: fc.integer({ min: 0, max: 2 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    })
    .map(({ rooted, spans }): GeneratedSpan[] =>
      spans.map((span, index) => ({ ...span, trace, span: index + 1, parent: rooted && index === 0 ? null : 99 })),
    );

const dataArbitrary = fc.tuple(...Array.from({ length: 10 }, (_, trace) => traceArbitrary(trace + 1))).map((traces) => traces.flat());

function otlpSpan(span: GeneratedSpan) {
  const start = T0 + BigInt(span.minute) * MINUTE + BigInt(span.span) * 1_000_000n;
  const attributes =
    span.model === null
      ? []
      : [{ key: 'gen_ai.request.model', value: span.model === 'number' ? { intValue: '5' } : { stringValue: span.model } }];
  return {
    traceId: span.trace.toString(16).padStart(32, '0'),
    spanId: span.span.toString(16).padStart(16, '0'),
    ...(span.parent !== null && { parentSpanId: span.parent.toString(16).padStart(16, '0') }),
    name: `t${span.trace}s${span.span}`,
    kind: 1,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + BigInt(span.span) * 7_000_000n).toString(),
    attributes: [...attributes, { key: 'billing.cost', value: { doubleValue: span.span / 10 } }],
  };
}

const FILTERS = [
  { field: MODEL, op: 'eq', value: 'a' },
  { field: MODEL, op: 'eq', value: 'a ' },
  { field: MODEL, op: 'in', value: ['a', 'b'] },
  { field: MODEL, op: 'in', value: ['a ', 'c', 'zz'] },
  { field: MODEL, op: 'eq', value: 'zz' },
];

/** Every number to 12 significant digits (floating sums taken in another order differ in the last bits). */
function roundedFigures(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  if (Array.isArray(value)) return value.map(roundedFigures);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, roundedFigures(entry)]));
  return value;
}

interface Target {
  appId: string;
  token: string;
}

onEachDatabase(
  'any-span searches on an indexed key',
  (app) => {
    async function owner(): Promise<Caller> {
      return callerFor(app(), (await dashboardUser(app())).token);
    }

    async function application(as: Caller, orgId: string, paths?: string[]): Promise<Target> {
      const created = await as('POST', '/applications', {
        json: { organization_id: orgId, name: 'Gen AI', region: 'EU', ...(paths && { indexed_attributes: paths }) },
      });
      expectStatus(created, 201);
      const key = await createApiKey(as, created.body.id, ['read:traces', 'write:traces']);
      return { appId: created.body.id, token: await keyToken(app(), key.apiKey, key.secret) };
    }

    async function send(target: Target, spans: GeneratedSpan[]): Promise<void> {
      for (const part of [2, 0, 1]) {
        const chosen = spans.filter((span) => span.part === part);
        if (chosen.length === 0) continue;
        const body = {
          resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans: chosen.map(otlpSpan) }] }],
        };
        const response = await call(app().url, 'POST', '/v1/traces', {
          headers: { authorization: `Bearer ${target.token}`, 'x-vendor-app-id': target.appId },
          json: body,
        });
        expect(response.status, response.text).to.equal(200);
      }
    }

    async function read(target: Target, path: '/traces' | '/engine/metrics', filter: unknown, query: Record<string, string> = {}) {
      const response = await call(app().url, 'POST', path, {
        query: { ...WINDOW, ...(path === '/traces' && { search_child_spans: 'true' }), ...query },
        headers: { authorization: `Bearer ${target.token}`, 'x-vendor-app-id': target.appId },
        json: { filter },
      });
      expect(response.status, response.text).to.equal(200);
      return response.body as { data?: unknown[]; pagination?: { total: number }; next_cursor?: string | null };
    }

    /** Every page of a cursor walk, two traces a page. */
    async function walk(target: Target, filter: unknown): Promise<unknown[]> {
      const seen: unknown[] = [];
      let cursor: string | null | undefined;
      for (let pages = 0; pages < 20; pages += 1) {
        const body = await read(target, '/traces', filter, { limit: '2', ...(cursor && { cursor }) });
        seen.push(...(body.data ?? []));
        cursor = body.next_cursor;
        if (!cursor) return seen;
      }
      throw new Error('cursor walk did not end');
    }

    /** What both applications answer, for every filter: list and total, cursor walk, page 2, metrics. */
    async function answers(target: Target): Promise<unknown[]> {
      const all: unknown[] = [];
      for (const filter of FILTERS) {
        all.push(await read(target, '/traces', filter, { limit: '100' }));
        all.push(await walk(target, filter));
        // A cursor is bound to its application: whether one follows is what both must agree on.
        const { next_cursor: next, ...page } = await read(target, '/traces', filter, { limit: '3', page: '2' });
        all.push({ ...page, more: next !== null });
        // Means and spreads are sums taken in the order the plan reads the traces: equal within rounding.
        all.push(roundedFigures(await read(target, '/engine/metrics', filter)));
      }
      return all;
    }

    async function filedRows(appId: string): Promise<Array<{ slot: number; generation: number | string; value: string }>> {
      const rows = (await app()
        .server.knex('trace_slot_values')
        .where({ application_id: appId })
        .select('slot', 'generation', 'value')) as Array<{ slot: number; generation: number | string; value: string | Buffer }>;
      return rows.map((row) => ({ ...row, value: Buffer.isBuffer(row.value) ? row.value.toString('utf8') : row.value }));
    }

    it('answers every search, walk, page and metrics call as the same spans without the index, before and after a purge', async function () {
      // Room for fast-check to shrink a counterexample, so that a failure reads as one.
      this.timeout(300_000);
      const as = await owner();
      const orgId = await createOrganization(as);
      await fc.assert(
        fc.asyncProperty(dataArbitrary, async (spans) => {
          const indexed = await application(as, orgId, [MODEL]);
          const plain = await application(as, orgId);
          await send(indexed, spans);
          await send(plain, spans);
          expect((await filedRows(indexed.appId)).length).to.be.greaterThan(0);
          const [got, wanted] = [await answers(indexed), await answers(plain)];
          got.forEach((answer, index) =>
            expect(answer, `answer ${index} (filter ${Math.floor(index / 4)}, read ${index % 4})`).to.deep.equal(wanted[index]),
          );
          // Spans that started before minute 10 go: traces lose values, roots and times.
          for (const target of [indexed, plain]) {
            while ((await purgeBatch(app().server.knex, { applicationId: target.appId, beforeNs: T0 + 10n * MINUTE, limit: 3 })).full);
          }
          expect(await answers(indexed)).to.deep.equal(await answers(plain));
        }),
        {
          numRuns: Number(process.env.FC_RUNS ?? 6),
          ...(process.env.FC_SEED && { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true }),
        },
      );
    });

    it('reads the filed values: without a trace’s rows, the indexed search no longer finds it', async () => {
      const as = await owner();
      const orgId = await createOrganization(as);
      const indexed = await application(as, orgId, [MODEL]);
      const spans: GeneratedSpan[] = [1, 2].map((trace) => ({ trace, span: 1, parent: null, minute: 3, model: 'a', part: 0 }));
      await send(indexed, spans);
      const filter = FILTERS[0];
      const found = (body: { data?: unknown[] }) => (body.data as Array<{ trace_id: string }>).map((row) => row.trace_id).sort();
      expect(found(await read(indexed, '/traces', filter))).to.have.length(2);
      await app()
        .server.knex('trace_slot_values')
        .where({ application_id: indexed.appId, trace_id: '1'.padStart(32, '0') })
        .del();
      expect(found(await read(indexed, '/traces', filter))).to.deep.equal(['2'.padStart(32, '0')]);
      expect((await read(indexed, '/traces', filter)).pagination?.total).to.equal(1);
      // A filter the table does not answer (two conditions) still finds both through the spans.
      expect(found(await read(indexed, '/traces', { and: [filter, { field: 'span_name', op: 'exists' }] }))).to.have.length(2);
    });

    it('refuses to store slot values that are not filed per trace (no generation given for their slot)', async () => {
      const row = spanRow({ application_id: 'app_unfiled', trace_id: 'f'.repeat(32), span_id: 'f'.repeat(16), indexed_value_2: 'a' });
      let refused: unknown;
      await storeSpans(app().server.knex, [row], { traceSlots: [{ slot: 1, source: 'span_attributes', key: 'k', generation: 0 }] }).catch(
        (error: unknown) => (refused = error),
      );
      expect(String(refused)).to.match(/slot 2/);
      expect(await app().server.knex('spans').where({ application_id: 'app_unfiled' }).count({ n: '*' }).first()).to.satisfy(
        (row: { n: number | string }) => Number(row.n) === 0,
      );
    });

    it('files the values of spans stored before its migration (run again here on stored spans)', async () => {
      const as = await owner();
      const orgId = await createOrganization(as);
      const indexed = await application(as, orgId, [MODEL]);
      const plain = await application(as, orgId);
      const spans = fc.sample(dataArbitrary, { numRuns: 1, seed: 11 })[0] as GeneratedSpan[];
      await send(indexed, spans);
      await send(plain, spans);
      const filed = await filedRows(indexed.appId);
      const knex = app().server.knex;
      // That migration alone, whatever migrations came after it.
      await knex.migrate.down({ ...migratorConfig, name: '20261124000100_trace_slot_values' });
      expect(await knex.schema.hasTable('trace_slot_values')).to.equal(false);
      await knex.migrate.latest(migratorConfig);
      expect(await filedRows(indexed.appId)).to.have.deep.members(filed);
      expect(await answers(indexed)).to.deep.equal(await answers(plain));
    });

    it('files values under the slot’s current key: a backfill after a PATCH files the stored spans, a new key starts empty', async () => {
      const as = await owner();
      const orgId = await createOrganization(as);
      const later = await application(as, orgId);
      const plain = await application(as, orgId);
      const spans = fc.sample(dataArbitrary, { numRuns: 1, seed: 7 })[0] as GeneratedSpan[];
      await send(later, spans);
      await send(plain, spans);
      expect(await filedRows(later.appId)).to.deep.equal([]);
      expectStatus(await as('PATCH', `/applications/${later.appId}`, { json: { indexed_attributes: [MODEL] } }), 200);
      await app().server.backfiller.runOnce();
      const row = (await app().server.knex('applications').where({ id: later.appId }).first('indexed_attributes_state')) as {
        indexed_attributes_state: string;
      };
      const slot = parseIndexedAttributes(row.indexed_attributes_state).slots[0];
      expect(slot).to.include({ ready: true });
      const filed = await filedRows(later.appId);
      expect(filed.length).to.be.greaterThan(0);
      expect(filed.every((entry) => entry.slot === 1 && Number(entry.generation) === slot?.since)).to.equal(true);
      expect(await answers(later)).to.deep.equal(await answers(plain));

      // Another key in the same slot: a new generation, whose rows come from the new key only.
      expectStatus(await as('PATCH', `/applications/${later.appId}`, { json: { indexed_attributes: ['span_attributes.none'] } }), 200);
      await app().server.backfiller.runOnce();
      const replaced = parseIndexedAttributes(
        (
          (await app().server.knex('applications').where({ id: later.appId }).first('indexed_attributes_state')) as {
            indexed_attributes_state: string;
          }
        ).indexed_attributes_state,
      ).slots[0];
      expect(replaced).to.include({ ready: true });
      expect((await filedRows(later.appId)).filter((entry) => Number(entry.generation) === replaced?.since)).to.deep.equal([]);
      const none = { field: 'span_attributes.none', op: 'eq', value: 'a' };
      expect((await read(later, '/traces', none)).pagination?.total).to.equal(0);
    });
  },
  {
    INDEXING_SETTLE_SECONDS: '0',
    INDEXING_BACKFILL_BATCH_SIZE: '5',
    INDEXING_BACKFILL_INTERVAL_SECONDS: '0',
    RETENTION_PURGE_INTERVAL_SECONDS: '0',
  },
);
