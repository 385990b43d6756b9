// POST /engine/analytics's reads per dialect, without a database (table-driven): the groups
// ranked from their cells in one statement (no percentile), the ranking of the groups, the points
// of the kept groups and of the rest (`other`), and the values at the percentile ranks; keys grouped, sorted and compared by their bytes (CAST AS BINARY on
// MariaDB/MySQL), buckets by integer division (DIV on MariaDB/MySQL).
import type { AnalyticsQuery, Selection } from '../../../../src/storage/spans/reads/analytics-reads.js';
import {
  percentileValuesQuery,
  pointsQuery,
  rankedKeysQuery,
  rankedPointsQuery,
} from '../../../../src/storage/spans/reads/analytics-reads.js';
import { sqlCases, type SqlCase } from '../../../support/sql-cases.js';

const QUERY: AnalyticsQuery = {
  applicationId: 'app_a',
  startNs: 1763800000000000000n,
  endNs: 1763800060000000000n,
  filter: null,
  indexedSlots: [],
  grain: 'traces',
  groupBy: [{ kind: 'text', name: 'service_name' }],
  measures: [{ fn: 'count' }, { fn: 'avg', field: 'duration_ms' }, { fn: 'p90', field: 'duration_ms' }],
  orderBy: { measure: 1, direction: 'asc' },
  rowLimit: 2,
  widthNs: 60000000000n,
};
const START = '1763800000000000000';
const END = '1763800060000000000';
const WIDTH = '60000000000';
const KEPT: Selection = { kind: 'kept', keys: [['llm'], [null]] };

const TRACES = {
  sqlite:
    'from `traces` as `t` where `t`.`application_id` = ? and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS INTEGER) and t.root_start_time_unix_nano < CAST(? AS INTEGER)',
  mysql:
    'from `traces` as `t` where `t`.`application_id` = ? and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS SIGNED) and t.root_start_time_unix_nano < CAST(? AS SIGNED)',
};
const BUCKET = {
  sqlite: '(t.root_start_time_unix_nano - CAST(? AS INTEGER)) / (CAST(? AS INTEGER)) AS b',
  mysql: '(t.root_start_time_unix_nano - CAST(? AS SIGNED)) DIV (CAST(? AS SIGNED)) AS b',
};
const MEASURES = {
  sqlite: 'COUNT(*) AS m0, AVG(CAST(t.duration_ms AS REAL)) AS m1, COUNT(t.duration_ms) AS m2',
  mysql: 'COUNT(*) AS m0, AVG(CAST(t.duration_ms AS DOUBLE)) AS m1, COUNT(t.duration_ms) AS m2',
};
// A null key matches only NULL; `IS NOT NULL AND` keeps the test from being NULL, so that NOT holds.
const KEPT_KEYS = {
  sqlite: '(((t.service_name IS NOT NULL AND t.service_name = ?)) OR (t.service_name IS NULL))',
  mysql: '(((t.service_name IS NOT NULL AND CAST(t.service_name AS BINARY) = CAST(? AS BINARY))) OR (t.service_name IS NULL))',
};

// Without a percentile: the cells of one scan (an average's sum and count beside it), each
// group's order measure combined over its cells, the groups ranked, the rest combined per bucket.
const WITHOUT_PERCENTILE: AnalyticsQuery = {
  ...QUERY,
  measures: [{ fn: 'count' }, { fn: 'avg', field: 'duration_ms' }, { fn: 'max', field: 'total_cost' }],
};
const rankedPointsSql = (dialect: 'sqlite' | 'mysql') => {
  const [double, key] = dialect === 'sqlite' ? ['REAL', 't.service_name'] : ['DOUBLE', 'CAST(t.service_name AS BINARY)'];
  return (
    'select CASE WHEN pos <= ? THEN pos ELSE 0 END AS p, b, MIN(CASE WHEN pos <= ? THEN k0 END) AS k0, CASE WHEN MIN(pos) <= ? THEN MIN(m0) ELSE SUM(m0) END AS m0, ' +
    `CASE WHEN MIN(pos) <= ? THEN MIN(m1) ELSE CAST(SUM(s1) AS ${double}) / NULLIF(SUM(n1), 0) END AS m1, CASE WHEN MIN(pos) <= ? THEN MIN(m2) ELSE MAX(m2) END AS m2 ` +
    'from (select totals.*, DENSE_RANK() OVER (ORDER BY CASE WHEN r IS NULL THEN 1 ELSE 0 END, r ASC, k0) AS pos ' +
    `from (select cells.*, CAST(SUM(s1) OVER (PARTITION BY k0) AS ${double}) / NULLIF(SUM(n1) OVER (PARTITION BY k0), 0) AS r ` +
    `from (select ${key} AS k0, ${BUCKET[dialect]}, COUNT(*) AS m0, AVG(CAST(t.duration_ms AS ${double})) AS m1, SUM(CAST(t.duration_ms AS ${double})) AS s1, COUNT(t.duration_ms) AS n1, ` +
    `MAX(t.total_cost) AS m2 ${TRACES[dialect]} group by k0, b) as \`cells\`) as \`totals\`) as \`ranked\` group by p, b`
  );
};
const RANKED_POINTS: Array<SqlCase<AnalyticsQuery>> = [
  [
    'the groups ranked from the cells of one scan (no value last, ties by key bytes), the kept ones as they are, the rest combined per bucket',
    WITHOUT_PERCENTILE,
    {
      sqlite: { sql: rankedPointsSql('sqlite'), bindings: [2, 2, 2, 2, 2, START, WIDTH, 'app_a', START, END] },
      mysql: { sql: rankedPointsSql('mysql'), bindings: [2, 2, 2, 2, 2, START, WIDTH, 'app_a', START, END] },
    },
  ],
];

const RANKED: Array<SqlCase<AnalyticsQuery>> = [
  [
    'groups ranked by the order measure (no value last), ties by key bytes, row_limit + 1 of them',
    QUERY,
    {
      sqlite: {
        sql:
          `select MIN(t.service_name) AS k0, AVG(CAST(t.duration_ms AS REAL)) AS r ${TRACES.sqlite} group by t.service_name ` +
          'order by CASE WHEN AVG(CAST(t.duration_ms AS REAL)) IS NULL THEN 1 ELSE 0 END, AVG(CAST(t.duration_ms AS REAL)) ASC, t.service_name limit ?',
        bindings: ['app_a', START, END, 3],
      },
      mysql: {
        sql:
          `select MIN(t.service_name) AS k0, AVG(CAST(t.duration_ms AS DOUBLE)) AS r ${TRACES.mysql} group by CAST(t.service_name AS BINARY) ` +
          'order by CASE WHEN AVG(CAST(t.duration_ms AS DOUBLE)) IS NULL THEN 1 ELSE 0 END, AVG(CAST(t.duration_ms AS DOUBLE)) ASC, CAST(t.service_name AS BINARY) limit ?',
        bindings: ['app_a', START, END, 3],
      },
    },
  ],
];

const POINTS: Array<SqlCase<Selection>> = [
  [
    'the kept groups, per group and bucket',
    KEPT,
    {
      sqlite: {
        sql: `select MIN(t.service_name) AS k0, ${BUCKET.sqlite}, ${MEASURES.sqlite} ${TRACES.sqlite} and ${KEPT_KEYS.sqlite} group by t.service_name, b`,
        bindings: [START, WIDTH, 'app_a', START, END, 'llm'],
      },
      mysql: {
        sql: `select MIN(t.service_name) AS k0, ${BUCKET.mysql}, ${MEASURES.mysql} ${TRACES.mysql} and ${KEPT_KEYS.mysql} group by CAST(t.service_name AS BINARY), b`,
        bindings: [START, WIDTH, 'app_a', START, END, 'llm'],
      },
    },
  ],
  [
    'the rest, per bucket (other)',
    { kind: 'rest', keys: KEPT.keys },
    {
      sqlite: {
        sql: `select ${BUCKET.sqlite}, ${MEASURES.sqlite} ${TRACES.sqlite} and NOT ${KEPT_KEYS.sqlite} group by b`,
        bindings: [START, WIDTH, 'app_a', START, END, 'llm'],
      },
      mysql: {
        sql: `select ${BUCKET.mysql}, ${MEASURES.mysql} ${TRACES.mysql} and NOT ${KEPT_KEYS.mysql} group by b`,
        bindings: [START, WIDTH, 'app_a', START, END, 'llm'],
      },
    },
  ],
  [
    'everything, per bucket (no group_by)',
    { kind: 'all' },
    {
      sqlite: {
        sql: `select ${BUCKET.sqlite}, ${MEASURES.sqlite} ${TRACES.sqlite} group by b`,
        bindings: [START, WIDTH, 'app_a', START, END],
      },
      mysql: { sql: `select ${BUCKET.mysql}, ${MEASURES.mysql} ${TRACES.mysql} group by b`, bindings: [START, WIDTH, 'app_a', START, END] },
    },
  ],
];

const PERCENTILES: Array<SqlCase<Selection>> = [
  [
    'the values at the ranks around p50 and p90, per group and bucket (ROW_NUMBER, integer positions)',
    { kind: 'kept', keys: [['llm']] },
    {
      sqlite: {
        sql:
          'select * from (select d.*, ROW_NUMBER() OVER (PARTITION BY g0, b ORDER BY v) - 1 AS rk, COUNT(*) OVER (PARTITION BY g0, b) AS n from ' +
          `(select t.service_name AS k0, t.service_name AS g0, ${BUCKET.sqlite}, t.duration_ms AS v ${TRACES.sqlite} and (((t.service_name IS NOT NULL AND t.service_name = ?))) ` +
          'and `t`.`duration_ms` is not null) as `d`) as `r` where rk = (50 * (n - 1)) / (100) OR rk = (50 * (n - 1)) / (100) + 1 OR rk = (90 * (n - 1)) / (100) OR rk = (90 * (n - 1)) / (100) + 1',
        bindings: [START, WIDTH, 'app_a', START, END, 'llm'],
      },
      mysql: {
        sql:
          'select * from (select d.*, ROW_NUMBER() OVER (PARTITION BY g0, b ORDER BY v) - 1 AS rk, COUNT(*) OVER (PARTITION BY g0, b) AS n from ' +
          `(select t.service_name AS k0, CAST(t.service_name AS BINARY) AS g0, ${BUCKET.mysql}, t.duration_ms AS v ${TRACES.mysql} and (((t.service_name IS NOT NULL AND CAST(t.service_name AS BINARY) = CAST(? AS BINARY)))) ` +
          'and `t`.`duration_ms` is not null) as `d`) as `r` where rk = (50 * (n - 1)) DIV (100) OR rk = (50 * (n - 1)) DIV (100) + 1 OR rk = (90 * (n - 1)) DIV (100) OR rk = (90 * (n - 1)) DIV (100) + 1',
        bindings: [START, WIDTH, 'app_a', START, END, 'llm'],
      },
    },
  ],
];

describe('analytics reads: SQL and bindings per dialect', () => {
  describe('the groups and their points in one statement', () => sqlCases(RANKED_POINTS, (knex, query) => rankedPointsQuery(knex, query)));
  describe('the ranking of the groups', () => sqlCases(RANKED, (knex, query) => rankedKeysQuery(knex, query)));
  describe('the points', () => sqlCases(POINTS, (knex, selection) => pointsQuery(knex, QUERY, selection)));
  describe('the values at the percentile ranks', () =>
    sqlCases(PERCENTILES, (knex, selection) => percentileValuesQuery(knex, QUERY, selection, 'duration_ms', [50, 90])));
});
