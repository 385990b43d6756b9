// The indexed attribute backfill with several instances and out-of-order commits.
// - Two backfillers (two instances: their own connection pools on MariaDB) running the same pass
//   at once: no failure, every span filled, the slot ready, each trace's value filed once.
// - MariaDB with Galera's auto_increment offsets emulated (SET SESSION auto_increment_increment=3,
//   auto_increment_offset=N): an ingestion holding the keys from before a change inserts a span
//   with a lower seq and commits only after spans with higher seqs from another "node" did, while
//   the backfill runs. On one server InnoDB makes the backfill wait for the open insert, and the
//   late span is filled; across Galera nodes nothing waits, which is why the span writer commits
//   nothing with keys past their age (30 s): such a transaction, held past it, commits nothing.
// SQLite runs one writer at a time, so its commits follow seq: only the first case applies.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { createLogger } from '../../src/logger.js';
import { SlotBackfiller } from '../../src/jobs/slot-backfiller.js';
import { knexSettings, openDatabase } from '../../src/storage/database.js';
import type { Mysql2Connection } from '../../src/storage/sql/mysql-transaction.js';
import { parseIndexedAttributes } from '../../src/storage/accounts/indexed-attributes.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { StaleSlotKeysError, storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { zeroCounts, type UsageDelta } from '../../src/storage/usage/usage-counts.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { callerFor, createApiKey, createOrganization, dashboardUser, expectStatus, keyToken, type Caller } from '../support/management.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const MODEL = 'span_attributes.gen_ai.request.model';
const T0 = 1_795_355_100_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(T0 - 60_000_000_000n), end_time: nanosToRfc3339(T0 + 3_600_000_000_000n) };
const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');
const modelOf = (index: number) => `model-${index % 4}`;

/** An OTLP/JSON request of spans `from`..`to` - 1 (from 1: trace id 0 is invalid), each its own trace, with a model attribute. */
function otlpBody(from: number, to: number) {
  const spans = [];
  for (let index = from; index < to; index += 1) {
    spans.push({
      traceId: hex(index, 32),
      spanId: hex(index + 1, 16),
      name: `call ${index}`,
      kind: 3,
      startTimeUnixNano: (T0 + BigInt(index) * 1_000_000n).toString(),
      endTimeUnixNano: (T0 + BigInt(index) * 1_000_000n + 5_000_000n).toString(),
      attributes: [{ key: 'gen_ai.request.model', value: { stringValue: modelOf(index) } }],
    });
  }
  return { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] };
}

/** A stored row of span `index` as an ingestion with no indexed keys maps it (no slot value). */
function rowWithoutSlots(applicationId: string, index: number): SpanRow {
  return spanRow({
    application_id: applicationId,
    trace_id: hex(index, 32),
    span_id: hex(index + 1, 16),
    span_name: `call ${index}`,
    start_time_unix_nano: (T0 + BigInt(index) * 1_000_000n).toString(),
    span_attributes: JSON.stringify({ 'gen_ai.request.model': modelOf(index) }),
  });
}

onEachDatabase(
  'indexed attribute backfill with several instances',
  (app) => {
    const knex = () => app().server.knex;

    async function ownerAndKey(): Promise<{ as: Caller; appId: string; token: string; apiKey: string }> {
      const as = callerFor(app(), (await dashboardUser(app())).token);
      const orgId = await createOrganization(as);
      const created = await as('POST', '/applications', { json: { organization_id: orgId, name: 'Gen AI', region: 'EU' } });
      expectStatus(created, 201);
      const key = await createApiKey(as, created.body.id, ['read:traces', 'write:traces']);
      return { as, appId: created.body.id, token: await keyToken(app(), key.apiKey, key.secret), apiKey: key.apiKey };
    }

    async function exportSpans(token: string, appId: string, from: number, to: number): Promise<void> {
      const response = await call(app().url, 'POST', '/v1/traces', {
        headers: { authorization: `Bearer ${token}`, 'x-vendor-app-id': appId },
        json: otlpBody(from, to),
      });
      expect(response.status, response.text).to.equal(200);
    }

    async function slotState(appId: string) {
      const row = (await knex()('applications').where({ id: appId }).first('indexed_attributes_state')) as {
        indexed_attributes_state: string | null;
      };
      return parseIndexedAttributes(row.indexed_attributes_state).slots[0];
    }

    /** Spans `from`..`to` - 1 must hold their model in the slot and in span_slot_values, and each trace's value be filed once under the slot's generation. */
    async function expectFilled(appId: string, from: number, to: number): Promise<void> {
      const indices = Array.from({ length: to - from }, (_, offset) => from + offset);
      const rows = (await knex()('spans').where({ application_id: appId }).select('span_name', 'indexed_value_1')) as Array<{
        span_name: string;
        indexed_value_1: string | null;
      }>;
      expect(rows).to.have.length(indices.length);
      for (const row of rows) expect(row.indexed_value_1, row.span_name).to.equal(modelOf(Number(row.span_name.split(' ')[1])));
      const generation = (await slotState(appId))?.since;
      const filed = (await knex()('trace_slot_values')
        .where({ application_id: appId, slot: 1, generation })
        .select('trace_id', 'value')) as Array<{ trace_id: string; value: string }>;
      const expected = indices.map((index) => `${hex(index, 32)}=${modelOf(index)}`).sort();
      expect(filed.map((row) => `${row.trace_id}=${row.value}`).sort()).to.deep.equal(expected);
      // One row of span_slot_values per span, as its column holds it.
      const spanValues = (await knex()('span_slot_values').where({ application_id: appId, slot: 1 }).select('trace_id', 'value')) as Array<{
        trace_id: string;
        value: string | Buffer;
      }>;
      expect(spanValues.map((row) => `${row.trace_id}=${String(row.value)}`).sort()).to.deep.equal(expected);
      // Searched through the slot, every span of one model is found.
      const found = await call(app().url, 'POST', '/traces', {
        query: { ...WINDOW, limit: '100', search_child_spans: 'true' },
        headers: { authorization: `Bearer ${await tokenFor(appId)}`, 'x-vendor-app-id': appId },
        json: { filter: { field: MODEL, op: 'eq', value: 'model-1' } },
      });
      expect(found.status, found.text).to.equal(200);
      expect(found.body.data).to.have.length(indices.filter((index) => index % 4 === 1).length);
    }

    /** Each application's engine token, for the searches of expectFilled. */
    const tokens = new Map<string, string>();
    const tokenFor = async (appId: string) => tokens.get(appId) as string;

    it('two backfillers running the same pass at once fill every span once and leave the slot ready', async () => {
      const { as, appId, token } = await ownerAndKey();
      tokens.set(appId, token);
      await exportSpans(token, appId, 1, 42);
      expectStatus(await as('PATCH', `/applications/${appId}`, { json: { indexed_attributes: [MODEL] } }), 200);
      const { config, database } = app();
      // Another instance's pool on MariaDB; on SQLite one connection (see test/jobs/purger.test.ts).
      const secondPool = database === 'sqlite' ? knex() : openDatabase(config.databaseUrl, config.dataDir);
      const second = new SlotBackfiller({ knex: secondPool, logger: createLogger('silent'), config: config.indexing });
      try {
        const [first, other] = await Promise.all([app().server.backfiller.runOnce(), second.runOnce()]);
        // 41 spans in batches of 2: 21 batches between them, each committed by one instance.
        expect(first + other).to.equal(21);
        expect(await slotState(appId)).to.include({ ready: true });
        await expectFilled(appId, 1, 42);
      } finally {
        await second.stop();
        if (secondPool !== knex()) await secondPool.destroy();
      }
    });

    describe('a span that commits with a lower seq after higher ones (Galera offsets emulated)', () => {
      let nodeOne: Knex;
      let nodeTwo: Knex;
      let holder: Knex;

      before(function () {
        if (app().database !== 'mysql') this.skip();
        const { config } = app();
        // A pool whose every connection hands out seqs as a Galera node with this offset does.
        const node = (offset: number) =>
          knexFactory({
            ...knexSettings(config.databaseUrl, config.dataDir),
            pool: {
              min: 0,
              max: 2,
              afterCreate(connection: Mysql2Connection, done: (error: Error | null, connection: unknown) => void) {
                connection.query(`SET SESSION auto_increment_increment = 3, auto_increment_offset = ${offset}`, [], (error) =>
                  done(error, connection),
                );
              },
            },
          });
        nodeOne = node(1);
        nodeTwo = node(2);
        holder = openDatabase(config.databaseUrl, config.dataDir);
      });

      after(async () => {
        await Promise.all([nodeOne, nodeTwo, holder].filter(Boolean).map((pool) => pool.destroy()));
      });

      /** Runs `work` while another transaction holds the application's usage row for `holdMs`: a writer that upserts it waits, its spans inserted. */
      async function holdingUsageRow<T>(usage: UsageDelta, holdMs: number, work: () => Promise<T>): Promise<T> {
        await storeSpans(knex(), [], { usage });
        const trx = await holder.transaction();
        await trx('usage_hourly')
          .where({ application_id: usage.application_id, api_key: usage.api_key, hour_start: usage.hour_start })
          .forUpdate()
          .select('requests');
        const release = setTimeout(() => void trx.commit(), holdMs);
        try {
          return await work();
        } finally {
          clearTimeout(release);
          if (!trx.isCompleted()) await trx.commit();
        }
      }

      it('the backfill waits for the open insert on one server, and the late span is filled', async () => {
        const { as, appId, token, apiKey } = await ownerAndKey();
        tokens.set(appId, token);
        await exportSpans(token, appId, 1, 4);
        const usage: UsageDelta = { ...zeroCounts(), application_id: appId, api_key: apiKey, hour_start: 0, requests: 1 };
        // Node 1's ingestion read the keys before the change (none) and inserts span 4 now, then
        // waits for the held usage row.
        const late = [rowWithoutSlots(appId, 4)];
        const result = await holdingUsageRow(usage, 1500, async () => {
          const writing = storeSpans(nodeOne, late, { usage, slotKeysValidUntil: Date.now() + 30_000 });
          await waitForInserted(holder, appId, 4);
          // The change, then another node (the service) stores spans 5..8 with the new key and
          // commits: higher seqs, committed first. The backfill starts meanwhile.
          expectStatus(await as('PATCH', `/applications/${appId}`, { json: { indexed_attributes: [MODEL] } }), 200);
          await exportSpans(token, appId, 5, 9);
          const backfilling = app().server.backfiller.runOnce();
          await writing;
          return backfilling;
        });
        expect(result).to.be.greaterThan(0);
        const seqs = (await knex()('spans').where({ application_id: appId }).orderBy('seq').pluck('span_name')) as string[];
        expect(seqs.indexOf('call 4'), 'span 4 has a lower seq than the spans committed before it').to.be.lessThan(seqs.indexOf('call 5'));
        expect(await slotState(appId)).to.include({ ready: true });
        await expectFilled(appId, 1, 9);
      });

      it("a writer held past its keys' age commits nothing: it would land behind a Galera backfill", async () => {
        const { appId, apiKey } = await ownerAndKey();
        const usage: UsageDelta = { ...zeroCounts(), application_id: appId, api_key: apiKey, hour_start: 0, requests: 1 };
        let refused: unknown;
        await holdingUsageRow(usage, 800, () =>
          storeSpans(nodeTwo, [rowWithoutSlots(appId, 1)], { usage, slotKeysValidUntil: Date.now() + 300 }).catch(
            (error: unknown) => (refused = error),
          ),
        );
        expect(refused).to.be.instanceOf(StaleSlotKeysError);
        const [{ count }] = (await knex()('spans').where({ application_id: appId }).count({ count: '*' })) as Array<{
          count: number | string;
        }>;
        expect(Number(count)).to.equal(0);
        const [row] = (await knex()('usage_hourly').where({ application_id: appId }).select('requests')) as Array<{
          requests: number | string;
        }>;
        expect(Number(row?.requests)).to.equal(1);
      });
    });
  },
  { INDEXING_SETTLE_SECONDS: '0', INDEXING_BACKFILL_BATCH_SIZE: '2', INDEXING_BACKFILL_INTERVAL_SECONDS: '0' },
);

/** Resolves once the application has `count` spans inserted, committed or not (a dirty read). */
async function waitForInserted(knex: Knex, applicationId: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const seen = await knex.transaction(
      async (trx) => {
        const [row] = (await trx('spans').where({ application_id: applicationId }).count({ count: '*' })) as Array<{
          count: number | string;
        }>;
        return Number(row?.count);
      },
      { isolationLevel: 'read uncommitted' },
    );
    if (seen >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the held writer inserted nothing');
}
