// The purge statements: their SQL and bindings per dialect without a database (table-driven), and
// on every database the plan reads along the index on (application_id, start time), the clustered
// primary key on MariaDB/MySQL: a batch touches its own rows, never a scan of the table.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { isMysql } from '../../../src/storage/sql/index.js';
import { deleteSpansQuery, expiredSpansQuery } from '../../../src/storage/spans/span-purge.js';
import { purgeBefore } from '../../../src/retention/purger.js';
import { spanRow } from '../../support/span-rows.js';
import { onEachDatabase } from '../../support/test-server.js';

const BATCH = { applicationId: 'app_a', beforeNs: 1763800000123456789n, limit: 1000 };
const SPANS = [
  { start: '1763800000000000002', seq: 7, trace_id: 'b'.repeat(32) },
  { start: '1763800000000000001', seq: '5', trace_id: 'a'.repeat(32) },
];

const DIALECTS: Array<[string, Knex, { select: string; selectAll: string; delete: string }]> = [
  [
    'mysql',
    knexFactory({ client: 'mysql2' }),
    {
      select: 'select CAST(start_time_unix_nano AS CHAR) as `start`, `seq`, `trace_id` from `spans` where `application_id` = ? and start_time_unix_nano < CAST(? AS SIGNED) order by `start_time_unix_nano` asc limit ?',
      selectAll: 'select CAST(start_time_unix_nano AS CHAR) as `start`, `seq`, `trace_id` from `spans` where `application_id` = ? order by `start_time_unix_nano` asc limit ?',
      delete: 'delete from `spans` where `application_id` = ? and start_time_unix_nano >= CAST(? AS SIGNED) and start_time_unix_nano <= CAST(? AS SIGNED) and `seq` in (?, ?)',
    },
  ],
  [
    'sqlite',
    knexFactory({ client: 'better-sqlite3', useNullAsDefault: true }),
    {
      select: 'select CAST(start_time_unix_nano AS TEXT) as `start`, `seq`, `trace_id` from `spans` where `application_id` = ? and start_time_unix_nano < CAST(? AS INTEGER) order by `start_time_unix_nano` asc limit ?',
      selectAll: 'select CAST(start_time_unix_nano AS TEXT) as `start`, `seq`, `trace_id` from `spans` where `application_id` = ? order by `start_time_unix_nano` asc limit ?',
      delete: 'delete from `spans` where `application_id` = ? and start_time_unix_nano >= CAST(? AS INTEGER) and start_time_unix_nano <= CAST(? AS INTEGER) and `seq` in (?, ?)',
    },
  ],
];

describe('purge statements', () => {
  for (const [name, knex, want] of DIALECTS) {
    it(`binds the application, the exact 19-digit bound and the batch size [${name}]`, () => {
      const select = expiredSpansQuery(knex, BATCH).toSQL();
      expect([select.sql, select.bindings]).to.deep.equal([want.select, ['app_a', '1763800000123456789', 1000]]);
      const all = expiredSpansQuery(knex, { ...BATCH, beforeNs: null }).toSQL();
      expect([all.sql, all.bindings]).to.deep.equal([want.selectAll, ['app_a', 1000]]);
    });

    it(`deletes exactly the spans read, within their start-time range [${name}]`, () => {
      const statement = deleteSpansQuery(knex, 'app_a', SPANS).toSQL();
      expect([statement.sql, statement.bindings]).to.deep.equal([want.delete, ['app_a', '1763800000000000001', '1763800000000000002', '7', '5']]);
    });
  }

  it('counts retention back from now in whole days, and keeps nothing of a deleted application', () => {
    const now = 1_763_800_000_123;
    expect(purgeBefore({ id: 'app_a', retention_days: 7, deleted: false }, 30, now)).to.equal(1_763_800_000_123_000_000n - 7n * 86_400n * 1_000_000_000n);
    expect(purgeBefore({ id: 'app_a', retention_days: null, deleted: false }, 30, now)).to.equal(1_763_800_000_123_000_000n - 30n * 86_400n * 1_000_000_000n);
    expect(purgeBefore({ id: 'app_a', retention_days: 7, deleted: true }, 30, now)).to.equal(null);
  });
});

onEachDatabase('purge statement plans', (app) => {
  const knex = () => app().server.knex;

  before(async () => {
    // Three applications, so that the plan has others' spans to skip.
    for (const applicationId of ['app_a', 'app_b', 'app_c']) {
      const rows = Array.from({ length: 3000 }, (_, index) =>
        spanRow({
          application_id: applicationId,
          trace_id: ((index % 300) + 1).toString(16).padStart(32, '0'),
          span_id: (index + 1).toString(16).padStart(16, '0'),
          start_time_unix_nano: (1763800000000000000n + BigInt(index) * 1_000_000_000n).toString(),
        }),
      );
      for (let offset = 0; offset < rows.length; offset += 500) await knex()('spans').insert(rows.slice(offset, offset + 500));
    }
    await knex().raw(isMysql(knex()) ? 'ANALYZE TABLE spans' : 'ANALYZE');
  });

  /** The index each table access of the statement uses (MariaDB/MySQL `key`, SQLite's plan detail). */
  async function indexesOf(statement: Knex.QueryBuilder): Promise<string[]> {
    if (isMysql(knex())) {
      const { sql, bindings } = statement.toSQL().toNative();
      const [rows] = (await knex().raw(`EXPLAIN ${sql}`, bindings)) as [Array<{ key: string | null; type: string; Extra: string | null }>];
      return rows.map((row) => `${row.type} ${row.key} ${row.Extra ?? ''}`.trim());
    }
    const { sql, bindings } = statement.toSQL();
    const rows = (await knex().raw(`EXPLAIN QUERY PLAN ${sql}`, bindings)) as Array<{ detail: string }>;
    return rows.map((row) => row.detail);
  }

  it('reads and deletes a batch along the index on (application_id, start time)', async () => {
    const batch = { applicationId: 'app_b', beforeNs: 1763800000000000000n + 1500n * 1_000_000_000n, limit: 100 };
    const spans = (await expiredSpansQuery(knex(), batch)) as Array<{ start: string; seq: number; trace_id: string }>;
    expect(spans).to.have.length(100);
    const read = await indexesOf(expiredSpansQuery(knex(), batch));
    const remove = await indexesOf(deleteSpansQuery(knex(), 'app_b', spans));
    if (isMysql(knex())) {
      // A range of the clustered key, or of spans_newest_first (which holds the key's columns:
      // covering), read in index order: no filesort, no scan.
      for (const plan of [...read, ...remove]) expect(plan).to.match(/^range (PRIMARY|spans_newest_first) Using where(; Using index)?$/);
      expect([read.length, remove.length]).to.deep.equal([1, 1]);
    } else {
      expect(read).to.deep.equal(['SEARCH spans USING COVERING INDEX spans_newest_first (application_id=? AND start_time_unix_nano<?)']);
      expect(remove).to.have.length(1);
      expect(remove[0]).to.match(/^SEARCH spans USING (INDEX spans_newest_first \(application_id=\? AND start_time_unix_nano>\? AND start_time_unix_nano<\?\)|INTEGER PRIMARY KEY \(rowid=\?\))$/);
    }
  });
});
