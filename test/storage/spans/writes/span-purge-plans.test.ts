// The purge statements on every database: the plan reads along the index on (application_id,
// start time), the clustered primary key on MariaDB/MySQL, and deletes the roll-up rows below the
// purge edge along the roll-ups' primary key in its order: a batch touches its own rows, never a
// scan of the table or a sort. Their SQL and bindings per dialect: ./span-purge.test.ts.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { dialectFor, isMysql } from '../../../../src/storage/sql/index.js';
import { deleteSpansQuery, expiredSpansQuery } from '../../../../src/storage/spans/writes/span-purge.js';
import { purgeBefore } from '../../../../src/jobs/purger.js';
import { spanRow } from '../../../support/span-rows.js';
import { onEachDatabase } from '../../../support/test-server.js';

describe('purge cut-off', () => {
  it('counts retention back from now in whole days, floored to the hour, and keeps nothing of a deleted application', () => {
    // 2025-11-22T08:26:40.123Z: seven days before, 08:26:40.123 floored to 08:00.
    const now = 1_763_800_000_123;
    expect(purgeBefore({ id: 'app_a', retention_days: 7, deleted: false }, 30, now)).to.equal(
      1_763_798_400_000_000_000n - 7n * 86_400n * 1_000_000_000n,
    );
    expect(purgeBefore({ id: 'app_a', retention_days: null, deleted: false }, 30, now)).to.equal(
      1_763_798_400_000_000_000n - 30n * 86_400n * 1_000_000_000n,
    );
    // On the hour already: as it is.
    expect(purgeBefore({ id: 'app_a', retention_days: 1, deleted: false }, 30, 1_763_798_400_000)).to.equal(
      1_763_798_400_000_000_000n - 86_400n * 1_000_000_000n,
    );
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
      // Covering: the batch reads only its keys.
      expect(read).to.deep.equal(['SEARCH spans USING COVERING INDEX spans_newest_first (application_id=? AND start_time_unix_nano<?)']);
      expect(remove).to.have.length(1);
      expect(remove[0]).to.match(
        /^SEARCH spans USING (INDEX spans_newest_first \(application_id=\? AND start_time_unix_nano>\? AND start_time_unix_nano<\?\)|INTEGER PRIMARY KEY \(rowid=\?\))$/,
      );
    }
  });

  it('deletes roll-up rows below the purge edge along the primary key, in its order, without a sort', async () => {
    const rollups = ['app_a', 'app_b', 'app_c'].flatMap((applicationId) =>
      [60, 3600].flatMap((widthS) =>
        Array.from({ length: 200 }, (_, index) => ({
          application_id: applicationId,
          bucket_width_s: widthS,
          bucket_start_unix_nano: (1763800000000000000n + BigInt(index * widthS) * 1_000_000_000n).toString(),
          dimensions_hash: index.toString(16).padStart(32, '0'),
          span_count: 1,
          ...Object.fromEntries(
            ['duration', 'cost', 'usage'].flatMap((name) => [
              [`${name}_count`, 0],
              [`${name}_sum`, 0],
            ]),
          ),
        })),
      ),
    );
    for (let offset = 0; offset < rollups.length; offset += 100) await knex()('span_rollups').insert(rollups.slice(offset, offset + 100));
    await knex().raw(isMysql(knex()) ? 'ANALYZE TABLE span_rollups' : 'ANALYZE');
    const dialect = dialectFor(knex());
    const statement = dialect.deleteFirstRows(
      knex(),
      'span_rollups',
      {
        sql: `application_id = ? AND bucket_width_s = 60 AND bucket_start_unix_nano < ${dialect.exactInteger}`,
        bindings: ['app_b', (1763800000000000000n + 100n * 60_000_000_000n).toString()],
      },
      ['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash'],
      10,
    );
    const { sql, bindings } = statement.toSQL();
    if (isMysql(knex())) {
      const [rows] = (await knex().raw(`EXPLAIN ${sql}`, bindings)) as [Array<{ key: string | null; type: string; Extra: string | null }>];
      expect(rows.map((row) => `${row.type} ${row.key} ${row.Extra ?? ''}`.trim())).to.deep.equal(['range PRIMARY Using where']);
    } else {
      const rows = (await knex().raw(`EXPLAIN QUERY PLAN ${sql}`, bindings)) as Array<{ detail: string }>;
      const plan = rows.map((row) => row.detail);
      expect(plan).to.include('SEARCH span_rollups USING INTEGER PRIMARY KEY (rowid=?)');
      expect(
        plan.some((line) =>
          /^SEARCH span_rollups USING (COVERING )?INDEX sqlite_autoindex_span_rollups_1 \(application_id=\? AND bucket_width_s=\? AND bucket_start_unix_nano<\?\)$/.test(
            line,
          ),
        ),
        plan.join('; '),
      ).to.equal(true);
      expect(plan.join('; ')).not.to.match(/TEMP B-TREE|SCAN/);
    }
    await knex().raw(sql, bindings);
    const [{ n }] = (await knex()('span_rollups').where({ application_id: 'app_b', bucket_width_s: 60 }).count({ n: '*' })) as Array<{
      n: number | string;
    }>;
    expect(Number(n)).to.equal(190);
  });
});
