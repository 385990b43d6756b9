// The trace-summary statements per dialect, without a database (table-driven): the merge upsert
// (ON CONFLICT ... excluded.* and MAX/MIN on SQLite; ON DUPLICATE KEY UPDATE ... VALUES() and
// GREATEST/LEAST on MariaDB/MySQL), the lock of the rows to recompute, and the two reads the
// recomputation is made of.
import type { Knex } from 'knex';
import {
  lockQuery,
  mergeQuery,
  rootCandidatesQuery,
  spanAggregatesQuery,
  type Summary,
} from '../../../../src/storage/spans/traces/trace-summaries.js';
import { sqlCases, type SqlCase } from '../../../support/sql-cases.js';

const WITH_ROOT: Summary = {
  application_id: 'app_a',
  trace_id: 'a'.repeat(32),
  root_span_id: '1'.repeat(16),
  root_start_time_unix_nano: '1763800000000000001',
  span_name: 'GET /a',
  service_name: 'api',
  unit: 'u',
  parent_unit: null,
  root_key: `01763800000000000001${'1'.repeat(16)}`,
  min_start_time_unix_nano: '1763800000000000001',
  max_end_time_unix_nano: '1763800000002000001',
  duration_ms: 2,
  spans_count: 3,
  total_cost: 0.5,
  error_count: 1,
};
const WITHOUT_ROOT: Summary = {
  ...WITH_ROOT,
  trace_id: 'b'.repeat(32),
  root_span_id: null,
  root_start_time_unix_nano: null,
  span_name: null,
  service_name: null,
  unit: null,
  parent_unit: null,
  root_key: null,
  spans_count: 1,
  total_cost: 0,
  error_count: 0,
};

/** A summary's values in the order Knex sorts the insert's columns. */
const values = (summary: Summary) => [
  summary.application_id,
  summary.duration_ms,
  summary.error_count,
  summary.max_end_time_unix_nano,
  summary.min_start_time_unix_nano,
  summary.parent_unit,
  summary.root_key,
  summary.root_span_id,
  summary.root_start_time_unix_nano,
  summary.service_name,
  summary.span_name,
  summary.spans_count,
  summary.total_cost,
  summary.trace_id,
  summary.unit,
];

const INSERT_COLUMNS =
  'insert into `traces` (`application_id`, `duration_ms`, `error_count`, `max_end_time_unix_nano`, `min_start_time_unix_nano`, `parent_unit`, `root_key`, `root_span_id`, ' +
  '`root_start_time_unix_nano`, `service_name`, `span_name`, `spans_count`, `total_cost`, `trace_id`, `unit`)';
const SQLITE_ROW =
  'select ? as `application_id`, ? as `duration_ms`, ? as `error_count`, ? as `max_end_time_unix_nano`, ? as `min_start_time_unix_nano`, ? as `parent_unit`, ? as `root_key`, ' +
  '? as `root_span_id`, ? as `root_start_time_unix_nano`, ? as `service_name`, ? as `span_name`, ? as `spans_count`, ? as `total_cost`, ? as `trace_id`, ? as `unit`';

// The SET lists, in the order the comment on mergeQuery requires: the root columns and root_key
// first (they read the old root_key), then the time range, then the sums, then the fold state.
const SQLITE_NEW_ROOT_WINS =
  'excluded.`root_key` IS NOT NULL AND (`traces`.`root_key` IS NULL OR excluded.`root_key` < `traces`.`root_key`)';
const SQLITE_MERGE = [
  ...['root_span_id', 'root_start_time_unix_nano', 'span_name', 'service_name', 'unit', 'parent_unit', 'root_key'].map(
    (column) => `\`${column}\` = CASE WHEN ${SQLITE_NEW_ROOT_WINS} THEN excluded.\`${column}\` ELSE \`traces\`.\`${column}\` END`,
  ),
  '`duration_ms` = (MAX(`traces`.`max_end_time_unix_nano`, excluded.`max_end_time_unix_nano`) - MIN(`traces`.`min_start_time_unix_nano`, excluded.`min_start_time_unix_nano`)) / 1e6',
  '`min_start_time_unix_nano` = MIN(`traces`.`min_start_time_unix_nano`, excluded.`min_start_time_unix_nano`)',
  '`max_end_time_unix_nano` = MAX(`traces`.`max_end_time_unix_nano`, excluded.`max_end_time_unix_nano`)',
  '`spans_count` = `traces`.`spans_count` + excluded.`spans_count`',
  '`total_cost` = `traces`.`total_cost` + excluded.`total_cost`',
  '`error_count` = `traces`.`error_count` + excluded.`error_count`',
  // The figures changed: pending for the trace fold again.
  '`folded` = 0',
].join(',');
const MYSQL_NEW_ROOT_WINS = 'VALUES(`root_key`) IS NOT NULL AND (`traces`.`root_key` IS NULL OR VALUES(`root_key`) < `traces`.`root_key`)';
const MYSQL_MERGE = [
  ...['root_span_id', 'root_start_time_unix_nano', 'span_name', 'service_name', 'unit', 'parent_unit', 'root_key'].map(
    (column) => `\`${column}\` = CASE WHEN ${MYSQL_NEW_ROOT_WINS} THEN VALUES(\`${column}\`) ELSE \`traces\`.\`${column}\` END`,
  ),
  '`duration_ms` = (GREATEST(`traces`.`max_end_time_unix_nano`, VALUES(`max_end_time_unix_nano`)) - LEAST(`traces`.`min_start_time_unix_nano`, VALUES(`min_start_time_unix_nano`))) / 1e6',
  '`min_start_time_unix_nano` = LEAST(`traces`.`min_start_time_unix_nano`, VALUES(`min_start_time_unix_nano`))',
  '`max_end_time_unix_nano` = GREATEST(`traces`.`max_end_time_unix_nano`, VALUES(`max_end_time_unix_nano`))',
  '`spans_count` = `traces`.`spans_count` + VALUES(`spans_count`)',
  '`total_cost` = `traces`.`total_cost` + VALUES(`total_cost`)',
  '`error_count` = `traces`.`error_count` + VALUES(`error_count`)',
  '`folded` = 0',
].join(',');

const MERGES: Array<SqlCase<Summary[]>> = [
  [
    'one summary',
    [WITH_ROOT],
    {
      sqlite: {
        sql: `${INSERT_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (\`application_id\`, \`trace_id\`) do update set ${SQLITE_MERGE}`,
        bindings: values(WITH_ROOT),
      },
      mysql: {
        sql: `${INSERT_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on duplicate key update ${MYSQL_MERGE}`,
        bindings: values(WITH_ROOT),
      },
    },
  ],
  [
    'two summaries, one without a root',
    [WITH_ROOT, WITHOUT_ROOT],
    {
      sqlite: {
        sql: `${INSERT_COLUMNS} ${SQLITE_ROW} union all ${SQLITE_ROW} where true on conflict (\`application_id\`, \`trace_id\`) do update set ${SQLITE_MERGE}`,
        bindings: [...values(WITH_ROOT), ...values(WITHOUT_ROOT)],
      },
      mysql: {
        sql: `${INSERT_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on duplicate key update ${MYSQL_MERGE}`,
        bindings: [...values(WITH_ROOT), ...values(WITHOUT_ROOT)],
      },
    },
  ],
];

const LOCK_COLUMNS =
  'insert into `traces` (`application_id`, `duration_ms`, `error_count`, `max_end_time_unix_nano`, `min_start_time_unix_nano`, `spans_count`, `total_cost`, `trace_id`)';
const SQLITE_LOCK_ROW =
  'select ? as `application_id`, ? as `duration_ms`, ? as `error_count`, ? as `max_end_time_unix_nano`, ? as `min_start_time_unix_nano`, ? as `spans_count`, ? as `total_cost`, ? as `trace_id`';
const placeholder = (traceId: string) => ['app_a', 0, 0, 0, 0, 0, 0, traceId];

type Build = (knex: Knex) => Knex.QueryBuilder;

const OTHERS: Array<SqlCase<Build>> = [
  [
    'the lock: placeholder rows, and a no-op update of those that exist',
    (knex) => lockQuery(knex, 'app_a', ['a', 'b']),
    {
      sqlite: {
        sql: `${LOCK_COLUMNS} ${SQLITE_LOCK_ROW} union all ${SQLITE_LOCK_ROW} where true on conflict (\`application_id\`, \`trace_id\`) do update set \`spans_count\` = \`spans_count\``,
        bindings: [...placeholder('a'), ...placeholder('b')],
      },
      mysql: {
        sql: `${LOCK_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?) on duplicate key update \`spans_count\` = \`spans_count\``,
        bindings: [...placeholder('a'), ...placeholder('b')],
      },
    },
  ],
  [
    'the lock of one trace',
    (knex) => lockQuery(knex, 'app_a', ['a']),
    {
      sqlite: {
        sql: `${LOCK_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (\`application_id\`, \`trace_id\`) do update set \`spans_count\` = \`spans_count\``,
        bindings: placeholder('a'),
      },
      mysql: {
        sql: `${LOCK_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?) on duplicate key update \`spans_count\` = \`spans_count\``,
        bindings: placeholder('a'),
      },
    },
  ],
  [
    'the recomputation’s aggregates per trace: time range as text, count, cost, errors',
    (knex) => spanAggregatesQuery(knex, 'app_a', ['a', 'b']),
    {
      sqlite: {
        sql:
          'select `trace_id`, CAST(MIN(start_time_unix_nano) AS TEXT) as `min_start`, CAST(MAX(end_time_unix_nano) AS TEXT) as `max_end`, count(*) as `spans_count`, SUM(COALESCE(cost, 0)) AS total_cost, ' +
          'SUM(CASE WHEN status_code = ? THEN 1 ELSE 0 END) AS error_count from `spans` where `application_id` = ? and `trace_id` in (?, ?) group by `trace_id`',
        bindings: ['STATUS_CODE_ERROR', 'app_a', 'a', 'b'],
      },
      mysql: {
        sql:
          'select `trace_id`, CAST(MIN(start_time_unix_nano) AS CHAR) as `min_start`, CAST(MAX(end_time_unix_nano) AS CHAR) as `max_end`, count(*) as `spans_count`, SUM(COALESCE(cost, 0)) AS total_cost, ' +
          'SUM(CASE WHEN status_code = ? THEN 1 ELSE 0 END) AS error_count from `spans` where `application_id` = ? and `trace_id` in (?, ?) group by `trace_id`',
        bindings: ['STATUS_CODE_ERROR', 'app_a', 'a', 'b'],
      },
    },
  ],
  [
    'the recomputation’s root candidates: parentless or SERVER spans',
    (knex) => rootCandidatesQuery(knex, 'app_a', ['a', 'b']),
    {
      sqlite: {
        sql:
          'select `trace_id`, `span_id`, `parent_span_id`, `span_kind`, `span_name`, `service_name`, `unit`, `parent_unit`, CAST(start_time_unix_nano AS TEXT) as `start` from `spans` ' +
          'where `application_id` = ? and `trace_id` in (?, ?) and (`parent_span_id` is null or `span_kind` = ?)',
        bindings: ['app_a', 'a', 'b', 'SPAN_KIND_SERVER'],
      },
      mysql: {
        sql:
          'select `trace_id`, `span_id`, `parent_span_id`, `span_kind`, `span_name`, `service_name`, `unit`, `parent_unit`, CAST(start_time_unix_nano AS CHAR) as `start` from `spans` ' +
          'where `application_id` = ? and `trace_id` in (?, ?) and (`parent_span_id` is null or `span_kind` = ?)',
        bindings: ['app_a', 'a', 'b', 'SPAN_KIND_SERVER'],
      },
    },
  ],
];

describe('trace summaries: SQL and bindings per dialect', () => {
  describe('the merge upsert', () => sqlCases(MERGES, (knex, summaries) => mergeQuery(knex, summaries)));
  describe('the lock and the recomputation’s reads', () => sqlCases(OTHERS, (knex, build) => build(knex)));
});
