// The purge statements per dialect, without a database (table-driven): the keys of a batch of
// expired spans (with a cut-off, or every span of a deleted application) and the delete of exactly
// those spans. Their plans on each database: test/storage/span-purge.test.ts.
import type { Knex } from 'knex';
import { deleteSpansQuery, expiredSpansQuery } from '../../../src/storage/spans/span-purge.js';
import { sqlCases, type SqlCase } from '../../support/sql-cases.js';

const BATCH = { applicationId: 'app_a', beforeNs: 1763800000123456789n, limit: 1000 };
const SPANS = [
  { start: '1763800000000000002', seq: 7, trace_id: 'b'.repeat(32) },
  { start: '1763800000000000001', seq: '5', trace_id: 'a'.repeat(32) },
];

type Build = (knex: Knex) => Knex.QueryBuilder;

const CASES: Array<SqlCase<Build>> = [
  ['binds the application, the exact 19-digit bound and the batch size', (knex) => expiredSpansQuery(knex, BATCH), {
    sqlite: {
      sql: 'select CAST(start_time_unix_nano AS TEXT) as `start`, `seq`, `trace_id` from `spans` where `application_id` = ? and start_time_unix_nano < CAST(? AS INTEGER) order by `start_time_unix_nano` asc limit ?',
      bindings: ['app_a', '1763800000123456789', 1000],
    },
    mysql: {
      sql: 'select CAST(start_time_unix_nano AS CHAR) as `start`, `seq`, `trace_id` from `spans` where `application_id` = ? and start_time_unix_nano < CAST(? AS SIGNED) order by `start_time_unix_nano` asc limit ?',
      bindings: ['app_a', '1763800000123456789', 1000],
    },
  }],
  ['without a cut-off: every span of the application, oldest first', (knex) => expiredSpansQuery(knex, { ...BATCH, beforeNs: null }), {
    sqlite: { sql: 'select CAST(start_time_unix_nano AS TEXT) as `start`, `seq`, `trace_id` from `spans` where `application_id` = ? order by `start_time_unix_nano` asc limit ?', bindings: ['app_a', 1000] },
    mysql: { sql: 'select CAST(start_time_unix_nano AS CHAR) as `start`, `seq`, `trace_id` from `spans` where `application_id` = ? order by `start_time_unix_nano` asc limit ?', bindings: ['app_a', 1000] },
  }],
  ['deletes exactly the spans read, within their start-time range', (knex) => deleteSpansQuery(knex, 'app_a', SPANS), {
    sqlite: {
      sql: 'delete from `spans` where `application_id` = ? and start_time_unix_nano >= CAST(? AS INTEGER) and start_time_unix_nano <= CAST(? AS INTEGER) and `seq` in (?, ?)',
      bindings: ['app_a', '1763800000000000001', '1763800000000000002', '7', '5'],
    },
    mysql: {
      sql: 'delete from `spans` where `application_id` = ? and start_time_unix_nano >= CAST(? AS SIGNED) and start_time_unix_nano <= CAST(? AS SIGNED) and `seq` in (?, ?)',
      bindings: ['app_a', '1763800000000000001', '1763800000000000002', '7', '5'],
    },
  }],
];

describe('purge statements: SQL and bindings per dialect', () => sqlCases(CASES, (knex, build) => build(knex)));
