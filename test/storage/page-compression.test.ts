// LZ4 page compression of the span tables (src/storage/page-compression.ts): on a MariaDB server
// that loads provider_lz4 with innodb_compression_algorithm=lz4 (CI's) the migrations create
// every span table PAGE_COMPRESSED; on one without (a default server) they leave them as they
// were and the start says so. Either way spans read back as they were written.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { compressSpanTables, pageCompressionNotice, SPAN_TABLES } from '../../src/storage/page-compression.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339, parseEngineRead } from '../support/engine-helpers.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const BASE = 1_763_800_000_000_000_000n;
const SPANS = 300;
const COMPRESSED = /`page_compressed`='1'/i;

/** Asked of the server directly rather than through the module under test. */
async function serverHasLz4(knex: Knex): Promise<boolean> {
  const [rows] = (await knex.raw(
    "SELECT @@GLOBAL.innodb_compression_algorithm AS algorithm, (SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'provider_lz4') AS plugin",
  )) as [Array<{ algorithm: string; plugin: string | null }>];
  return rows[0].algorithm === 'lz4' && rows[0].plugin === 'ACTIVE';
}

/** Table name → CREATE_OPTIONS of the span tables in the service's database. */
async function createOptions(knex: Knex): Promise<Map<string, string>> {
  const rows = (await knex('information_schema.TABLES')
    .where('TABLE_SCHEMA', knex.raw('DATABASE()'))
    .whereIn('TABLE_NAME', [...SPAN_TABLES])
    .select({ table: 'TABLE_NAME', options: 'CREATE_OPTIONS' })) as Array<{ table: string; options: string }>;
  return new Map(rows.map((row) => [row.table, row.options]));
}

onEachDatabase('span table page compression', (app) => {
  let caller: EngineCaller;
  const knex = () => app().server.knex;

  before(async () => {
    caller = await engineCaller(app());
  });

  it('creates every span table PAGE_COMPRESSED where the server has LZ4, and none where it has not', async function () {
    if (app().database !== 'mysql') this.skip();
    const options = await createOptions(knex());
    // The tables of this release; a table added later is compressed by its own migration.
    expect([...options.keys()].sort()).to.include.members(['spans', 'traces', 'span_rollups', 'slot_rollups', 'trace_slot_values']);
    const lz4 = await serverHasLz4(knex());
    for (const [table, text] of options) {
      // The option keeps the case of the statement that set it.
      if (lz4) expect(text, table).to.match(COMPRESSED);
      else expect(text, table).not.to.match(/page_compressed/i);
    }
    const notice = await pageCompressionNotice(knex());
    if (lz4) expect(notice).to.equal(undefined);
    else
      expect(notice)
        .to.deep.include({ level: 'info' })
        .and.to.have.nested.property('fields.reason')
        .that.matches(/provider_lz4|innodb_compression_algorithm/);
  });

  it('reads back every span as it was written', async () => {
    const rows = [];
    for (let index = 0; index < SPANS; index += 1) {
      rows.push(
        spanRow({
          application_id: caller.appId,
          trace_id: (index % 7).toString(16).padStart(32, '0'),
          span_id: (index + 1).toString(16).padStart(16, '0'),
          start_time_unix_nano: (BASE + BigInt(index) * 1_000_000_007n).toString(),
          span_name: `op-${index % 13}`,
          cost: index / 1000,
          // Repetitive text compresses; the per-span numbers make every page's content different.
          span_attributes: JSON.stringify({ 'vendor.unit': 'llm', 'gen_ai.prompt': `summarize document ${index} `.repeat(20), index }),
        }),
      );
    }
    await storeSpans(knex(), rows);
    const read = new Map<string, { span_name: string; cost: number | null; span_attributes: unknown; span_start_time_unix_nano: string }>();
    const window = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 3_600_000_000_000n) };
    for (let page = 1; page <= Math.ceil(SPANS / 100); page += 1) {
      const response = await call(app().url, 'POST', '/engine/query', {
        query: { ...window, limit: 100, page },
        headers: caller.headers,
        json: {},
      });
      expect(response.status).to.equal(200);
      for (const span of parseEngineRead('/engine/query', response.text).data) read.set(span.span_id, span);
    }
    expect(read.size).to.equal(SPANS);
    for (const row of rows) {
      const span = read.get(row.span_id);
      expect(span, row.span_id).to.deep.include({
        span_name: row.span_name,
        cost: row.cost,
        span_start_time_unix_nano: row.start_time_unix_nano,
      });
      expect(span?.span_attributes, row.span_id).to.deep.equal(JSON.parse(row.span_attributes ?? 'null'));
    }
  });

  it('leaves a table above the limit for `npm run compress:pages`, which compresses it', async function () {
    if (app().database !== 'mysql' || !(await serverHasLz4(knex()))) this.skip();
    await knex().raw('ALTER TABLE traces PAGE_COMPRESSED=0');
    expect(await pageCompressionNotice(knex())).to.deep.include({ level: 'warn', fields: { tables: ['traces'] } });
    expect(await compressSpanTables(knex(), { maxBytes: 0 })).to.deep.equal({ compressed: [], leftLarge: ['traces'] });
    expect(await compressSpanTables(knex())).to.deep.equal({ compressed: ['traces'], leftLarge: [] });
    expect((await createOptions(knex())).get('traces')).to.match(COMPRESSED);
    expect(await pageCompressionNotice(knex())).to.equal(undefined);
  });
});
