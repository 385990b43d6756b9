// POST /engine/query's statements per dialect, without a database (table-driven): the window's
// matching spans (bounds past the signed 64-bit range applied as what they mean, see
// src/storage/spans/time-bounds.ts), the page read in list order, and the total.
import { countQuery, windowQuery } from '../../../../src/storage/paging.js';
import { deepSpanPageQuery, matchingSpans, spanPageQuery, type WindowFilter } from '../../../../src/storage/spans/reads/span-pages.js';
import { SELECT_STORED_SPANS, sqlCases, validFilter, type SqlCase } from '../../../support/sql-cases.js';

const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);
const WINDOW: WindowFilter = {
  applicationId: 'app_a',
  startNs: 1763800000000000000n,
  endNs: 1763800060000000000n,
  filter: null,
  indexedSlots: [],
};
const START = '1763800000000000000';
const END = '1763800060000000000';

const SPANS = 'select * from `spans` as `s` where `s`.`application_id` = ?';

const MATCHING: Array<SqlCase<WindowFilter>> = [
  [
    'a window inside the range: both bounds, bound as exact decimal text',
    WINDOW,
    {
      sqlite: {
        sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER)`,
        bindings: ['app_a', START, END],
      },
      mysql: {
        sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED)`,
        bindings: ['app_a', START, END],
      },
    },
  ],
  [
    'a filter, on the span columns, after the window',
    { ...WINDOW, filter: validFilter({ field: 'span_name', op: 'eq', value: 'GET /a' }) },
    {
      sqlite: {
        sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER) and (s.span_name = ?)`,
        bindings: ['app_a', START, END, 'GET /a'],
      },
      mysql: {
        sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED) and ((s.span_name = ? AND s.span_name LIKE ? ESCAPE '!'))`,
        bindings: ['app_a', START, END, 'GET /a', 'GET /a'],
      },
    },
  ],
  [
    'a start past 2^63 - 1: nothing matches',
    { ...WINDOW, startNs: MAX + 1n },
    {
      sqlite: { sql: `${SPANS} and 1 = 0 and s.start_time_unix_nano < CAST(? AS INTEGER)`, bindings: ['app_a', END] },
      mysql: { sql: `${SPANS} and 1 = 0 and s.start_time_unix_nano < CAST(? AS SIGNED)`, bindings: ['app_a', END] },
    },
  ],
  [
    'a start of 2^63 - 1: bound',
    { ...WINDOW, startNs: MAX, endNs: MAX + 1n },
    {
      sqlite: { sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS INTEGER)`, bindings: ['app_a', '9223372036854775807'] },
      mysql: { sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS SIGNED)`, bindings: ['app_a', '9223372036854775807'] },
    },
  ],
  [
    'a start at -2^63: no lower bound',
    { ...WINDOW, startNs: MIN },
    {
      sqlite: { sql: `${SPANS} and s.start_time_unix_nano < CAST(? AS INTEGER)`, bindings: ['app_a', END] },
      mysql: { sql: `${SPANS} and s.start_time_unix_nano < CAST(? AS SIGNED)`, bindings: ['app_a', END] },
    },
  ],
  [
    'a start below -2^63: no lower bound',
    { ...WINDOW, startNs: MIN - 10n ** 20n },
    {
      sqlite: { sql: `${SPANS} and s.start_time_unix_nano < CAST(? AS INTEGER)`, bindings: ['app_a', END] },
      mysql: { sql: `${SPANS} and s.start_time_unix_nano < CAST(? AS SIGNED)`, bindings: ['app_a', END] },
    },
  ],
  [
    'a start of -2^63 + 1: bound',
    { ...WINDOW, startNs: MIN + 1n },
    {
      sqlite: {
        sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER)`,
        bindings: ['app_a', '-9223372036854775807', END],
      },
      mysql: {
        sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED)`,
        bindings: ['app_a', '-9223372036854775807', END],
      },
    },
  ],
  [
    'an end at -2^63: nothing matches',
    { ...WINDOW, startNs: MIN, endNs: MIN },
    {
      sqlite: { sql: `${SPANS} and 1 = 0`, bindings: ['app_a'] },
      mysql: { sql: `${SPANS} and 1 = 0`, bindings: ['app_a'] },
    },
  ],
  [
    'an end below -2^63 after a start inside: nothing matches',
    { ...WINDOW, endNs: MIN - 1n },
    {
      sqlite: { sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS INTEGER) and 1 = 0`, bindings: ['app_a', START] },
      mysql: { sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS SIGNED) and 1 = 0`, bindings: ['app_a', START] },
    },
  ],
  [
    'an end of -2^63 + 1: bound',
    { ...WINDOW, startNs: MIN, endNs: MIN + 1n },
    {
      sqlite: { sql: `${SPANS} and s.start_time_unix_nano < CAST(? AS INTEGER)`, bindings: ['app_a', '-9223372036854775807'] },
      mysql: { sql: `${SPANS} and s.start_time_unix_nano < CAST(? AS SIGNED)`, bindings: ['app_a', '-9223372036854775807'] },
    },
  ],
  [
    'an end of 2^63 - 1: bound',
    { ...WINDOW, endNs: MAX },
    {
      sqlite: {
        sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER)`,
        bindings: ['app_a', START, '9223372036854775807'],
      },
      mysql: {
        sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED)`,
        bindings: ['app_a', START, '9223372036854775807'],
      },
    },
  ],
  [
    'an end past 2^63 - 1: no upper bound',
    { ...WINDOW, endNs: 2n ** 64n },
    {
      sqlite: { sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS INTEGER)`, bindings: ['app_a', START] },
      mysql: { sql: `${SPANS} and s.start_time_unix_nano >= CAST(? AS SIGNED)`, bindings: ['app_a', START] },
    },
  ],
  [
    'both bounds past the range on either side: no bound at all',
    { ...WINDOW, startNs: MIN - 1n, endNs: MAX + 1n },
    {
      sqlite: { sql: SPANS, bindings: ['app_a'] },
      mysql: { sql: SPANS, bindings: ['app_a'] },
    },
  ],
];

const PAGES: Array<SqlCase<{ query: WindowFilter; offset: number }>> = [
  [
    'page 3 of 20: newest first, ties by trace and span id; the window as a limit and an offset',
    { query: WINDOW, offset: 40 },
    {
      sqlite: {
        sql:
          `${SELECT_STORED_SPANS.sqlite} where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER) ` +
          'order by `s`.`start_time_unix_nano` desc, `s`.`trace_id` asc, `s`.`span_id` asc limit ? offset ?',
        bindings: ['app_a', START, END, 20, 40],
      },
      mysql: {
        sql:
          `${SELECT_STORED_SPANS.mysql} where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED) ` +
          'order by `s`.`start_time_unix_nano` desc, `s`.`trace_id` asc, `s`.`span_id` asc limit ? offset ?',
        bindings: ['app_a', START, END, 20, 40],
      },
    },
  ],
  [
    'the first page, with a filter: no offset',
    { query: { ...WINDOW, filter: validFilter({ field: 'cost', op: 'gte', value: '0.5' }) }, offset: 0 },
    {
      sqlite: {
        sql:
          `${SELECT_STORED_SPANS.sqlite} where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER) and (s.cost >= ?) ` +
          'order by `s`.`start_time_unix_nano` desc, `s`.`trace_id` asc, `s`.`span_id` asc limit ?',
        bindings: ['app_a', START, END, 0.5, 20],
      },
      mysql: {
        sql:
          `${SELECT_STORED_SPANS.mysql} where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED) and (s.cost >= ?) ` +
          'order by `s`.`start_time_unix_nano` desc, `s`.`trace_id` asc, `s`.`span_id` asc limit ?',
        bindings: ['app_a', START, END, 0.5, 20],
      },
    },
  ],
];

const ORDER = 'order by `s`.`start_time_unix_nano` desc, `s`.`trace_id` asc, `s`.`span_id` asc';
const DEEP: Array<SqlCase<WindowFilter>> = [
  [
    'a deep page as a deferred join: the keys past the offset from the window alone, then those rows in full, in list order',
    WINDOW,
    {
      sqlite: {
        sql:
          `${SELECT_STORED_SPANS.sqlite} inner join (select \`s\`.\`application_id\`, \`s\`.\`trace_id\`, \`s\`.\`span_id\` from \`spans\` as \`s\` where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER) ${ORDER} limit ? offset ?) as \`k\` ` +
          `on \`s\`.\`application_id\` = \`k\`.\`application_id\` and \`s\`.\`trace_id\` = \`k\`.\`trace_id\` and \`s\`.\`span_id\` = \`k\`.\`span_id\` ${ORDER}`,
        bindings: ['app_a', START, END, 21, 40],
      },
      mysql: {
        sql:
          `${SELECT_STORED_SPANS.mysql} inner join (select \`s\`.\`application_id\`, \`s\`.\`trace_id\`, \`s\`.\`span_id\` from \`spans\` as \`s\` where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED) ${ORDER} limit ? offset ?) as \`k\` ` +
          `on \`s\`.\`application_id\` = \`k\`.\`application_id\` and \`s\`.\`trace_id\` = \`k\`.\`trace_id\` and \`s\`.\`span_id\` = \`k\`.\`span_id\` ${ORDER}`,
        bindings: ['app_a', START, END, 21, 40],
      },
    },
  ],
];

const TOTALS: Array<SqlCase<WindowFilter>> = [
  [
    'COUNT(*) over the window',
    WINDOW,
    {
      sqlite: {
        sql: 'select count(*) as `total` from `spans` as `s` where `s`.`application_id` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER)',
        bindings: ['app_a', START, END],
      },
      mysql: {
        sql: 'select count(*) as `total` from `spans` as `s` where `s`.`application_id` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED)',
        bindings: ['app_a', START, END],
      },
    },
  ],
];

describe('span pages: SQL and bindings per dialect', () => {
  describe('matching spans', () => sqlCases(MATCHING, (knex, query) => matchingSpans(knex, query)));
  describe('the page read', () =>
    sqlCases(PAGES, (knex, { query, offset }) => windowQuery(spanPageQuery(knex, matchingSpans(knex, query)), { limit: 20, offset })));
  describe('a deep page', () =>
    sqlCases(DEEP, (knex, query) => deepSpanPageQuery(knex, matchingSpans(knex, query), { limit: 21, offset: 40 })));
  describe('the total', () => sqlCases(TOTALS, (knex, query) => countQuery(matchingSpans(knex, query))));
});
