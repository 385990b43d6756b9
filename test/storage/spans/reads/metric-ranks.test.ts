// GET /traces/metrics's two reads per dialect, without a database (table-driven): the aggregates
// (VAR_POP on MariaDB/MySQL; on SQLite, which has none, the mean first and then the mean squared
// deviation over a CTE) and the values at the percentile ranks; and the ranks themselves.
import { expect } from 'chai';
import { metricAggregatesQuery, percentileRanks, rankedValuesQuery } from '../../../../src/storage/spans/reads/metric-ranks.js';
import type { WindowFilter } from '../../../../src/storage/spans/reads/span-pages.js';
import { sqlCases, validFilter, type SqlCase } from '../../../support/sql-cases.js';

const WINDOW: WindowFilter = {
  applicationId: 'app_a',
  startNs: 1763800000000000000n,
  endNs: 1763800060000000000n,
  filter: null,
  indexedSlots: [],
};
const START = '1763800000000000000';
const END = '1763800060000000000';

/** The figures of the matching traces (those POST /traces?search_child_spans=true lists): the derived table `m`, left open for a filter. */
const SQLITE_MATCHED =
  '(select `t`.`duration_ms` as `d`, `t`.`total_cost` as `c`, CAST(t.spans_count AS REAL) AS s from `traces` as `t` where `t`.`application_id` = ? ' +
  'and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS INTEGER) and t.root_start_time_unix_nano < CAST(? AS INTEGER)';
const MYSQL_MATCHED =
  '(select `t`.`duration_ms` as `d`, `t`.`total_cost` as `c`, CAST(t.spans_count AS DOUBLE) AS s from `traces` as `t` where `t`.`application_id` = ? ' +
  'and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS SIGNED) and t.root_start_time_unix_nano < CAST(? AS SIGNED)';

const SUMMARY =
  'COUNT(*) AS n, AVG(d) AS mean_d, MIN(d) AS min_d, MAX(d) AS max_d, AVG(c) AS mean_c, MIN(c) AS min_c, MAX(c) AS max_c, AVG(s) AS mean_s, MIN(s) AS min_s, MAX(s) AS max_s';
const SQLITE_SPREADS =
  '(SELECT AVG((d - a.mean_d) * (d - a.mean_d)) FROM m) AS variance_d, (SELECT AVG((c - a.mean_c) * (c - a.mean_c)) FROM m) AS variance_c, (SELECT AVG((s - a.mean_s) * (s - a.mean_s)) FROM m) AS variance_s';
const MYSQL_SPREADS = 'VAR_POP(d) AS variance_d, VAR_POP(c) AS variance_c, VAR_POP(s) AS variance_s';

const AGGREGATES: Array<SqlCase<WindowFilter>> = [
  [
    'no filter',
    WINDOW,
    {
      sqlite: {
        sql: `with \`m\` as (select * from ${SQLITE_MATCHED}) as \`m\`) select a.*, ${SQLITE_SPREADS} from (select ${SUMMARY} from \`m\`) as \`a\``,
        bindings: ['app_a', START, END],
      },
      mysql: { sql: `select ${SUMMARY}, ${MYSQL_SPREADS} from ${MYSQL_MATCHED}) as \`m\``, bindings: ['app_a', START, END] },
    },
  ],
  [
    'a filter, tested on every span of a trace (EXISTS)',
    { ...WINDOW, filter: validFilter({ field: 'span_name', op: 'eq', value: 'a' }) },
    {
      sqlite: {
        sql:
          `with \`m\` as (select * from ${SQLITE_MATCHED} and exists (select 1 from \`spans\` as \`s\` where s.application_id = t.application_id and s.trace_id = t.trace_id and (s.span_name = ?))) as \`m\`) ` +
          `select a.*, ${SQLITE_SPREADS} from (select ${SUMMARY} from \`m\`) as \`a\``,
        bindings: ['app_a', START, END, 'a'],
      },
      mysql: {
        sql: `select ${SUMMARY}, ${MYSQL_SPREADS} from ${MYSQL_MATCHED} and exists (select 1 from \`spans\` as \`s\` where s.application_id = t.application_id and s.trace_id = t.trace_id and ((s.span_name = ? AND s.span_name LIKE ? ESCAPE '!')))) as \`m\``,
        bindings: ['app_a', START, END, 'a', 'a'],
      },
    },
  ],
];

const RANKS =
  'ROW_NUMBER() OVER (ORDER BY d) - 1 AS rank_d, ROW_NUMBER() OVER (ORDER BY c) - 1 AS rank_c, ROW_NUMBER() OVER (ORDER BY s) - 1 AS rank_s';

const RANKED: Array<SqlCase<{ query: WindowFilter; ranks: number[] }>> = [
  [
    'each figure at the ranks, 0-based, bound as constants',
    { query: WINDOW, ranks: [4, 5, 8, 9] },
    {
      sqlite: {
        sql: `select * from (select \`d\`, \`c\`, \`s\`, ${RANKS} from ${SQLITE_MATCHED}) as \`m\`) as \`r\` where (\`rank_d\` in (?, ?, ?, ?) or \`rank_c\` in (?, ?, ?, ?) or \`rank_s\` in (?, ?, ?, ?))`,
        bindings: ['app_a', START, END, 4, 5, 8, 9, 4, 5, 8, 9, 4, 5, 8, 9],
      },
      mysql: {
        sql: `select * from (select \`d\`, \`c\`, \`s\`, ${RANKS} from ${MYSQL_MATCHED}) as \`m\`) as \`r\` where (\`rank_d\` in (?, ?, ?, ?) or \`rank_c\` in (?, ?, ?, ?) or \`rank_s\` in (?, ?, ?, ?))`,
        bindings: ['app_a', START, END, 4, 5, 8, 9, 4, 5, 8, 9, 4, 5, 8, 9],
      },
    },
  ],
];

describe('metric ranks: SQL and bindings per dialect', () => {
  describe('the aggregates', () => sqlCases(AGGREGATES, (knex, query) => metricAggregatesQuery(knex, query)));
  describe('the values at the ranks', () => sqlCases(RANKED, (knex, { query, ranks }) => rankedValuesQuery(knex, query, ranks)));
});

describe('percentile ranks', () => {
  // position = p × (n − 1) / 100 for p in 50, 90, 95, 99: the rank below it and the one above.
  const CASES: Array<[count: number, ranks: number[]]> = [
    [1, [0]],
    [2, [0, 1]],
    [3, [1, 2]],
    [10, [4, 5, 8, 9]],
    [101, [50, 51, 90, 91, 95, 96, 99, 100]],
    [1_000_001, [500_000, 500_001, 900_000, 900_001, 950_000, 950_001, 990_000, 990_001]],
  ];
  for (const [count, ranks] of CASES) {
    it(`${count} values → ranks ${ranks.join(', ')}`, () => expect(percentileRanks(count)).to.deep.equal(ranks));
  }
});
