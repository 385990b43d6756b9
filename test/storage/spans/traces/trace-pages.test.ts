// POST /traces's statements per dialect, without a database (table-driven): the matching traces
// (no filter; a filter on the columns the summary copies from the root, without a join; a filter
// that needs the root span joined; a filter on any span, as EXISTS, or within the span times of the
// window's traces as a derived table, and those span times), the page read and the total.
import { countQuery, windowQuery } from '../../../../src/storage/paging.js';
import { matchingTraces, spanTimesQuery, tracePageQuery, type TraceQuery } from '../../../../src/storage/spans/traces/trace-pages.js';
import { sqlCases, validFilter, type SqlCase } from '../../../support/sql-cases.js';

const WINDOW: TraceQuery = {
  applicationId: 'app_a',
  startNs: 1763800000000000000n,
  endNs: 1763800060000000000n,
  filter: null,
  indexedSlots: [],
  searchChildSpans: false,
};
const START = '1763800000000000000';
const END = '1763800060000000000';
const PATH = '$."http.method"';

const TRACES = 'select * from `traces` as `t`';
const ROOT_JOIN =
  'inner join `spans` as `r` on `r`.`application_id` = `t`.`application_id` and `r`.`trace_id` = `t`.`trace_id` and `r`.`span_id` = `t`.`root_span_id`';
const SQLITE_WINDOW =
  'where `t`.`application_id` = ? and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS INTEGER) and t.root_start_time_unix_nano < CAST(? AS INTEGER)';
const MYSQL_WINDOW =
  'where `t`.`application_id` = ? and `t`.`root_start_time_unix_nano` is not null and t.root_start_time_unix_nano >= CAST(? AS SIGNED) and t.root_start_time_unix_nano < CAST(? AS SIGNED)';

const MATCHING: Array<SqlCase<TraceQuery>> = [
  [
    'no filter: the traces whose root starts in the window',
    WINDOW,
    {
      sqlite: { sql: `${TRACES} ${SQLITE_WINDOW}`, bindings: ['app_a', START, END] },
      mysql: { sql: `${TRACES} ${MYSQL_WINDOW}`, bindings: ['app_a', START, END] },
    },
  ],
  [
    'no filter, children searched: the same',
    { ...WINDOW, searchChildSpans: true },
    {
      sqlite: { sql: `${TRACES} ${SQLITE_WINDOW}`, bindings: ['app_a', START, END] },
      mysql: { sql: `${TRACES} ${MYSQL_WINDOW}`, bindings: ['app_a', START, END] },
    },
  ],
  [
    'a start past 2^63 - 1: nothing matches',
    { ...WINDOW, startNs: 2n ** 63n },
    {
      sqlite: {
        sql: `${TRACES} where \`t\`.\`application_id\` = ? and \`t\`.\`root_start_time_unix_nano\` is not null and 1 = 0 and t.root_start_time_unix_nano < CAST(? AS INTEGER)`,
        bindings: ['app_a', END],
      },
      mysql: {
        sql: `${TRACES} where \`t\`.\`application_id\` = ? and \`t\`.\`root_start_time_unix_nano\` is not null and 1 = 0 and t.root_start_time_unix_nano < CAST(? AS SIGNED)`,
        bindings: ['app_a', END],
      },
    },
  ],
  [
    'a filter on the columns the summary copies from the root: no join',
    {
      ...WINDOW,
      filter: validFilter({
        and: [
          { field: 'service_name', op: 'eq', value: 'api' },
          { field: 'unit', op: 'neq', value: 'u' },
        ],
      }),
    },
    {
      sqlite: { sql: `${TRACES} ${SQLITE_WINDOW} and (t.service_name = ? and t.unit <> ?)`, bindings: ['app_a', START, END, 'api', 'u'] },
      mysql: {
        sql: `${TRACES} ${MYSQL_WINDOW} and ((t.service_name = ? AND t.service_name LIKE ? ESCAPE '!') and t.unit NOT LIKE ? ESCAPE '!')`,
        bindings: ['app_a', START, END, 'api', 'api', 'u'],
      },
    },
  ],
  [
    'an attribute of the root: the root span joined',
    { ...WINDOW, filter: validFilter({ field: 'span_attributes.http.method', op: 'eq', value: 'GET' }) },
    {
      sqlite: {
        sql: `${TRACES} ${ROOT_JOIN} ${SQLITE_WINDOW} and ((CASE json_type(r.span_attributes, ?) WHEN 'text' THEN json_extract(r.span_attributes, ?) WHEN 'null' THEN NULL ELSE r.span_attributes -> ? END) = ?)`,
        bindings: ['app_a', START, END, PATH, PATH, PATH, 'GET'],
      },
      mysql: {
        sql: `${TRACES} ${ROOT_JOIN} ${MYSQL_WINDOW} and (CONVERT(JSON_VALUE(r.span_attributes, ?) USING utf8mb4) COLLATE utf8mb4_bin LIKE ? ESCAPE '!')`,
        bindings: ['app_a', START, END, PATH, 'GET'],
      },
    },
  ],
  [
    'a column the summary lacks: the root joined, summary columns still read from the summary',
    {
      ...WINDOW,
      filter: validFilter({
        or: [
          { field: 'span_name', op: 'eq', value: 'x' },
          { field: 'cost', op: 'gt', value: '1' },
        ],
      }),
    },
    {
      sqlite: {
        sql: `${TRACES} ${ROOT_JOIN} ${SQLITE_WINDOW} and (t.span_name = ? or r.cost > ?)`,
        bindings: ['app_a', START, END, 'x', 1],
      },
      mysql: {
        sql: `${TRACES} ${ROOT_JOIN} ${MYSQL_WINDOW} and ((t.span_name = ? AND t.span_name LIKE ? ESCAPE '!') or r.cost > ?)`,
        bindings: ['app_a', START, END, 'x', 'x', 1],
      },
    },
  ],
  [
    'children searched: any span of the trace, as EXISTS',
    { ...WINDOW, searchChildSpans: true, filter: validFilter({ field: 'span_name', op: 'starts_with', value: 'GET' }) },
    {
      sqlite: {
        sql: `${TRACES} ${SQLITE_WINDOW} and exists (select 1 from \`spans\` as \`s\` where s.application_id = t.application_id and s.trace_id = t.trace_id and (s.span_name GLOB ?))`,
        bindings: ['app_a', START, END, 'GET*'],
      },
      mysql: {
        sql: `${TRACES} ${MYSQL_WINDOW} and exists (select 1 from \`spans\` as \`s\` where s.application_id = t.application_id and s.trace_id = t.trace_id and (s.span_name LIKE ? ESCAPE '!'))`,
        bindings: ['app_a', START, END, 'GET%'],
      },
    },
  ],
  [
    'children searched within the span times: one range of spans, their distinct traces joined',
    {
      ...WINDOW,
      searchChildSpans: true,
      spanTimes: { startNs: 5n, endNs: 9n },
      filter: validFilter({ field: 'span_name', op: 'eq', value: 'x' }),
    },
    {
      sqlite: {
        sql:
          `${TRACES} inner join (select distinct \`s\`.\`trace_id\` from \`spans\` as \`s\` where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER) and (s.span_name = ?)) as \`m\` ` +
          `on \`m\`.\`trace_id\` = \`t\`.\`trace_id\` ${SQLITE_WINDOW}`,
        bindings: ['app_a', '5', '10', 'x', 'app_a', START, END],
      },
      mysql: {
        sql:
          `${TRACES} inner join (select distinct \`s\`.\`trace_id\` from \`spans\` as \`s\` where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED) and ((s.span_name = ? AND s.span_name LIKE ? ESCAPE '!'))) as \`m\` ` +
          `on \`m\`.\`trace_id\` = \`t\`.\`trace_id\` ${MYSQL_WINDOW}`,
        bindings: ['app_a', '5', '10', 'x', 'x', 'app_a', START, END],
      },
    },
  ],
  [
    "a trace field within the span times: the span's own summary joined after the span, in that order",
    {
      ...WINDOW,
      searchChildSpans: true,
      spanTimes: { startNs: 5n, endNs: 9n },
      filter: validFilter({ field: 'trace.spans_count', op: 'gt', value: 2 }, { traceFields: true }),
    },
    {
      sqlite: {
        sql:
          `${TRACES} inner join (select distinct \`s\`.\`trace_id\` from spans AS s CROSS JOIN traces AS u ON u.application_id = s.application_id AND u.trace_id = s.trace_id ` +
          `where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS INTEGER) and s.start_time_unix_nano < CAST(? AS INTEGER) and (u.spans_count > ?)) as \`m\` on \`m\`.\`trace_id\` = \`t\`.\`trace_id\` ${SQLITE_WINDOW}`,
        bindings: ['app_a', '5', '10', 2, 'app_a', START, END],
      },
      mysql: {
        sql:
          `${TRACES} inner join (select distinct \`s\`.\`trace_id\` from spans AS s STRAIGHT_JOIN traces AS u ON u.application_id = s.application_id AND u.trace_id = s.trace_id ` +
          `where \`s\`.\`application_id\` = ? and s.start_time_unix_nano >= CAST(? AS SIGNED) and s.start_time_unix_nano < CAST(? AS SIGNED) and (u.spans_count > ?)) as \`m\` on \`m\`.\`trace_id\` = \`t\`.\`trace_id\` ${MYSQL_WINDOW}`,
        bindings: ['app_a', '5', '10', 2, 'app_a', START, END],
      },
    },
  ],
  [
    'no trace in the window (span times null): no span read',
    { ...WINDOW, searchChildSpans: true, spanTimes: null, filter: validFilter({ field: 'span_name', op: 'eq', value: 'x' }) },
    {
      sqlite: {
        sql: `${TRACES} inner join (select distinct \`s\`.\`trace_id\` from \`spans\` as \`s\` where \`s\`.\`application_id\` = ? and 1 = 0 and (s.span_name = ?)) as \`m\` on \`m\`.\`trace_id\` = \`t\`.\`trace_id\` ${SQLITE_WINDOW}`,
        bindings: ['app_a', 'x', 'app_a', START, END],
      },
      mysql: {
        sql: `${TRACES} inner join (select distinct \`s\`.\`trace_id\` from \`spans\` as \`s\` where \`s\`.\`application_id\` = ? and 1 = 0 and ((s.span_name = ? AND s.span_name LIKE ? ESCAPE '!'))) as \`m\` on \`m\`.\`trace_id\` = \`t\`.\`trace_id\` ${MYSQL_WINDOW}`,
        bindings: ['app_a', 'x', 'x', 'app_a', START, END],
      },
    },
  ],
];

const SPAN_TIMES: Array<SqlCase<TraceQuery>> = [
  [
    "the earliest start and the latest end of the window's traces, as text",
    WINDOW,
    {
      sqlite: {
        sql:
          'select CAST(MIN(t.min_start_time_unix_nano) AS TEXT) as `first`, CAST(MAX(t.max_end_time_unix_nano) AS TEXT) as `last` from `traces` as `t` ' +
          SQLITE_WINDOW,
        bindings: ['app_a', START, END],
      },
      mysql: {
        sql:
          'select CAST(MIN(t.min_start_time_unix_nano) AS CHAR) as `first`, CAST(MAX(t.max_end_time_unix_nano) AS CHAR) as `last` from `traces` as `t` ' +
          MYSQL_WINDOW,
        bindings: ['app_a', START, END],
      },
    },
  ],
];

const SUMMARY_COLUMNS =
  '`t`.`trace_id`, `t`.`span_name`, `t`.`duration_ms`, `t`.`spans_count`, `t`.`total_cost`, `t`.`error_count`, `t`.`service_name`, `t`.`unit`, `t`.`parent_unit`';
const ORDER = 'order by `t`.`min_start_time_unix_nano` desc, `t`.`trace_id` asc';

const PAGES: Array<SqlCase<{ query: TraceQuery; offset: number }>> = [
  [
    'the first page: summaries, latest first; no offset',
    { query: WINDOW, offset: 0 },
    {
      sqlite: {
        sql: `select ${SUMMARY_COLUMNS}, CAST(t.min_start_time_unix_nano AS TEXT) as \`min_start_time_unix_nano\` from \`traces\` as \`t\` ${SQLITE_WINDOW} ${ORDER} limit ?`,
        bindings: ['app_a', START, END, 20],
      },
      mysql: {
        sql: `select ${SUMMARY_COLUMNS}, CAST(t.min_start_time_unix_nano AS CHAR) as \`min_start_time_unix_nano\` from \`traces\` as \`t\` ${MYSQL_WINDOW} ${ORDER} limit ?`,
        bindings: ['app_a', START, END, 20],
      },
    },
  ],
  [
    'page 2, through the root join',
    { query: { ...WINDOW, filter: validFilter({ field: 'cost', op: 'gt', value: '1' }) }, offset: 20 },
    {
      sqlite: {
        sql: `select ${SUMMARY_COLUMNS}, CAST(t.min_start_time_unix_nano AS TEXT) as \`min_start_time_unix_nano\` from \`traces\` as \`t\` ${ROOT_JOIN} ${SQLITE_WINDOW} and (r.cost > ?) ${ORDER} limit ? offset ?`,
        bindings: ['app_a', START, END, 1, 20, 20],
      },
      mysql: {
        sql: `select ${SUMMARY_COLUMNS}, CAST(t.min_start_time_unix_nano AS CHAR) as \`min_start_time_unix_nano\` from \`traces\` as \`t\` ${ROOT_JOIN} ${MYSQL_WINDOW} and (r.cost > ?) ${ORDER} limit ? offset ?`,
        bindings: ['app_a', START, END, 1, 20, 20],
      },
    },
  ],
];

const TOTALS: Array<SqlCase<TraceQuery>> = [
  [
    'COUNT(*) over the matching traces',
    WINDOW,
    {
      sqlite: { sql: `select count(*) as \`total\` from \`traces\` as \`t\` ${SQLITE_WINDOW}`, bindings: ['app_a', START, END] },
      mysql: { sql: `select count(*) as \`total\` from \`traces\` as \`t\` ${MYSQL_WINDOW}`, bindings: ['app_a', START, END] },
    },
  ],
  [
    'COUNT(*) through the root join: one row per trace',
    { ...WINDOW, filter: validFilter({ field: 'cost', op: 'gt', value: '1' }) },
    {
      sqlite: {
        sql: `select count(*) as \`total\` from \`traces\` as \`t\` ${ROOT_JOIN} ${SQLITE_WINDOW} and (r.cost > ?)`,
        bindings: ['app_a', START, END, 1],
      },
      mysql: {
        sql: `select count(*) as \`total\` from \`traces\` as \`t\` ${ROOT_JOIN} ${MYSQL_WINDOW} and (r.cost > ?)`,
        bindings: ['app_a', START, END, 1],
      },
    },
  ],
];

describe('trace pages: SQL and bindings per dialect', () => {
  describe('matching traces', () => sqlCases(MATCHING, (knex, query) => matchingTraces(knex, query)));
  describe("the span times of the window's traces", () => sqlCases(SPAN_TIMES, (knex, query) => spanTimesQuery(knex, query)));
  describe('the page read', () =>
    sqlCases(PAGES, (knex, { query, offset }) => windowQuery(tracePageQuery(knex, matchingTraces(knex, query)), { limit: 20, offset })));
  describe('the total', () => sqlCases(TOTALS, (knex, query) => countQuery(matchingTraces(knex, query))));
});
