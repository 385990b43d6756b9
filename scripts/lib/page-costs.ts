// A one-off measurement (not a test): what a deep `page` of POST /engine/query and POST /traces
// costs beside page 1 and beside the cursor read at the same depth, with the EXPLAIN of each
// statement, on a seeded database.
//
//   PAGE_COSTS_URL=mysql://user:password@127.0.0.1:3307/mysql npx tsx scripts/lib/page-costs.ts
//   npx tsx scripts/lib/page-costs.ts            # SQLite, in a temporary directory
//
// Data: PAGE_COSTS_SPANS (200,000) root spans of one application over one day, stored with the
// service's writer into a fresh database (spanledger_page_costs on MariaDB, dropped afterwards).
// Each read runs 3 times after a warm-up; the median is reported.
//
// PAGE_COSTS_CASES=sorts: POST /traces in each `sort` and `order` instead (page 1 and the cursor
// at page 1000, over the whole day and over one hour), each timed without and then with an index
// per sorted column, (application_id, column DESC, trace_id, root_start_time_unix_nano), added
// and dropped by the run. The roots then carry 1,000 costs and 5,000 durations, and one trace in
// four a child span or two, so that every sort has values to order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrations/index.js';
import { deepSpanPageQuery, findSpans, matchingSpans, spanPageQuery, SPAN_ORDER } from '../../src/storage/spans/reads/span-pages.js';
import {
  deepTracePageQuery,
  findTraces,
  matchingTraces,
  tracePageQuery,
  traceOrder,
  TRACE_ORDER,
  TRACE_SORTS,
  type TraceQuery,
  type TraceSort,
} from '../../src/storage/spans/traces/trace-pages.js';
import { afterKey } from '../../src/storage/keyset.js';
import { dialectFor } from '../../src/storage/sql/index.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { NO_LLM_CALL, type SpanRow } from '../../src/storage/spans/span-row.js';
import { seedApplication, seedOrganization } from './seed-accounts.js';

const SERVER = process.env.PAGE_COSTS_URL;
const SPANS = Number(process.env.PAGE_COSTS_SPANS ?? 200_000);
const DATABASE = 'spanledger_page_costs';
const DAY_START = BigInt(Date.UTC(2026, 10, 22)) * 1_000_000n;
const DAY = 86_400_000_000_000n;
const LIMIT = 20;
const DEEP = 1000;
const SORTS = process.env.PAGE_COSTS_CASES === 'sorts';
const HOUR = 3_600_000_000_000n;
/** The indexes the sort cases weigh: one per sorted summary column, in the list's default direction. */
const SORT_INDEXES = [
  ['bench_traces_by_cost', 'total_cost'],
  ['bench_traces_by_duration', 'duration_ms'],
  ['bench_traces_by_spans', 'spans_count'],
] as const;

async function open(): Promise<{ knex: Knex; drop: () => Promise<void> }> {
  if (!SERVER) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'page-costs-'));
    return { knex: openDatabase(undefined, dir), drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = openDatabase(SERVER, os.tmpdir());
  await admin.raw(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
  await admin.raw(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  const url = new URL(SERVER);
  url.pathname = `/${DATABASE}`;
  return {
    knex: openDatabase(url.toString(), os.tmpdir()),
    drop: async () => {
      await admin.raw(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
      await admin.destroy();
    },
  };
}

function span(applicationId: string, index: number): SpanRow {
  const start = DAY_START + (BigInt(index) * DAY) / BigInt(SPANS);
  return {
    application_id: applicationId,
    trace_id: index.toString(16).padStart(32, '0'),
    span_id: index.toString(16).padStart(16, '0'),
    parent_span_id: null,
    start_time_unix_nano: start.toString(),
    end_time_unix_nano: (start + 5_000_000n).toString(),
    duration_ms: 5,
    span_name: `op-${index % 7}`,
    span_kind: 'SPAN_KIND_SERVER',
    service_name: 'checkout',
    unit: null,
    parent_unit: null,
    cost: index % 3,
    billing_resource_type: null,
    billing_resource_name: null,
    billing_service_id: null,
    billing_service_name: null,
    billing_sku_id: null,
    billing_sku_name: null,
    billing_region: null,
    usage_amount: null,
    usage_unit: null,
    ...NO_LLM_CALL,
    resource_attributes: null,
    span_attributes: null,
    status_code: 'STATUS_CODE_OK',
    status_message: null,
    scope_name: null,
    scope_version: null,
    events: null,
    links: null,
    dropped_attributes_count: 0,
    dropped_events_count: 0,
    dropped_links_count: 0,
    received_at: Date.now(),
    indexed_value_1: null,
    indexed_value_2: null,
    indexed_value_3: null,
  };
}

/** The spans of trace `index` for the sort cases: the root with a cost and duration of its own, and one in four with children. */
function sortedCaseSpans(applicationId: string, index: number): SpanRow[] {
  const root = span(applicationId, index);
  const durationMs = 1 + ((index * 31) % 5000);
  const start = BigInt(root.start_time_unix_nano);
  const rows: SpanRow[] = [
    {
      ...root,
      end_time_unix_nano: (start + BigInt(durationMs) * 1_000_000n).toString(),
      duration_ms: durationMs,
      cost: ((index * 7919) % 1000) / 1000,
    },
  ];
  const children = index % 4 === 0 ? 1 + (index % 8 === 0 ? 1 : 0) : 0;
  for (let child = 1; child <= children; child += 1)
    rows.push({
      ...root,
      span_id: (index * 4 + child).toString(16).padStart(16, '0').replace(/^./, 'c'),
      parent_span_id: root.span_id,
      span_kind: 'SPAN_KIND_CLIENT',
      cost: 0.001 * child,
    });
  return rows;
}

async function median(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let index = 0; index < 3; index += 1) {
    const started = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times.sort((a, b) => a - b)[1] as number;
}

async function explain(knex: Knex, statement: Knex.QueryBuilder): Promise<string> {
  const { sql, bindings } = statement.toSQL().toNative();
  const prefix = dialectFor(knex).name === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
  const rows = (await knex.raw(prefix + sql, bindings as Knex.RawBinding[])) as unknown;
  const list = (Array.isArray(rows) && Array.isArray(rows[0]) ? rows[0] : rows) as Array<Record<string, unknown>>;
  return list
    .map((row) =>
      row.detail !== undefined
        ? String(row.detail)
        : `${String(row.table)}: type=${String(row.type)} key=${String(row.key)} rows=${String(row.rows)} ${String(row.Extra ?? '')}`,
    )
    .join(' | ');
}

/** Page 1 and the cursor at page DEEP of each sort and order, over the day and over its 12th hour; the deep page only where there are that many. */
async function timeSorts(knex: Knex, day: TraceQuery, label: string): Promise<void> {
  const hour = { ...day, startNs: DAY_START + 12n * HOUR, endNs: DAY_START + 13n * HOUR };
  for (const [windowName, query] of [
    ['day', day],
    ['hour', hour],
  ] as const) {
    for (const by of TRACE_SORTS) {
      for (const order of ['desc', 'asc'] as const) {
        const sort: TraceSort = { by, order };
        const sorted = { ...query, sort };
        const first = await median(() => findTraces(knex, { ...sorted, page: 1, limit: LIMIT }));
        const before = (await findTraces(knex, { ...sorted, page: DEEP - 1, limit: LIMIT })).nextKey;
        const deep = before ? await median(() => findTraces(knex, { ...sorted, page: DEEP, limit: LIMIT, after: before })) : undefined;
        const plan = await explain(knex, tracePageQuery(knex, matchingTraces(knex, sorted), traceOrder(sort)).limit(LIMIT + 1));
        console.log(
          `${label} ${windowName} ${by} ${order}: page 1 ${first.toFixed(1)} ms, cursor at page ${DEEP} ${deep === undefined ? '-' : `${deep.toFixed(1)} ms`}\n    ${plan}`,
        );
      }
    }
  }
}

/** The sort cases without the sort indexes, then with them (added, analysed, timed, dropped). */
async function sortCases(knex: Knex, window: Omit<TraceQuery, 'searchChildSpans'>): Promise<void> {
  const day: TraceQuery = { ...window, searchChildSpans: false };
  await knex.raw(dialectFor(knex).name === 'sqlite' ? 'ANALYZE' : 'ANALYZE TABLE traces');
  await timeSorts(knex, day, 'without');
  const started = Date.now();
  for (const [name, column] of SORT_INDEXES)
    await knex.raw(`CREATE INDEX ${name} ON traces (application_id, ${column} DESC, trace_id, root_start_time_unix_nano)`);
  console.log(`sort indexes built in ${Date.now() - started} ms`);
  await knex.raw(dialectFor(knex).name === 'sqlite' ? 'ANALYZE' : 'ANALYZE TABLE traces');
  try {
    await timeSorts(knex, day, 'with');
  } finally {
    for (const [name] of SORT_INDEXES)
      await knex.raw(dialectFor(knex).name === 'sqlite' ? `DROP INDEX ${name}` : `DROP INDEX ${name} ON traces`);
  }
}

/** The span and trace lists in their default order: page 1, page DEEP by offset and by deferred join, and the cursor at page DEEP. */
async function listCases(knex: Knex, window: Omit<TraceQuery, 'searchChildSpans'>): Promise<void> {
  const traces = { ...window, searchChildSpans: false };
  // The cursor at depth DEEP: the key of the last row of page DEEP - 1, as a next_cursor would carry.
  const spanBefore = (await findSpans(knex, { ...window, page: DEEP - 1, limit: LIMIT })).nextKey as string[];
  const traceBefore = (await findTraces(knex, { ...traces, page: DEEP - 1, limit: LIMIT })).nextKey as string[];
  const offset = (DEEP - 1) * LIMIT;
  const dialect = dialectFor(knex);
  const statements: Array<[string, () => Knex.QueryBuilder, () => Promise<unknown>]> = [
    [
      'spans page 1',
      () => spanPageQuery(knex, matchingSpans(knex, window)).limit(LIMIT + 1),
      () => findSpans(knex, { ...window, page: 1, limit: LIMIT }),
    ],
    [
      `spans page ${DEEP} (plain offset, as before)`,
      () =>
        spanPageQuery(knex, matchingSpans(knex, window))
          .limit(LIMIT + 1)
          .offset(offset),
      () => findSpans(knex, { ...window, page: DEEP, limit: LIMIT }),
    ],
    [
      `spans page ${DEEP} (deferred join)`,
      () => deepSpanPageQuery(knex, matchingSpans(knex, window), { limit: LIMIT + 1, offset }),
      () => findSpans(knex, { ...window, page: DEEP, limit: LIMIT }),
    ],
    [
      `spans cursor at page ${DEEP}`,
      () => spanPageQuery(knex, matchingSpans(knex, window).modify(afterKey(dialect, SPAN_ORDER, spanBefore))).limit(LIMIT + 1),
      () => findSpans(knex, { ...window, page: DEEP, limit: LIMIT, after: spanBefore }),
    ],
    [
      'traces page 1',
      () => tracePageQuery(knex, matchingTraces(knex, traces)).limit(LIMIT + 1),
      () => findTraces(knex, { ...traces, page: 1, limit: LIMIT }),
    ],
    [
      `traces page ${DEEP} (plain offset, as before)`,
      () =>
        tracePageQuery(knex, matchingTraces(knex, traces))
          .limit(LIMIT + 1)
          .offset(offset),
      () => findTraces(knex, { ...traces, page: DEEP, limit: LIMIT }),
    ],
    [
      `traces page ${DEEP} (deferred join)`,
      () => deepTracePageQuery(knex, matchingTraces(knex, traces), { limit: LIMIT + 1, offset }),
      () => findTraces(knex, { ...traces, page: DEEP, limit: LIMIT }),
    ],
    [
      `traces cursor at page ${DEEP}`,
      () => tracePageQuery(knex, matchingTraces(knex, traces).modify(afterKey(dialect, TRACE_ORDER, traceBefore))).limit(LIMIT + 1),
      () => findTraces(knex, { ...traces, page: DEEP, limit: LIMIT, after: traceBefore }),
    ],
  ];
  for (const [name, statement, read] of statements) {
    const page = await median(() => statement());
    const whole = await median(read);
    console.log(
      `${name}: page statement ${page.toFixed(1)} ms, read with total ${whole.toFixed(1)} ms\n    ${await explain(knex, statement())}`,
    );
  }
}

const { knex, drop } = await open();
try {
  await migrateToLatest(knex);
  const organizationId = await seedOrganization(knex, {});
  const applicationId = await seedApplication(knex, organizationId);
  const started = Date.now();
  for (let from = 0; from < SPANS; from += 2000) {
    const indexes = Array.from({ length: Math.min(2000, SPANS - from) }, (_unused, offset) => from + offset);
    await storeSpans(
      knex,
      SORTS ? indexes.flatMap((index) => sortedCaseSpans(applicationId, index)) : indexes.map((index) => span(applicationId, index)),
    );
  }
  console.log(`${dialectFor(knex).name}: seeded ${SPANS} ${SORTS ? 'traces' : 'spans'} in ${Date.now() - started} ms`);
  const window = { applicationId, startNs: DAY_START, endNs: DAY_START + DAY, filter: null, indexedSlots: [] };
  if (SORTS) await sortCases(knex, window);
  else await listCases(knex, window);
} finally {
  await knex.destroy();
  await drop();
}
