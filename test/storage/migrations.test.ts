// Migrations on data that earlier releases stored: each later migration must carry the rows
// forward so that the code of this release reads and extends them correctly.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { knexSettings } from '../../src/storage/database.js';
import { migratorConfig, migrateToLatest } from '../../src/storage/migrations/index.js';
import { findSpans } from '../../src/storage/spans/reads/span-pages.js';
import { SLOT_COLUMNS } from '../../src/storage/spans/indexed-slots.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { findActiveApplication } from '../../src/storage/accounts/applications.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { testDatabases } from '../support/databases.js';
import { spanRow } from '../support/span-rows.js';
import { derivedRows } from '../support/derived-rows.js';

/** The columns 20261123000100_span_status_events added to spans. */
const STATUS_EVENT_COLUMNS = [
  'status_code',
  'status_message',
  'scope_name',
  'scope_version',
  'events',
  'links',
  'dropped_attributes_count',
  'dropped_events_count',
  'dropped_links_count',
] as const;

/** The columns 20261205000100_span_tokens added to spans. */
const TOKEN_COLUMNS = [
  'model',
  'provider',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'total_tokens',
] as const satisfies ReadonlyArray<keyof SpanRow>;

/** The columns 20261206000100_computed_cost added to spans. */
const PRICING_COLUMNS = ['cost_source', 'price_model', 'price_provider', 'price_book', 'unpriced_reason'] as const satisfies ReadonlyArray<
  keyof SpanRow
>;

/** The columns 20261207000100_price_entries added to spans. */
const PRICE_ENTRY_COLUMNS = ['price_entry_id', 'price_currency'] as const satisfies ReadonlyArray<keyof SpanRow>;

/** A span row as releases before 20261207000100_price_entries stored it. */
function beforePriceEntries(row: SpanRow): Omit<SpanRow, (typeof PRICE_ENTRY_COLUMNS)[number]> {
  const old: Record<string, unknown> = { ...row };
  for (const column of PRICE_ENTRY_COLUMNS) delete old[column];
  return old as Omit<SpanRow, (typeof PRICE_ENTRY_COLUMNS)[number]>;
}

/** A span row as releases before 20261206000100_computed_cost stored it. */
function beforePricing(row: SpanRow): Omit<SpanRow, (typeof PRICING_COLUMNS)[number] | (typeof PRICE_ENTRY_COLUMNS)[number]> {
  const old: Record<string, unknown> = beforePriceEntries(row);
  for (const column of PRICING_COLUMNS) delete old[column];
  return old as Omit<SpanRow, (typeof PRICING_COLUMNS)[number] | (typeof PRICE_ENTRY_COLUMNS)[number]>;
}

/** A span row as releases before 20261205000100_span_tokens stored it. */
function beforeTokens(
  row: SpanRow,
): Omit<SpanRow, (typeof TOKEN_COLUMNS)[number] | (typeof PRICING_COLUMNS)[number] | (typeof PRICE_ENTRY_COLUMNS)[number]> {
  const old: Record<string, unknown> = beforePricing(row);
  for (const column of TOKEN_COLUMNS) delete old[column];
  return old as Omit<SpanRow, (typeof TOKEN_COLUMNS)[number] | (typeof PRICING_COLUMNS)[number] | (typeof PRICE_ENTRY_COLUMNS)[number]>;
}

/** A span row as releases before 20261123000100_span_status_events stored it. */
function beforeStatus(row: SpanRow): Omit<SpanRow, (typeof STATUS_EVENT_COLUMNS)[number]> {
  const old: Record<string, unknown> = beforeTokens(row);
  for (const column of STATUS_EVENT_COLUMNS) delete old[column];
  // The indexed attribute slots came later still (20261123000300).
  for (const column of SLOT_COLUMNS) delete old[column];
  return old as Omit<SpanRow, (typeof STATUS_EVENT_COLUMNS)[number]>;
}

for (const database of testDatabases()) {
  describe(`migrations [${database.name}]`, () => {
    let knex: Knex;
    let drop: () => Promise<void>;
    let dataDir: string;

    beforeEach(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-migrations-'));
      const created = await database.create(dataDir);
      drop = created.drop;
      knex = knexFactory(knexSettings(created.url, dataDir));
    });

    afterEach(async () => {
      await knex.destroy();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    /** Applies the migrations up to and including `last`. */
    async function migrateThrough(last: string): Promise<void> {
      for (;;) {
        const [done] = (await knex.migrate.list(migratorConfig)) as [Array<string | { name: string }>, unknown];
        if (done.some((entry) => (typeof entry === 'string' ? entry : entry.name) === last)) return;
        await knex.migrate.up(migratorConfig);
      }
    }

    /** The first page of application app_old's spans from just before `old` starts on. */
    function spansFrom(old: { start_time_unix_nano: string }) {
      const startNs = BigInt(old.start_time_unix_nano) - 1n;
      return findSpans(knex, {
        applicationId: 'app_old',
        startNs,
        endNs: startNs + 10n ** 12n,
        filter: null,
        indexedSlots: [],
        page: 1,
        limit: 10,
      });
    }

    it('gives the trace summaries stored before root_key existed their root keys', async () => {
      await migrateThrough('20261122000100_spans');
      const parentless = spanRow({ trace_id: '1'.repeat(32), span_id: 'a'.repeat(16), start_time_unix_nano: '1763800000000000500' });
      const server = spanRow({
        trace_id: '2'.repeat(32),
        span_id: 'b'.repeat(16),
        parent_span_id: 'f'.repeat(16),
        span_kind: 'SPAN_KIND_SERVER',
        start_time_unix_nano: '1763800000000000700',
      });
      const orphan = spanRow({ trace_id: '3'.repeat(32), span_id: 'c'.repeat(16), parent_span_id: 'f'.repeat(16) });
      await knex('spans').insert([parentless, server, orphan].map(beforeStatus));
      const stored = (row: typeof parentless, root: boolean) => ({
        application_id: row.application_id,
        trace_id: row.trace_id,
        root_span_id: root ? row.span_id : null,
        root_start_time_unix_nano: root ? row.start_time_unix_nano : null,
        span_name: root ? row.span_name : null,
        min_start_time_unix_nano: row.start_time_unix_nano,
        max_end_time_unix_nano: row.end_time_unix_nano,
        duration_ms: row.duration_ms,
        spans_count: 1,
        total_cost: 0,
      });
      await knex('traces').insert([stored(parentless, true), stored(server, true), stored(orphan, false)]);

      await migrateToLatest(knex);

      const keys = await knex('traces').orderBy('trace_id').pluck('root_key');
      expect(keys).to.deep.equal([
        `0${parentless.start_time_unix_nano}${parentless.span_id}`,
        `1${server.start_time_unix_nano}${server.span_id}`,
        null,
      ]);

      // And the summaries go on merging new spans correctly: an earlier SERVER span does not
      // displace a parentless root, but a parentless span displaces a SERVER root.
      await storeSpans(knex, [
        spanRow({
          trace_id: parentless.trace_id,
          span_id: 'd'.repeat(16),
          parent_span_id: 'f'.repeat(16),
          span_kind: 'SPAN_KIND_SERVER',
          start_time_unix_nano: '1763800000000000100',
        }),
        spanRow({ trace_id: server.trace_id, span_id: 'e'.repeat(16), start_time_unix_nano: '1763800000000000900' }),
      ]);
      const roots = await knex('traces').orderBy('trace_id').select('root_span_id', 'spans_count');
      expect(roots).to.deep.equal([
        { root_span_id: parentless.span_id, spans_count: 2 },
        { root_span_id: 'e'.repeat(16), spans_count: 2 },
        { root_span_id: null, spans_count: 1 },
      ]);
    });

    it('reads spans stored before status, events and scope were kept as null, and counts their traces 0 errors', async () => {
      await migrateThrough('20261122000200_trace_summary_merge');
      const traceId = '4'.repeat(32);
      const old = spanRow({ application_id: 'app_old', trace_id: traceId, span_id: 'a'.repeat(16) });
      await storeSpansBefore(old);

      await migrateToLatest(knex);

      const read = await spansFrom(old);
      expect(read.items).to.have.length(1);
      for (const column of STATUS_EVENT_COLUMNS) expect(read.items[0]?.[column], column).to.equal(null);
      expect(await knex('traces').where({ application_id: 'app_old' }).pluck('error_count')).to.deep.equal([0]);

      // New spans of the same trace add to the count, old ones stay without a status.
      await storeSpans(knex, [
        spanRow({
          application_id: 'app_old',
          trace_id: traceId,
          span_id: 'b'.repeat(16),
          parent_span_id: old.span_id,
          status_code: 'STATUS_CODE_ERROR',
          status_message: 'boom',
        }),
      ]);
      expect(await knex('traces').where({ application_id: 'app_old' }).first('spans_count', 'error_count')).to.deep.equal({
        spans_count: 2,
        error_count: 1,
      });
      const statuses = await knex('spans').where({ application_id: 'app_old' }).orderBy('span_id').pluck('status_code');
      expect(statuses).to.deep.equal([null, 'STATUS_CODE_ERROR']);
    });

    /** Stores one span and its summary as the release before 20261123000100 did (same columns, same summary). */
    async function storeSpansBefore(row: SpanRow): Promise<void> {
      await knex('spans').insert(beforeStatus(row));
      await knex('traces').insert({
        application_id: row.application_id,
        trace_id: row.trace_id,
        root_span_id: row.span_id,
        root_start_time_unix_nano: row.start_time_unix_nano,
        span_name: row.span_name,
        service_name: row.service_name,
        root_key: `0${row.start_time_unix_nano}${row.span_id}`,
        min_start_time_unix_nano: row.start_time_unix_nano,
        max_end_time_unix_nano: row.end_time_unix_nano,
        duration_ms: row.duration_ms,
        spans_count: 1,
        total_cost: 0,
      });
    }

    it('reads spans stored before the model and token columns existed as null, and stores them for new spans', async () => {
      await migrateThrough('20261204000100_span_slot_values');
      const old = spanRow({ application_id: 'app_old', trace_id: '5'.repeat(32), span_id: 'a'.repeat(16) });
      await knex('spans').insert(beforeTokens(old));

      await migrateToLatest(knex);

      const fresh = spanRow({
        application_id: 'app_old',
        trace_id: '5'.repeat(32),
        span_id: 'b'.repeat(16),
        model: 'gpt-4o',
        provider: 'openai',
        input_tokens: 1_000_000_000_000,
        output_tokens: 0,
        cache_read_tokens: 7,
        cache_creation_tokens: null,
        total_tokens: 1_000_000_000_000,
      });
      await storeSpans(knex, [fresh]);
      const read = await spansFrom(old);
      const columns = (span: object) => Object.fromEntries(TOKEN_COLUMNS.map((column) => [column, (span as SpanRow)[column]]));
      const byId = new Map(read.items.map((span) => [span.span_id, columns(span)]));
      expect(byId.get(old.span_id)).to.deep.equal(Object.fromEntries(TOKEN_COLUMNS.map((column) => [column, null])));
      expect(byId.get(fresh.span_id)).to.deep.equal(columns(fresh));
    });

    it('reads spans stored before the cost provenance columns existed as null, their cost kept, and stores them for new spans', async () => {
      await migrateThrough('20261205000100_span_tokens');
      const old = spanRow({ application_id: 'app_old', trace_id: '6'.repeat(32), span_id: 'a'.repeat(16), cost: 0.25 });
      await knex('spans').insert(beforePricing(old));

      await migrateToLatest(knex);

      const fresh = spanRow({
        application_id: 'app_old',
        trace_id: '6'.repeat(32),
        span_id: 'b'.repeat(16),
        cost: 0.0014688,
        cost_source: 'computed',
        price_model: 'gpt-4o-mini',
        price_provider: 'openai',
        price_book: 'genai-prices 0.1.8',
      });
      await storeSpans(knex, [fresh]);
      const read = await spansFrom(old);
      const columns = (span: object) =>
        Object.fromEntries(
          ['cost', ...PRICING_COLUMNS, ...PRICE_ENTRY_COLUMNS].map((column) => [column, (span as Record<string, unknown>)[column]]),
        );
      const byId = new Map(read.items.map((span) => [span.span_id, columns(span)]));
      expect(byId.get(old.span_id)).to.deep.equal({
        cost: 0.25,
        ...Object.fromEntries([...PRICING_COLUMNS, ...PRICE_ENTRY_COLUMNS].map((column) => [column, null])),
      });
      expect(byId.get(fresh.span_id)).to.deep.equal(columns(fresh));
    });

    it("gives the costs computed before price entries existed the book's currency (USD), and nothing else a currency or an entry", async () => {
      await migrateThrough('20261206000100_computed_cost');
      const trace = '7'.repeat(32);
      const computed = spanRow({
        application_id: 'app_old',
        trace_id: trace,
        span_id: 'a'.repeat(16),
        cost: 0.0014688,
        cost_source: 'computed',
        price_model: 'gpt-4o-mini',
        price_provider: 'openai',
        price_book: 'genai-prices 0.1.8',
      });
      const reported = spanRow({ application_id: 'app_old', trace_id: trace, span_id: 'b'.repeat(16), cost: 0.5, cost_source: 'reported' });
      const unpriced = spanRow({ application_id: 'app_old', trace_id: trace, span_id: 'c'.repeat(16), unpriced_reason: 'unknown_model' });
      await knex('spans').insert([computed, reported, unpriced].map(beforePriceEntries));

      await migrateToLatest(knex);

      const rows = (await knex('spans')
        .where({ trace_id: trace })
        .orderBy('span_id')
        .select('span_id', ...PRICE_ENTRY_COLUMNS)) as Array<Record<string, unknown>>;
      expect(rows).to.deep.equal([
        { span_id: computed.span_id, price_entry_id: null, price_currency: 'USD' },
        { span_id: reported.span_id, price_entry_id: null, price_currency: null },
        { span_id: unpriced.span_id, price_entry_id: null, price_currency: null },
      ]);
    });

    it('rolls up the spend of the spans stored before spend_rollups existed, as the span writer rolls up the same spans', async () => {
      await migrateThrough('20261208000100_repricing_jobs');
      const onTheHour = 1_763_798_400_000_000_000n;
      const spans = (applicationId: string) =>
        Array.from({ length: 12 }, (_, index) =>
          spanRow({
            application_id: applicationId,
            trace_id: `${index % 3}`.padStart(32, '0'),
            span_id: `${index}`.padStart(16, '0'),
            parent_span_id: index < 3 ? null : `${index % 3}`.padStart(16, '0'),
            start_time_unix_nano: (onTheHour + BigInt(index) * 1_000_000_000_000n).toString(),
            service_name: index % 2 === 0 ? 'a' : 'b',
            model: index % 3 === 0 ? null : 'gpt-4o',
            input_tokens: index * 10,
            total_tokens: index % 4 === 0 ? null : index * 20,
            cost: index % 5 === 0 ? null : index / 8,
            cost_source: index % 5 === 0 ? null : index % 2 === 0 ? 'computed' : 'reported',
            price_currency: index % 5 === 0 || index % 2 === 1 ? null : index % 4 === 0 ? 'EUR' : 'USD',
            unpriced_reason: index % 5 === 0 ? 'unknown_model' : null,
          }),
        );
      await knex('spans').insert(spans('app_old'));

      await migrateToLatest(knex);
      await storeSpans(knex, spans('app_new'));

      const [old, written] = [(await derivedRows(knex, 'app_old')).spend_rollups, (await derivedRows(knex, 'app_new')).spend_rollups];
      expect(old).to.have.length.above(3);
      // Both widths: the spans' hours and their day.
      expect(old?.filter((row) => row.includes('["bucket_width_s",86400]'))).to.have.length.above(0);
      expect(old?.filter((row) => row.includes('["bucket_width_s",3600]'))).to.have.length.above(0);
      expect(old).to.deep.equal(written);
    });

    it('leaves the applications stored before retention_days existed on the configured default (null)', async () => {
      await migrateThrough('20261122000200_trace_summary_merge');
      await knex('organizations').insert({ id: 'org_old', name: 'Old', address: '', billing_address: '', created_at: 1, updated_at: 1 });
      await knex('applications').insert({
        id: 'app_old',
        organization_id: 'org_old',
        name: 'Old',
        region: 'EU',
        pricing_plan: 'free',
        created_at: 1,
        updated_at: 1,
      });

      await migrateToLatest(knex);

      expect(await knex('applications').where({ id: 'app_old' }).pluck('retention_days')).to.deep.equal([null]);
      expect(await findActiveApplication(knex, 'app_old')).to.include({ id: 'app_old', retention_days: null });
    });
    it('rolls up the spans stored before span_rollups existed, per minute and per hour', async () => {
      await migrateThrough('20261123000200_application_retention');
      const onTheHour = 1_763_798_400_000_000_000n;
      const at = (seconds: number, index: number, service: string, cost: number | null) =>
        spanRow({
          trace_id: `${index}`.padStart(32, '0'),
          span_id: `${index}`.padStart(16, '0'),
          start_time_unix_nano: (onTheHour + BigInt(seconds) * 1_000_000_000n).toString(),
          end_time_unix_nano: (onTheHour + BigInt(seconds) * 1_000_000_000n + 2_000_000n).toString(),
          duration_ms: 2,
          service_name: service,
          cost,
        });
      // As stored before the indexed attribute slots (20261123000300) existed.
      const beforeSlots = (row: SpanRow) =>
        Object.fromEntries(Object.entries(beforeTokens(row)).filter(([column]) => !(SLOT_COLUMNS as readonly string[]).includes(column)));
      await knex('spans').insert([at(10, 1, 'a', 1), at(50, 2, 'a', 2), at(70, 3, 'a', null), at(3700, 4, 'b', 4)].map(beforeSlots));

      await migrateToLatest(knex);

      const rollups = (await knex('span_rollups')
        .select(
          'bucket_width_s',
          knex.raw('CAST(bucket_start_unix_nano AS CHAR) AS start'),
          'service_name',
          'span_count',
          'cost_count',
          'cost_sum',
          'duration_max',
        )
        .orderBy(['bucket_width_s', 'bucket_start_unix_nano'])) as Array<Record<string, unknown>>;
      const minute = (offset: number) => (onTheHour + BigInt(offset) * 60_000_000_000n).toString();
      expect(
        rollups.map((row) => [
          Number(row.bucket_width_s),
          String(row.start),
          row.service_name,
          Number(row.span_count),
          Number(row.cost_count),
          Number(row.cost_sum),
          Number(row.duration_max),
        ]),
      ).to.deep.equal([
        [60, minute(0), 'a', 2, 2, 3, 2],
        [60, minute(1), 'a', 1, 0, 0, 2],
        [60, minute(61), 'b', 1, 1, 4, 2],
        [3600, minute(0), 'a', 3, 2, 3, 2],
        [3600, minute(60), 'b', 1, 1, 4, 2],
      ]);
    });

    it('sets each application’s purge edge above its partial roll-up buckets, then drops `partial`', async () => {
      await migrateThrough('20261202000100_derived_rebuilds');
      await knex('organizations').insert({ id: 'org_old', name: 'Old', address: '', billing_address: '', created_at: 1, updated_at: 1 });
      for (const id of ['app_span', 'app_slot', 'app_whole'])
        await knex('applications').insert({
          id,
          organization_id: 'org_old',
          name: id,
          region: 'EU',
          pricing_plan: 'free',
          created_at: 1,
          updated_at: 1,
        });
      const onTheHour = 1_763_798_400_000_000_000n;
      const minute = 60_000_000_000n;
      const measures = { span_count: 1, duration_count: 0, duration_sum: 0, cost_count: 0, cost_sum: 0, usage_count: 0, usage_sum: 0 };
      const spanRollup = (applicationId: string, widthS: number, start: bigint, partial: number) => ({
        application_id: applicationId,
        bucket_width_s: widthS,
        bucket_start_unix_nano: start.toString(),
        dimensions_hash: `${widthS}${start}`.slice(-32),
        ...measures,
        partial,
      });
      const slotRollup = (applicationId: string, widthS: number, start: bigint, partial: number) => ({
        application_id: applicationId,
        bucket_width_s: widthS,
        bucket_start_unix_nano: start.toString(),
        slot: 1,
        generation: 1,
        value_kind: 1,
        value: 'gpt',
        ...measures,
        partial,
      });
      await knex('span_rollups').insert([
        // app_span: its latest partial bucket is the minute at 0:07, beside whole ones after it.
        spanRollup('app_span', 60, onTheHour + 3n * minute, 1),
        spanRollup('app_span', 60, onTheHour + 7n * minute, 1),
        spanRollup('app_span', 60, onTheHour + 9n * minute, 0),
        spanRollup('app_span', 3600, onTheHour - 3600n * 1_000_000_000n, 1),
        // app_slot: a partial minute in span_rollups, a later partial hour in slot_rollups.
        spanRollup('app_slot', 60, onTheHour + minute, 1),
        // app_whole: nothing partial.
        spanRollup('app_whole', 60, onTheHour, 0),
      ]);
      await knex('slot_rollups').insert([slotRollup('app_slot', 3600, onTheHour, 1), slotRollup('app_slot', 60, onTheHour, 0)]);

      await migrateToLatest(knex);

      const edges = (await knex('applications')
        .whereIn('id', ['app_span', 'app_slot', 'app_whole'])
        .orderBy('id')
        .select('id', knex.raw(`CAST(spans_purged_before AS ${database.name === 'mysql' ? 'CHAR' : 'TEXT'}) AS edge`))) as Array<{
        id: string;
        edge: string | null;
      }>;
      expect(edges.map((row) => [row.id, row.edge])).to.deep.equal([
        ['app_slot', (onTheHour + 3600n * 1_000_000_000n).toString()],
        ['app_span', (onTheHour + 8n * minute).toString()],
        ['app_whole', null],
      ]);
      for (const table of ['span_rollups', 'slot_rollups']) {
        expect(await knex.schema.hasColumn(table, 'partial'), table).to.equal(false);
        // Every row stays: those below an edge are never read and go with the next purge.
        const [{ n }] = (await knex(table).count({ n: '*' })) as Array<{ n: number | string }>;
        expect(Number(n), table).to.equal(table === 'span_rollups' ? 6 : 2);
      }
      const indexes =
        database.name === 'mysql'
          ? ((await knex.raw('SHOW INDEX FROM span_rollups')) as [Array<{ Key_name: string }>])[0].map((row) => row.Key_name)
          : (
              (await knex.raw("SELECT name AS Key_name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'span_rollups'")) as Array<{
                Key_name: string;
              }>
            ).map((row) => row.Key_name);
      expect(indexes).not.to.include('span_rollups_partial');
      // The code of this release writes to the tables as they are now.
      await storeSpans(knex, [
        spanRow({
          application_id: 'app_whole',
          trace_id: '1'.repeat(32),
          span_id: '1'.repeat(16),
          start_time_unix_nano: (onTheHour + 30n * minute).toString(),
        }),
      ]);
      const [{ n }] = (await knex('span_rollups').where({ application_id: 'app_whole' }).count({ n: '*' })) as Array<{
        n: number | string;
      }>;
      expect(Number(n)).to.equal(3);
    });
  });
}
