// The live endpoints' reads per dialect, without a database (table-driven): GET /traces/live's
// page (without a window along the receive order; with one, the keys through the window's index)
// and its total, and the stream's reads by receive sequence, bound as exact decimal text (the
// gaps of the other applications' sequences, and spans in runs of sequences, included).
import type { Knex } from 'knex';
import { windowQuery } from '../../../../src/storage/paging.js';
import {
  countSeqsBetweenQuery,
  latestSeqQuery,
  newestSpansQuery,
  othersGapsQuery,
  recentTotalQuery,
  seqsBetweenQuery,
  spansAfterQuery,
  spansBySeqQuery,
  spansInRangesQuery,
  windowSeqsQuery,
  type RecentSpansQuery,
} from '../../../../src/storage/spans/reads/live-reads.js';
import { SELECT_STORED_SPANS, sqlCases, type SqlCase } from '../../../support/sql-cases.js';

const NO_WINDOW: RecentSpansQuery = { applicationId: 'app_a', startNs: undefined, endNs: undefined };
const START = '1763800000000000000';
const END = '1763800060000000000';

const SQLITE_SPANS = SELECT_STORED_SPANS.sqlite;
const MYSQL_SPANS = SELECT_STORED_SPANS.mysql;

type Build = (knex: Knex) => Knex.QueryBuilder;

const CASES: Array<SqlCase<Build>> = [
  [
    'without a window, page 2 of 50: spans newest received first',
    (knex) => windowQuery(newestSpansQuery(knex, NO_WINDOW), { limit: 50, offset: 50 }),
    {
      sqlite: {
        sql: `${SQLITE_SPANS} where \`s\`.\`application_id\` = ? order by \`s\`.\`seq\` desc limit ? offset ?`,
        bindings: ['app_a', 50, 50],
      },
      mysql: {
        sql: `${MYSQL_SPANS} where \`s\`.\`application_id\` = ? order by \`s\`.\`seq\` desc limit ? offset ?`,
        bindings: ['app_a', 50, 50],
      },
    },
  ],
  [
    'with a window: the keys through the window index (INDEXED BY / FORCE INDEX)',
    (knex) => windowQuery(windowSeqsQuery(knex, { ...NO_WINDOW, startNs: BigInt(START), endNs: BigInt(END) }), { limit: 50, offset: 0 }),
    {
      sqlite: {
        sql: 'select `s`.`seq` as `seq` from spans AS s INDEXED BY spans_newest_first where `s`.`application_id` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER) order by `s`.`seq` desc limit ?',
        bindings: ['app_a', START, END, 50],
      },
      mysql: {
        sql: 'select `s`.`seq` as `seq` from spans AS s FORCE INDEX (spans_newest_first) where `s`.`application_id` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED) order by `s`.`seq` desc limit ?',
        bindings: ['app_a', START, END, 50],
      },
    },
  ],
  [
    'with a start only: one bound',
    (knex) => windowQuery(windowSeqsQuery(knex, { ...NO_WINDOW, startNs: BigInt(START) }), { limit: 10, offset: 30 }),
    {
      sqlite: {
        sql: 'select `s`.`seq` as `seq` from spans AS s INDEXED BY spans_newest_first where `s`.`application_id` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) order by `s`.`seq` desc limit ? offset ?',
        bindings: ['app_a', START, 10, 30],
      },
      mysql: {
        sql: 'select `s`.`seq` as `seq` from spans AS s FORCE INDEX (spans_newest_first) where `s`.`application_id` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) order by `s`.`seq` desc limit ? offset ?',
        bindings: ['app_a', START, 10, 30],
      },
    },
  ],
  [
    'the total without a window: the summaries’ span counts',
    (knex) => recentTotalQuery(knex, NO_WINDOW),
    {
      sqlite: { sql: 'select sum(`spans_count`) as `total` from `traces` where `application_id` = ?', bindings: ['app_a'] },
      mysql: { sql: 'select sum(`spans_count`) as `total` from `traces` where `application_id` = ?', bindings: ['app_a'] },
    },
  ],
  [
    'the total with a window: COUNT(*) over it',
    (knex) => recentTotalQuery(knex, { ...NO_WINDOW, endNs: BigInt(END) }),
    {
      sqlite: {
        sql: 'select count(*) as `total` from `spans` as `s` where `s`.`application_id` = ? and s.start_time_unix_nano < CAST(? AS INTEGER)',
        bindings: ['app_a', END],
      },
      mysql: {
        sql: 'select count(*) as `total` from `spans` as `s` where `s`.`application_id` = ? and s.start_time_unix_nano < CAST(? AS SIGNED)',
        bindings: ['app_a', END],
      },
    },
  ],
  [
    'the latest receive sequence, as text',
    (knex) => latestSeqQuery(knex, 'app_a'),
    {
      sqlite: { sql: 'select CAST(MAX(seq) AS TEXT) as `latest` from `spans` where `application_id` = ?', bindings: ['app_a'] },
      mysql: { sql: 'select CAST(MAX(seq) AS CHAR) as `latest` from `spans` where `application_id` = ?', bindings: ['app_a'] },
    },
  ],
  [
    'sequences after one, no upper bound',
    (knex) => seqsBetweenQuery(knex, 'app_a', '9007199254740993', undefined, 100),
    {
      sqlite: {
        sql: 'select CAST(seq AS TEXT) as `seq` from `spans` where `application_id` = ? and seq > CAST(? AS INTEGER) order by `seq` asc limit ?',
        bindings: ['app_a', '9007199254740993', 100],
      },
      mysql: {
        sql: 'select CAST(seq AS CHAR) as `seq` from `spans` where `application_id` = ? and seq > CAST(? AS SIGNED) order by `seq` asc limit ?',
        bindings: ['app_a', '9007199254740993', 100],
      },
    },
  ],
  [
    'sequences in (after, upTo]',
    (knex) => seqsBetweenQuery(knex, 'app_a', '10', '20', 100),
    {
      sqlite: {
        sql: 'select CAST(seq AS TEXT) as `seq` from `spans` where `application_id` = ? and seq > CAST(? AS INTEGER) and seq <= CAST(? AS INTEGER) order by `seq` asc limit ?',
        bindings: ['app_a', '10', '20', 100],
      },
      mysql: {
        sql: 'select CAST(seq AS CHAR) as `seq` from `spans` where `application_id` = ? and seq > CAST(? AS SIGNED) and seq <= CAST(? AS SIGNED) order by `seq` asc limit ?',
        bindings: ['app_a', '10', '20', 100],
      },
    },
  ],
  [
    'counting the sequences in (after, upTo]',
    (knex) => countSeqsBetweenQuery(knex, 'app_a', '10', '20'),
    {
      sqlite: {
        sql: 'select count(*) as `total` from `spans` where `application_id` = ? and seq > CAST(? AS INTEGER) and seq <= CAST(? AS INTEGER)',
        bindings: ['app_a', '10', '20'],
      },
      mysql: {
        sql: 'select count(*) as `total` from `spans` where `application_id` = ? and seq > CAST(? AS SIGNED) and seq <= CAST(? AS SIGNED)',
        bindings: ['app_a', '10', '20'],
      },
    },
  ],
  // Exactly past 2^53 (Number() would read 9007199254740993 as ...992).
  [
    'spans by receive sequence, ascending',
    (knex) => spansBySeqQuery(knex, 'app_a', ['11', '12', '9007199254740993']),
    {
      sqlite: {
        sql: `${SQLITE_SPANS} where \`s\`.\`application_id\` = ? and \`s\`.\`seq\` in (?, ?, ?) order by \`s\`.\`seq\` asc`,
        bindings: ['app_a', 11, 12, 9007199254740993n],
      },
      mysql: {
        sql: `${MYSQL_SPANS} where \`s\`.\`application_id\` = ? and \`s\`.\`seq\` in (?, ?, ?) order by \`s\`.\`seq\` asc`,
        bindings: ['app_a', 11, 12, 9007199254740993n],
      },
    },
  ],
  [
    'spans after a receive sequence, ascending, at most a limit',
    (knex) => spansAfterQuery(knex, 'app_a', '9007199254740993', 100),
    {
      sqlite: {
        sql: `${SQLITE_SPANS} where \`s\`.\`application_id\` = ? and s.seq > CAST(? AS INTEGER) order by \`s\`.\`seq\` asc limit ?`,
        bindings: ['app_a', '9007199254740993', 100],
      },
      mysql: {
        sql: `${MYSQL_SPANS} where \`s\`.\`application_id\` = ? and s.seq > CAST(? AS SIGNED) order by \`s\`.\`seq\` asc limit ?`,
        bindings: ['app_a', '9007199254740993', 100],
      },
    },
  ],
  [
    'the gaps of the other applications’ sequences in (after, upTo], along seq (FORCE INDEX on MariaDB)',
    (knex) => othersGapsQuery(knex, 'app_a', '10', '20'),
    {
      sqlite: {
        sql: 'select CAST(g.seq AS TEXT) as `seq`, CAST(g.prev_seq AS TEXT) as `prev`, CASE WHEN g.next_seq IS NULL THEN 1 ELSE 0 END as `last` from (select `s`.`seq`, LAG(s.seq) OVER (ORDER BY s.seq) AS prev_seq, LEAD(s.seq) OVER (ORDER BY s.seq) AS next_seq from `spans` as `s` where `s`.`application_id` <> ? and s.seq > CAST(? AS INTEGER) and s.seq <= CAST(? AS INTEGER)) as `g` where g.prev_seq IS NULL OR g.seq - g.prev_seq > 1 OR g.next_seq IS NULL order by `g`.`seq` asc',
        bindings: ['app_a', '10', '20'],
      },
      mysql: {
        sql: 'select CAST(g.seq AS CHAR) as `seq`, CAST(g.prev_seq AS CHAR) as `prev`, CASE WHEN g.next_seq IS NULL THEN 1 ELSE 0 END as `last` from (select `s`.`seq`, LAG(s.seq) OVER (ORDER BY s.seq) AS prev_seq, LEAD(s.seq) OVER (ORDER BY s.seq) AS next_seq from spans AS s FORCE INDEX (spans_seq) where `s`.`application_id` <> ? and s.seq > CAST(? AS SIGNED) and s.seq <= CAST(? AS SIGNED)) as `g` where g.prev_seq IS NULL OR g.seq - g.prev_seq > 1 OR g.next_seq IS NULL order by `g`.`seq` asc',
        bindings: ['app_a', '10', '20'],
      },
    },
  ],
  [
    'spans in runs of receive sequences, ascending',
    (knex) =>
      spansInRangesQuery(knex, 'app_a', [
        { low: 3n, high: 5n },
        { low: 9n, high: 9n },
      ]),
    {
      sqlite: {
        sql: `${SQLITE_SPANS} where \`s\`.\`application_id\` = ? and (s.seq BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER) or s.seq BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)) order by \`s\`.\`seq\` asc`,
        bindings: ['app_a', '3', '5', '9', '9'],
      },
      mysql: {
        sql: `${MYSQL_SPANS} where \`s\`.\`application_id\` = ? and (s.seq BETWEEN CAST(? AS SIGNED) AND CAST(? AS SIGNED) or s.seq BETWEEN CAST(? AS SIGNED) AND CAST(? AS SIGNED)) order by \`s\`.\`seq\` asc`,
        bindings: ['app_a', '3', '5', '9', '9'],
      },
    },
  ],
];

describe('live reads: SQL and bindings per dialect', () => sqlCases(CASES, (knex, build) => build(knex)));
