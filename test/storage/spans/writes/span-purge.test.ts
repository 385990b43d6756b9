// The purge statements per dialect, without a database (table-driven): the keys of a batch of
// expired spans (with a cut-off, or every span of a deleted application), the raise of the purge
// edge, the delete of exactly those spans and the bounded delete of roll-up rows below the edge.
// Their plans on each database: ./span-purge-plans.test.ts.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { raisePurgeEdgeQuery } from '../../../../src/storage/spans/purge-edge.js';
import { dialectFor } from '../../../../src/storage/sql/index.js';
import { deleteSpansQuery, edgeOfBatch, expiredSpansQuery } from '../../../../src/storage/spans/writes/span-purge.js';
import { sqlCases, type SqlCase } from '../../../support/sql-cases.js';

const BATCH = { applicationId: 'app_a', beforeNs: 1763800000123456789n, limit: 1000 };
// seq as each driver reads it: a number (better-sqlite3), a string (mysql2's big numbers), one past 2^53.
const SPANS = [
  { start: '1763800000000000002', seq: 7, trace_id: 'b'.repeat(32) },
  { start: '1763800000000000001', seq: '5', trace_id: 'a'.repeat(32) },
  { start: '1763800000000000003', seq: '9007199254740993', trace_id: 'c'.repeat(32) },
];

type Build = (knex: Knex) => Knex.QueryBuilder;

// The batch is read with its keys alone (no structure subtracts a span's figures; span_slot_values
// deletes its rows by span id), and locked on MariaDB/MySQL.
const READ_COLUMNS = '`seq`, `trace_id`, `span_id`';
const batchRead = (cast: string, where: string, lock: string) =>
  `select CAST(start_time_unix_nano AS ${cast}) as \`start\`, ${READ_COLUMNS} from \`spans\` where ${where} order by \`start_time_unix_nano\` asc limit ?${lock}`;

const CASES: Array<SqlCase<Build>> = [
  [
    'binds the application, the exact 19-digit bound and the batch size',
    (knex) => expiredSpansQuery(knex, BATCH),
    {
      sqlite: {
        sql: batchRead('TEXT', '`application_id` = ? and start_time_unix_nano < CAST(? AS INTEGER)', ''),
        bindings: ['app_a', '1763800000123456789', 1000],
      },
      mysql: {
        sql: batchRead('CHAR', '`application_id` = ? and start_time_unix_nano < CAST(? AS SIGNED)', ' for update'),
        bindings: ['app_a', '1763800000123456789', 1000],
      },
    },
  ],
  [
    'without a cut-off: every span of the application, oldest first',
    (knex) => expiredSpansQuery(knex, { ...BATCH, beforeNs: null }),
    {
      sqlite: { sql: batchRead('TEXT', '`application_id` = ?', ''), bindings: ['app_a', 1000] },
      mysql: { sql: batchRead('CHAR', '`application_id` = ?', ' for update'), bindings: ['app_a', 1000] },
    },
  ],
  // The seqs bound as integers, as the column holds them (a bigint past 2^53), never as text.
  [
    'deletes exactly the spans read, within their start-time range',
    (knex) => deleteSpansQuery(knex, 'app_a', SPANS),
    {
      sqlite: {
        sql: 'delete from `spans` where `application_id` = ? and start_time_unix_nano >= CAST(? AS INTEGER) and start_time_unix_nano <= CAST(? AS INTEGER) and `seq` in (?, ?, ?)',
        bindings: ['app_a', '1763800000000000001', '1763800000000000003', 7, 5, 9007199254740993n],
      },
      mysql: {
        sql: 'delete from `spans` where `application_id` = ? and start_time_unix_nano >= CAST(? AS SIGNED) and start_time_unix_nano <= CAST(? AS SIGNED) and `seq` in (?, ?, ?)',
        bindings: ['app_a', '1763800000000000001', '1763800000000000003', 7, 5, 9007199254740993n],
      },
    },
  ],
  [
    'raises the purge edge, never lowers it',
    (knex) => raisePurgeEdgeQuery(knex, 'app_a', 1763798400000000000n),
    {
      sqlite: {
        sql: 'update `applications` set `spans_purged_before` = CAST(? AS INTEGER) where `id` = ? and (`spans_purged_before` is null or spans_purged_before < CAST(? AS INTEGER))',
        bindings: ['1763798400000000000', 'app_a', '1763798400000000000'],
      },
      mysql: {
        sql: 'update `applications` set `spans_purged_before` = CAST(? AS SIGNED) where `id` = ? and (`spans_purged_before` is null or spans_purged_before < CAST(? AS SIGNED))',
        bindings: ['1763798400000000000', 'app_a', '1763798400000000000'],
      },
    },
  ],
  [
    'deletes at most a bound of roll-up rows below the edge, in key order (SQLite has no DELETE … LIMIT)',
    (knex) =>
      dialectFor(knex).deleteFirstRows(
        knex,
        'span_rollups',
        { sql: 'application_id = ? AND bucket_width_s = 60 AND bucket_start_unix_nano < ?', bindings: ['app_a', 5] },
        ['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash'],
        1000,
      ) as unknown as Knex.QueryBuilder,
    {
      sqlite: {
        sql: 'DELETE FROM span_rollups WHERE rowid IN (SELECT rowid FROM span_rollups WHERE application_id = ? AND bucket_width_s = 60 AND bucket_start_unix_nano < ? ORDER BY application_id, bucket_width_s, bucket_start_unix_nano, dimensions_hash LIMIT 1000)',
        bindings: ['app_a', 5],
      },
      mysql: {
        sql: 'DELETE FROM span_rollups WHERE application_id = ? AND bucket_width_s = 60 AND bucket_start_unix_nano < ? ORDER BY application_id, bucket_width_s, bucket_start_unix_nano, dimensions_hash LIMIT 1000',
        bindings: ['app_a', 5],
      },
    },
  ],
];

describe('purge statements: SQL and bindings per dialect', () => sqlCases(CASES, (knex, build) => build(knex)));

describe('the edge a purge batch raises', () => {
  const HOUR = 3_600_000_000_000n;
  const cases: Array<[string, { beforeNs: bigint | null; starts: bigint[] }, bigint]> = [
    ['its cutoff, whatever the spans', { beforeNs: 5n * HOUR, starts: [HOUR, 2n * HOUR + 7n] }, 5n * HOUR],
    ['every span going: the end of the latest span’s hour', { beforeNs: null, starts: [3n * HOUR + 1n, HOUR] }, 4n * HOUR],
    ['every span going, the latest on an hour: the end of that hour', { beforeNs: null, starts: [3n * HOUR] }, 4n * HOUR],
    ['every span going, before 1970: floored', { beforeNs: null, starts: [-1n] }, 0n],
  ];
  for (const [name, { beforeNs, starts }, want] of cases) it(name, () => expect(edgeOfBatch(beforeNs, starts)).to.equal(want));
});
