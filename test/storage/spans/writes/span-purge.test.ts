// The purge statements per dialect, without a database (table-driven): the keys of a batch of
// expired spans (with a cut-off, or every span of a deleted application) and the delete of exactly
// those spans. Their plans on each database: ./span-purge-plans.test.ts.
import type { Knex } from 'knex';
import { deleteSpansQuery, expiredSpansQuery } from '../../../../src/storage/spans/writes/span-purge.js';
import { sqlCases, type SqlCase } from '../../../support/sql-cases.js';

const BATCH = { applicationId: 'app_a', beforeNs: 1763800000123456789n, limit: 1000 };
// seq as each driver reads it: a number (better-sqlite3), a string (mysql2's big numbers), one past 2^53.
const SPANS = [
  { start: '1763800000000000002', seq: 7, trace_id: 'b'.repeat(32) },
  { start: '1763800000000000001', seq: '5', trace_id: 'a'.repeat(32) },
  { start: '1763800000000000003', seq: '9007199254740993', trace_id: 'c'.repeat(32) },
];

type Build = (knex: Knex) => Knex.QueryBuilder;

// The batch is read with what the roll-ups hold of each span (they are taken out of them), and locked on MariaDB/MySQL.
const READ_COLUMNS =
  '`seq`, `trace_id`, `application_id`, `duration_ms`, `cost`, `usage_amount`, `span_kind`, `status_code`, `span_name`, `service_name`, `unit`, `parent_unit`, `billing_resource_type`, `billing_resource_name`, `billing_service_id`, `billing_service_name`, `billing_sku_id`, `billing_sku_name`, `billing_region`, `usage_unit`, `scope_name`';
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
];

describe('purge statements: SQL and bindings per dialect', () => sqlCases(CASES, (knex, build) => build(knex)));
