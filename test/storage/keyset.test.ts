// The keyset reads of the lists per dialect, without a database (table-driven): the rows after a
// cursor's position as a range bound on the first sort column and an OR-chain (src/storage/keyset.ts),
// on each list's page query. The cursor codec's tests are in test/request/paging-cursor.test.ts.
import { expect } from 'chai';
import { afterKey, isKeyPart } from '../../src/storage/keyset.js';
import { LIVE_ORDER, newestSpansQuery } from '../../src/storage/spans/reads/live-reads.js';
import { matchingSpans, SPAN_ORDER, spanPageQuery, type WindowFilter } from '../../src/storage/spans/reads/span-pages.js';
import { matchingTraces, TRACE_ORDER, traceOrder } from '../../src/storage/spans/traces/trace-pages.js';
import { dialectFor } from '../../src/storage/sql/index.js';
import { SELECT_STORED_SPANS, sqlCases, type SqlCase } from '../support/sql-cases.js';

const WINDOW: WindowFilter = {
  applicationId: 'app_a',
  startNs: 1763800000000000000n,
  endNs: 1763800060000000000n,
  filter: null,
  indexedSlots: [],
};
const START = '1763800000000000000';
const END = '1763800060000000000';
const AT = '1763800030000000007';
const TRACE = '0000000000000000000000000000000a';
const SPAN = '000000000000000b';

const SPAN_AFTER = (cast: string) =>
  `s.start_time_unix_nano <= ${cast} and (s.start_time_unix_nano < ${cast} or (s.start_time_unix_nano = ${cast} and (s.trace_id > ? or (s.trace_id = ? and (s.span_id > ?)))))`;

const KEYSETS: Array<SqlCase<'spans' | 'traces' | 'traces by cost' | 'live'>> = [
  [
    'spans after (start, trace_id, span_id): newest first, then ids ascending, bounded below the cursor start',
    'spans',
    {
      sqlite: {
        sql:
          `${SELECT_STORED_SPANS.sqlite} where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER) and ${SPAN_AFTER('CAST(? AS INTEGER)')} ` +
          'order by `s`.`start_time_unix_nano` desc, `s`.`trace_id` asc, `s`.`span_id` asc limit ?',
        bindings: ['app_a', START, END, AT, AT, AT, TRACE, TRACE, SPAN, 21],
      },
      mysql: {
        sql:
          `${SELECT_STORED_SPANS.mysql} where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED) and ${SPAN_AFTER('CAST(? AS SIGNED)')} ` +
          'order by `s`.`start_time_unix_nano` desc, `s`.`trace_id` asc, `s`.`span_id` asc limit ?',
        bindings: ['app_a', START, END, AT, AT, AT, TRACE, TRACE, SPAN, 21],
      },
    },
  ],
  [
    'traces after (min_start, trace_id)',
    'traces',
    {
      sqlite: {
        sql: 'select * from `traces` as `t` where `t`.`application_id` = ? and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS INTEGER) and t.root_start_time_unix_nano < CAST(? AS INTEGER) and t.min_start_time_unix_nano <= CAST(? AS INTEGER) and (t.min_start_time_unix_nano < CAST(? AS INTEGER) or (t.min_start_time_unix_nano = CAST(? AS INTEGER) and (t.trace_id > ?)))',
        bindings: ['app_a', START, END, AT, AT, AT, TRACE],
      },
      mysql: {
        sql: 'select * from `traces` as `t` where `t`.`application_id` = ? and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS SIGNED) and t.root_start_time_unix_nano < CAST(? AS SIGNED) and t.min_start_time_unix_nano <= CAST(? AS SIGNED) and (t.min_start_time_unix_nano < CAST(? AS SIGNED) or (t.min_start_time_unix_nano = CAST(? AS SIGNED) and (t.trace_id > ?)))',
        bindings: ['app_a', START, END, AT, AT, AT, TRACE],
      },
    },
  ],
  [
    'traces after (total_cost ascending, trace_id): the cost bound as the number the cursor wrote',
    'traces by cost',
    {
      sqlite: {
        sql: 'select * from `traces` as `t` where `t`.`application_id` = ? and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS INTEGER) and t.root_start_time_unix_nano < CAST(? AS INTEGER) and t.total_cost >= ? and (t.total_cost > ? or (t.total_cost = ? and (t.trace_id > ?)))',
        bindings: ['app_a', START, END, 0.30000000000000004, 0.30000000000000004, 0.30000000000000004, TRACE],
      },
      mysql: {
        sql: 'select * from `traces` as `t` where `t`.`application_id` = ? and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS SIGNED) and t.root_start_time_unix_nano < CAST(? AS SIGNED) and t.total_cost >= ? and (t.total_cost > ? or (t.total_cost = ? and (t.trace_id > ?)))',
        bindings: ['app_a', START, END, 0.30000000000000004, 0.30000000000000004, 0.30000000000000004, TRACE],
      },
    },
  ],
  [
    'live spans after a receive sequence (one column: a bound and a strict comparison)',
    'live',
    {
      sqlite: {
        sql: `${SELECT_STORED_SPANS.sqlite} where \`s\`.\`application_id\` = ? and s.seq <= CAST(? AS INTEGER) and (s.seq < CAST(? AS INTEGER)) order by \`s\`.\`seq\` desc`,
        bindings: ['app_a', '42', '42'],
      },
      mysql: {
        sql: `${SELECT_STORED_SPANS.mysql} where \`s\`.\`application_id\` = ? and s.seq <= CAST(? AS SIGNED) and (s.seq < CAST(? AS SIGNED)) order by \`s\`.\`seq\` desc`,
        bindings: ['app_a', '42', '42'],
      },
    },
  ],
];

describe('keyset reads: SQL and bindings per dialect', () => {
  sqlCases(KEYSETS, (knex, list) => {
    const dialect = dialectFor(knex);
    if (list === 'spans')
      return spanPageQuery(knex, matchingSpans(knex, WINDOW).modify(afterKey(dialect, SPAN_ORDER, [AT, TRACE, SPAN]))).limit(21);
    if (list === 'traces')
      return matchingTraces(knex, { ...WINDOW, searchChildSpans: false }).modify(afterKey(dialect, TRACE_ORDER, [AT, TRACE]));
    if (list === 'traces by cost')
      return matchingTraces(knex, { ...WINDOW, searchChildSpans: false }).modify(
        afterKey(dialect, traceOrder({ by: 'total_cost', order: 'asc' }), ['0.30000000000000004', TRACE]),
      );
    return newestSpansQuery(knex, { applicationId: 'app_a', startNs: undefined, endNs: undefined }).modify(
      afterKey(dialect, LIVE_ORDER, ['42']),
    );
  });

  it('takes as integer key parts only exact decimal text within the signed 64-bit range', () => {
    const integer = SPAN_ORDER[0]!;
    for (const good of ['0', '-1', '9223372036854775807', '-9223372036854775808', AT])
      expect(isKeyPart(integer, good), good).to.equal(true);
    for (const bad of ['', '01', '1e3', ' 1', '9223372036854775808', '-9223372036854775809', 'x', '1.5'])
      expect(isKeyPart(integer, bad), bad).to.equal(false);
    expect(isKeyPart(SPAN_ORDER[1]!, '')).to.equal(false);
  });

  it('takes as double key parts only finite numbers written as JavaScript writes them', () => {
    const cost = traceOrder({ by: 'total_cost', order: 'desc' })[0]!;
    for (const good of ['0', '1.5', '0.30000000000000004', '1e-7', '-2', '1.7976931348623157e+308'])
      expect(isKeyPart(cost, good), good).to.equal(true);
    for (const bad of ['', '0.10', '1e-07', '01', ' 1', 'Infinity', 'NaN', 'x', '1e400', '0x10'])
      expect(isKeyPart(cost, bad), bad).to.equal(false);
  });
});
