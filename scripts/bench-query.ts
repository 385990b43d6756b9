// `npm run bench:query`: latency of the engine's read endpoints on MariaDB/MySQL, each beside the
// equivalent hand-written SQL run straight through mysql2.
//
//   BENCH_MYSQL_URL=mysql://user:password@127.0.0.1:3307/mysql npm run bench:query
//   BENCH_SCALE=10m BENCH_MYSQL_URL=… npm run bench:query      # 10 million spans a day
//
// Data (scripts/lib/bench-query-workload.ts): a main day of traces of 10 spans, 1,000,000 spans
// by default (BENCH_SCALE=10m or BENCH_SPANS_PER_DAY=10000000 for 10 million; BENCH_TRACES, the
// number of traces, wins over both), and the 6 days before it at 1/10 of that density for the
// 7-day case, stored with the service's own writer (storeSpans, so the per-trace summaries are
// the real ones) into BENCH_QUERY_DATABASE on that server: spanledger_bench_query for the default
// scale, spanledger_bench_query_10m (_<spans>) for another, so that switching scale reseeds
// neither. The database is kept between runs; it is dropped, migrated and seeded again when it
// does not hold the expected spans, or with BENCH_RESEED=1 (after a schema change). The whole-day
// cases read the main day only. The service runs as a child process on it; each case is sent
// BENCH_RUNS times (30; fewer for the slow ones) one after another after 3 warm-up calls, and
// reported as p50 and p95 of the HTTP round trip; the hand-written SQL is what one would write by
// hand for the same answer, timed the same way, and both answers are checked to agree once per
// case. A call longer than BENCH_CASE_BUDGET_MS (60 s) stops its side of the case, its statements
// killed (scripts/lib/bounded-timing.ts), so that a run ends in bounded time.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import mysql from 'mysql2/promise';
import { percentileAt } from '../src/traces/trace-metrics.js';
import { analyticsCases } from './lib/bench-query-analytics.js';
import { firstValue, RATIO_TARGET, sqlNumber, type BenchCase, type SqlRow, type SqlStatement } from './lib/bench-query-case.js';
import {
  benchScale,
  DAY_NS,
  DAY_START_NS,
  FIRST_DAY_START_NS,
  HOUR_NS,
  INDEX_MODEL,
  MODEL_ATTRIBUTE_PATH,
  PRIOR_DAYS,
  PRIOR_DENSITY_DIVISOR,
  type BenchScale,
} from './lib/bench-query-workload.js';
import { defaultDatabase, mysqlBenchData, tracesPerDay } from './lib/bench-query-data.js';
import { apiKeyToken, log, startService } from './lib/bench-service.js';
import { OverBudget, timedWithinBudget, type Timing } from './lib/bounded-timing.js';
import { answerDifference, type AnswerValue } from './lib/same-answer.js';

const SERVER_URL = process.env.BENCH_MYSQL_URL;
const TRACES = tracesPerDay();
const SCALE: BenchScale = benchScale(TRACES);
const DATABASE = process.env.BENCH_QUERY_DATABASE ?? defaultDatabase(TRACES);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const BUDGET_MS = Number(process.env.BENCH_CASE_BUDGET_MS ?? 60_000);
/** BENCH_CASES=a,e1,g: only the cases of these labels (the letters in brackets; `e` takes e1 and e2); every case without it. */
const ONLY = process.env.BENCH_CASES ? new Set(process.env.BENCH_CASES.split(',').map((label) => label.trim())) : undefined;

function chosen(benchCase: BenchCase): boolean {
  const label = /^\((\w+)\)/.exec(benchCase.name)?.[1] ?? '';
  return ONLY === undefined || ONLY.has(label) || ONLY.has(label.replace(/\d+$/, ''));
}

// ---------------------------------------------------------------------------------------------
// The service and its caller.

/** The bench's application (created once with the data) and a fresh read:traces key's token. */
async function benchCaller(knex: Knex, applicationId: string, serviceUrl: string): Promise<Record<string, string>> {
  const token = await apiKeyToken(knex, serviceUrl, applicationId, ['read:traces']);
  return { authorization: `Bearer ${token}`, 'x-vendor-app-id': applicationId, 'content-type': 'application/json' };
}

/** The generation the model's slot files its per-trace values under; undefined when the model is not indexed. */
async function modelSlotGeneration(knex: Knex, applicationId: string): Promise<number | undefined> {
  const row = (await knex('applications').where({ id: applicationId }).first('indexed_attributes_state')) as
    { indexed_attributes_state: string | null } | undefined;
  const slot = row?.indexed_attributes_state
    ? (JSON.parse(row.indexed_attributes_state) as { slots: Array<{ path: string; since: number } | null> }).slots[0]
    : null;
  return slot?.path === MODEL_ATTRIBUTE_PATH ? slot.since : undefined;
}

// ---------------------------------------------------------------------------------------------
// The cases.

function rfc3339(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}

const SPAN_COLUMNS =
  'seq, trace_id, span_id, parent_span_id, CAST(start_time_unix_nano AS CHAR) AS start_ns, CAST(end_time_unix_nano AS CHAR) AS end_ns, duration_ms, span_name, span_kind, ' +
  'service_name, unit, parent_unit, cost, billing_resource_type, billing_resource_name, billing_service_id, billing_service_name, billing_sku_id, billing_sku_name, billing_region, ' +
  'usage_amount, usage_unit, CAST(resource_attributes AS CHAR) AS resource_attributes, CAST(span_attributes AS CHAR) AS span_attributes';
const SUMMARY_COLUMNS =
  'trace_id, span_name, duration_ms, spans_count, total_cost, CAST(min_start_time_unix_nano AS CHAR) AS min_start, service_name, unit, parent_unit';

/** Statistics over a set of traces by hand: the aggregates, then each figure's ranked values around its percentiles. */
function metricsSql(where: string, bindings: unknown[]): SqlStatement[] {
  const statements: SqlStatement[] = [
    // `+ 0e0`: the span count's mean as a double (AVG of an integer is a 4-decimal DECIMAL on MariaDB).
    [
      `SELECT COUNT(*) AS n, AVG(duration_ms) AS mean_0, STDDEV_POP(duration_ms) AS stddev_0, AVG(total_cost) AS mean_1, STDDEV_POP(total_cost) AS stddev_1, ` +
        `AVG(spans_count + 0e0) AS mean_2, STDDEV_POP(spans_count + 0e0) AS stddev_2 FROM traces t WHERE ${where}`,
      bindings,
    ],
  ];
  for (const column of ['duration_ms', 'total_cost', 'spans_count']) {
    statements.push([
      `SELECT v, rn FROM (SELECT t.${column} AS v, ROW_NUMBER() OVER (ORDER BY t.${column}) - 1 AS rn, COUNT(*) OVER () AS n FROM traces t WHERE ${where}) r ` +
        'WHERE rn IN (0, n - 1, (50 * (n - 1)) DIV 100, (50 * (n - 1)) DIV 100 + 1, (90 * (n - 1)) DIV 100, (90 * (n - 1)) DIV 100 + 1, ' +
        '(95 * (n - 1)) DIV 100, (95 * (n - 1)) DIV 100 + 1, (99 * (n - 1)) DIV 100, (99 * (n - 1)) DIV 100 + 1)',
      bindings,
    ]);
  }
  return statements;
}

/** A list's answer, checked on both sides: the total and the page's ids in order. */
type ListAnswer = { total: number; page: string[] };

const listMatches = (answer: AnswerValue) => String((answer as unknown as ListAnswer).total);

/** POST /engine/query's answer, and the COUNT(*) and page statements' (spans named by trace and span id). */
const spanListAnswers: BenchCase['answers'] = {
  endpoint: (text) => {
    const body = JSON.parse(text) as { total: number; data: Array<{ trace_id: string; span_id: string }> };
    return { total: body.total, page: body.data.map((span) => `${span.trace_id}/${span.span_id}`) };
  },
  sql: ([count, page]) => ({
    total: sqlNumber(firstValue(count)),
    page: (page ?? []).map((row) => `${String(row.trace_id)}/${String(row.span_id)}`),
  }),
  matches: listMatches,
};

/** POST /traces's answer, and the COUNT(*) and page statements'. */
const traceListAnswers: BenchCase['answers'] = {
  endpoint: (text) => {
    const body = JSON.parse(text) as { pagination: { total: number }; data: Array<{ trace_id: string }> };
    return { total: body.pagination.total, page: body.data.map((trace) => trace.trace_id) };
  },
  sql: ([count, page]) => ({ total: sqlNumber(firstValue(count)), page: (page ?? []).map((row) => String(row.trace_id)) }),
  matches: listMatches,
};

const METRIC_FIGURES = ['duration', 'cost', 'spans_per_trace'] as const;
const DISTRIBUTION_FIELDS = ['mean', 'stddev', 'min', 'max', 'p50', 'p90', 'p95', 'p99'] as const;
type Distribution = Record<(typeof DISTRIBUTION_FIELDS)[number], number>;

/**
 * POST /engine/metrics's answer, every statistic but the median (= p50), and the same from the
 * aggregate statement and the ranked values (percentiles interpolated as the endpoint's
 * document says, between the closest ranks).
 */
const metricsAnswers: BenchCase['answers'] = {
  endpoint: (text) => {
    const body = JSON.parse(text) as { trace_count: number } & Record<(typeof METRIC_FIGURES)[number], Distribution>;
    const answer: Record<string, AnswerValue> = { trace_count: body.trace_count };
    for (const figure of METRIC_FIGURES)
      answer[figure] = Object.fromEntries(DISTRIBUTION_FIELDS.map((field) => [field, body[figure][field]]));
    return answer;
  },
  sql: ([aggregates, ...ranked]) => {
    const row = aggregates?.[0] ?? {};
    const count = sqlNumber(row.n) ?? 0;
    const answer: Record<string, AnswerValue> = { trace_count: count };
    METRIC_FIGURES.forEach((figure, index) => {
      const byRank = new Map((ranked[index] ?? []).map((rankRow) => [sqlNumber(rankRow.rn) as number, sqlNumber(rankRow.v) as number]));
      const at = (percent: number) => percentileAt(percent, count, (rank) => byRank.get(rank) as number);
      answer[figure] =
        count === 0
          ? Object.fromEntries(DISTRIBUTION_FIELDS.map((field) => [field, 0]))
          : {
              mean: sqlNumber(row[`mean_${index}`]) as number,
              stddev: sqlNumber(row[`stddev_${index}`]) as number,
              min: byRank.get(0) as number,
              max: byRank.get(count - 1) as number,
              p50: at(50),
              p90: at(90),
              p95: at(95),
              p99: at(99),
            };
    });
    return answer;
  },
  matches: (answer) => String((answer as { trace_count: number }).trace_count),
};

function cases(applicationId: string, modelGeneration: number | undefined): BenchCase[] {
  const hourStart = DAY_START_NS + 12n * HOUR_NS;
  const hour = { start_time: rfc3339(hourStart), end_time: rfc3339(hourStart + HOUR_NS) };
  const day = { start_time: rfc3339(DAY_START_NS), end_time: rfc3339(DAY_START_NS + DAY_NS) };
  const hourNs = [String(hourStart), String(hourStart + HOUR_NS)];
  const dayNs = [String(DAY_START_NS), String(DAY_START_NS + DAY_NS)];
  const halfHour = HOUR_NS / 2n;
  const offHour = { start_time: rfc3339(DAY_START_NS + halfHour), end_time: rfc3339(DAY_START_NS + DAY_NS - halfHour) };
  const offHourNs = [String(DAY_START_NS + halfHour), String(DAY_START_NS + DAY_NS - halfHour)];
  const model = { field: 'span_attributes.gen_ai.request.model', op: 'eq', value: 'gemini-2.5-pro' };
  const service = { field: 'service_name', op: 'eq', value: 'checkout' };
  const spanWindow = 'application_id = ? AND start_time_unix_nano >= CAST(? AS SIGNED) AND start_time_unix_nano < CAST(? AS SIGNED)';
  const traceWindow =
    't.application_id = ? AND t.root_start_time_unix_nano >= CAST(? AS SIGNED) AND t.root_start_time_unix_nano < CAST(? AS SIGNED)';
  // The best hand-written SQL on this schema reads the indexed slot when the application has one.
  const modelOf = (alias: string) =>
    INDEX_MODEL ? `${alias}indexed_value_1` : `JSON_VALUE(${alias}span_attributes, '$."gen_ai.request.model"')`;
  const modelSql = `${modelOf('')} = ?`;
  // With the model indexed, the best SQL for "a span of the trace has the model" reads the
  // per-trace slot values (src/storage/spans/slots/trace-slot-values.ts); else the spans of each trace.
  const slotValues = `FROM trace_slot_values v WHERE v.application_id = ? AND v.slot = 1 AND v.generation = ${Number(modelGeneration)} AND v.value = ?`;
  const childModel = INDEX_MODEL
    ? `t.trace_id IN (SELECT v.trace_id ${slotValues.replace('v.application_id = ?', 'v.application_id = t.application_id')})`
    : `EXISTS (SELECT 1 FROM spans s WHERE s.application_id = t.application_id AND s.trace_id = t.trace_id AND ${modelOf('s.')} = ?)`;
  const valueWindow = 'v.root_start_time_unix_nano >= CAST(? AS SIGNED) AND v.root_start_time_unix_nano < CAST(? AS SIGNED)';
  const anySpanSql = (windowNs: string[]): SqlStatement[] =>
    INDEX_MODEL
      ? [
          [`SELECT COUNT(*) ${slotValues} AND ${valueWindow}`, [applicationId, 'gemini-2.5-pro', ...windowNs]],
          [
            `SELECT ${SUMMARY_COLUMNS.split(', ')
              .map((column) => (column.startsWith('CAST(') ? column.replace('CAST(', 'CAST(t.') : `t.${column}`))
              .join(', ')} FROM traces t JOIN (SELECT v.application_id, v.trace_id ${slotValues} AND ${valueWindow} ` +
              'ORDER BY v.min_start_time_unix_nano DESC, v.trace_id LIMIT 20) k ON t.application_id = k.application_id AND t.trace_id = k.trace_id ORDER BY t.min_start_time_unix_nano DESC, t.trace_id',
            [applicationId, 'gemini-2.5-pro', ...windowNs],
          ],
        ]
      : [
          [`SELECT COUNT(*) FROM traces t WHERE ${traceWindow} AND ${childModel}`, [applicationId, ...windowNs, 'gemini-2.5-pro']],
          [tracePage(`${traceWindow} AND ${childModel}`), [applicationId, ...windowNs, 'gemini-2.5-pro']],
        ];
  const tracePage = (where: string) =>
    `SELECT ${SUMMARY_COLUMNS} FROM traces t WHERE ${where} ORDER BY t.min_start_time_unix_nano DESC, t.trace_id LIMIT 20`;
  const slowRuns = Math.max(5, Math.round(RUNS / 3));
  const traceCases = (label: string, window: Record<string, string>, windowNs: string[], runs: number): BenchCase[] => [
    {
      name: `(b) POST /traces, ${label}, root service_name = checkout`,
      runs,
      targetP95Ms: label === 'one hour' ? 100 : undefined,
      ratioTarget: true,
      http: { path: '/traces', query: window, body: { filter: service } },
      sql: [
        [`SELECT COUNT(*) FROM traces t WHERE ${traceWindow} AND t.service_name = ?`, [applicationId, ...windowNs, 'checkout']],
        [tracePage(`${traceWindow} AND t.service_name = ?`), [applicationId, ...windowNs, 'checkout']],
      ],
      answers: traceListAnswers,
    },
    {
      name: `(c) POST /traces?search_child_spans=true, ${label}, any span's gen_ai.request.model = gemini-2.5-pro`,
      runs,
      targetP95Ms: label === 'one hour' ? 100 : 1000,
      ratioTarget: true,
      http: { path: '/traces', query: { ...window, search_child_spans: true }, body: { filter: model } },
      sql: anySpanSql(windowNs),
      answers: traceListAnswers,
    },
  ];
  // Before the first seeded day: no span at all.
  const emptyHour = [String(FIRST_DAY_START_NS - HOUR_NS), String(FIRST_DAY_START_NS)];
  return [
    {
      // What every call costs besides its SQL: HTTP, the token and application checks (two
      // queries), validation and the JSON answer; the statements themselves find nothing.
      name: '(0) POST /engine/query, an hour without spans: the fixed cost of a call',
      runs: RUNS,
      ratioTarget: false,
      http: {
        path: '/engine/query',
        query: { start_time: rfc3339(FIRST_DAY_START_NS - HOUR_NS), end_time: rfc3339(FIRST_DAY_START_NS) },
        body: { filter: null },
      },
      sql: [
        [`SELECT COUNT(*) FROM spans WHERE ${spanWindow}`, [applicationId, ...emptyHour]],
        [
          `SELECT ${SPAN_COLUMNS} FROM spans WHERE ${spanWindow} ORDER BY start_time_unix_nano DESC, trace_id, span_id LIMIT 20`,
          [applicationId, ...emptyHour],
        ],
      ],
      answers: spanListAnswers,
    },
    {
      name: '(a) POST /engine/query, one hour, span_attributes.gen_ai.request.model = gemini-2.5-pro',
      runs: RUNS,
      targetP95Ms: 100,
      ratioTarget: true,
      http: { path: '/engine/query', query: hour, body: { filter: model } },
      sql: [
        // With the model indexed, the total is counted in the slots' index (span_slot_values) alone.
        INDEX_MODEL
          ? [
              `SELECT COUNT(*) FROM span_slot_values WHERE ${spanWindow} AND slot = 1 AND value = ?`,
              [applicationId, ...hourNs, 'gemini-2.5-pro'],
            ]
          : [`SELECT COUNT(*) FROM spans WHERE ${spanWindow} AND ${modelSql}`, [applicationId, ...hourNs, 'gemini-2.5-pro']],
        [
          `SELECT ${SPAN_COLUMNS} FROM spans WHERE ${spanWindow} AND ${modelSql} ORDER BY start_time_unix_nano DESC, trace_id, span_id LIMIT 20`,
          [applicationId, ...hourNs, 'gemini-2.5-pro'],
        ],
      ],
      answers: spanListAnswers,
    },
    ...traceCases('one hour', hour, hourNs, RUNS),
    ...traceCases('whole day', day, dayNs, slowRuns),
    {
      name: '(d) POST /engine/metrics, whole day, no filter',
      runs: Math.max(10, Math.round(RUNS / 2)),
      targetP95Ms: 300,
      ratioTarget: true,
      http: { path: '/engine/metrics', query: day, body: { filter: null } },
      sql: metricsSql(traceWindow, [applicationId, ...dayNs]),
      answers: metricsAnswers,
    },
    {
      // Off the hour, as "the last 23 hours" would be: the partial hours at both edges are read
      // from the summaries (src/storage/spans/fold/README.md).
      name: '(d) POST /engine/metrics, 00:30 to 23:30 (off the hour), no filter',
      runs: Math.max(10, Math.round(RUNS / 2)),
      ratioTarget: true,
      http: { path: '/engine/metrics', query: offHour, body: { filter: null } },
      sql: metricsSql(traceWindow, [applicationId, ...offHourNs]),
      answers: metricsAnswers,
    },
    {
      name: "(d) POST /engine/metrics, whole day, any span's gen_ai.request.model = gemini-2.5-pro",
      runs: Math.max(5, Math.round(RUNS / 6)),
      ratioTarget: true,
      http: { path: '/engine/metrics', query: day, body: { filter: model } },
      sql: metricsSql(`${traceWindow} AND ${childModel}`, [applicationId, ...dayNs, 'gemini-2.5-pro']),
      answers: metricsAnswers,
    },
    ...analyticsCases(applicationId, slowRuns, modelGeneration),
  ];
}

// ---------------------------------------------------------------------------------------------
// Calls within the budget.

/** The statements other connections run on the bench database (the service's), killed until none is left. */
async function killServiceStatements(killer: mysql.Connection, spare: number[]): Promise<void> {
  let killed = 0;
  let quietSweeps = 0;
  for (let sweep = 0; sweep < 40 && quietSweeps < 2; sweep += 1) {
    const [rows] = (await killer.query(
      "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND COMMAND = 'Query' AND ID NOT IN (?)",
      [DATABASE, spare],
    )) as unknown as [Array<{ ID: number | string }>];
    quietSweeps = rows.length === 0 ? quietSweeps + 1 : 0;
    for (const row of rows) {
      await killer.query(`KILL QUERY ${Number(row.ID)}`).catch(() => undefined);
      killed += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  log(`  killed ${killed} statement(s) of the service`);
}

// The calls go through node:http over one keep-alive connection, as the ingest bench's senders
// do: fetch costs the client about 0.3 ms more a call, which the bare statements do not pay.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** POST `body` to `target`; its status and text, or OverBudget past BUDGET_MS (the request is dropped). */
function post(target: URL, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      target,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.setTimeout(BUDGET_MS, () => request.destroy(new OverBudget(BUDGET_MS)));
    request.on('error', reject);
    request.end(body);
  });
}

/** One call of the endpoint, its body's text; past the budget, the call is dropped and the service's statements killed. */
async function callEndpoint(
  benchCase: BenchCase,
  target: URL,
  headers: Record<string, string>,
  stop: () => Promise<void>,
): Promise<string> {
  let answer: { status: number; text: string };
  try {
    answer = await post(target, headers, JSON.stringify(benchCase.http.body));
  } catch (error) {
    if (!(error instanceof OverBudget)) throw error;
    await stop();
    throw error;
  }
  if (answer.status !== 200) throw new Error(`${benchCase.name}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.text;
}

/** The hand-written statements, one after another on `raw`; past the budget, the running one is killed from `killer`. */
async function callSql(statements: SqlStatement[], raw: mysql.Connection, killer: mysql.Connection): Promise<SqlRow[][]> {
  let overBudget = false;
  let killing: Promise<unknown> | undefined;
  const timer = setTimeout(() => {
    overBudget = true;
    killing = killer.query(`KILL QUERY ${raw.threadId}`).catch(() => undefined);
  }, BUDGET_MS);
  try {
    const results: SqlRow[][] = [];
    for (const [sql, bindings] of statements) {
      const [rows] = await raw.query(sql, bindings);
      results.push(rows as SqlRow[]);
    }
    if (overBudget) throw new OverBudget(BUDGET_MS);
    return results;
  } catch (error) {
    if (overBudget) throw new OverBudget(BUDGET_MS);
    throw error;
  } finally {
    clearTimeout(timer);
    await killing;
  }
}

// ---------------------------------------------------------------------------------------------
// The report.

function milliseconds(timing: Timing<unknown>, which: 'p50' | 'p95'): string {
  if (timing.kind === 'stopped') return which === 'p50' ? `> ${timing.budgetMs / 1000} s budget (stopped)` : '';
  return timing[which].toFixed(1);
}

/** Endpoint / SQL at p50; when only the SQL was stopped, the bound its budget gives. */
function ratioOf(endpoint: Timing<unknown>, sql: Timing<unknown>): { text: string; value?: number } {
  if (endpoint.kind === 'stopped') return { text: 'n/a' };
  if (sql.kind === 'stopped') return { text: `< ${(endpoint.p50 / sql.budgetMs).toFixed(2)}`, value: endpoint.p50 / sql.budgetMs };
  const value = endpoint.p50 / sql.p50;
  return { text: value.toFixed(2), value };
}

/** The issue's targets of the case, each marked met (✓) or missed (✗). */
function targetsOf(benchCase: BenchCase, endpoint: Timing<unknown>, ratio: number | undefined): string {
  const marks: string[] = [];
  if (benchCase.targetP95Ms !== undefined) {
    const met = endpoint.kind === 'measured' && endpoint.p95 <= benchCase.targetP95Ms;
    marks.push(
      `p95 ≤ ${benchCase.targetP95Ms >= 1000 ? `${benchCase.targetP95Ms / 1000} s` : `${benchCase.targetP95Ms} ms`} ${met ? '✓' : '✗'}`,
    );
  }
  if (benchCase.ratioTarget) marks.push(`≤ ${RATIO_TARGET}× SQL ${ratio !== undefined && ratio <= RATIO_TARGET ? '✓' : '✗'}`);
  return marks.join(', ');
}

function runsOf(timing: Timing<unknown>): string {
  return timing.kind === 'measured' ? String(timing.runs) : '0';
}

async function main(): Promise<void> {
  if (!SERVER_URL)
    throw new Error('set BENCH_MYSQL_URL, e.g. mysql://user:password@127.0.0.1:3307/mysql (the bench creates its own database there)');
  const { knex, url, applicationId } = await mysqlBenchData(SERVER_URL, DATABASE, SCALE);
  const priorSpans = SCALE.totalSpans - TRACES * 10;

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-bench-'));
  const service = await startService(url, dataDir);
  const raw = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
  // Kills what outlasts the budget: the service's statements, or raw's.
  const killer = await mysql.createConnection({ uri: url });
  const results: string[] = [];
  const mismatches: string[] = [];
  try {
    const headers = await benchCaller(knex, applicationId, service.url);
    const stopService = () => killServiceStatements(killer, [killer.threadId, raw.threadId]);
    for (const benchCase of cases(applicationId, await modelSlotGeneration(knex, applicationId)).filter(chosen)) {
      const target = new URL(benchCase.http.path, service.url);
      for (const [key, value] of Object.entries(benchCase.http.query)) target.searchParams.set(key, String(value));
      const endpoint = await timedWithinBudget(benchCase.runs, BUDGET_MS, async () =>
        benchCase.answers.endpoint(await callEndpoint(benchCase, target, headers, stopService)),
      );
      if (endpoint.kind === 'stopped') log(`  ${benchCase.name}: the endpoint took over ${BUDGET_MS} ms; stopped`);
      const handWritten = await timedWithinBudget(benchCase.runs, BUDGET_MS, async () =>
        benchCase.answers.sql(await callSql(benchCase.sql, raw, killer)),
      );
      if (handWritten.kind === 'stopped') {
        log(`  ${benchCase.name}: the hand-written SQL took over ${BUDGET_MS} ms; stopped`);
        // A KILL QUERY that arrived after the statement ended must not hit the next case.
        await raw.query('SELECT 1').catch(() => undefined);
      }
      let matches = '?';
      const answered = endpoint.kind === 'measured' ? endpoint.answer : handWritten.kind === 'measured' ? handWritten.answer : undefined;
      if (answered !== undefined) matches = benchCase.answers.matches(answered);
      if (endpoint.kind === 'measured' && handWritten.kind === 'measured') {
        const difference = answerDifference(endpoint.answer, handWritten.answer);
        if (difference) {
          mismatches.push(`${benchCase.name}: endpoint ≠ hand-written SQL at ${difference}`);
          matches = `ANSWERS DIFFER (${matches})`;
        }
      }
      const ratio = ratioOf(endpoint, handWritten);
      const line =
        `| ${benchCase.name} | ${matches} | ${milliseconds(endpoint, 'p50')} | ${milliseconds(endpoint, 'p95')} | ${milliseconds(handWritten, 'p50')} | ${milliseconds(handWritten, 'p95')} | ` +
        `${ratio.text} | ${targetsOf(benchCase, endpoint, ratio.value)} | ${runsOf(endpoint)} / ${runsOf(handWritten)} |`;
      log(line);
      results.push(line);
    }
  } finally {
    agent.destroy();
    await raw.end();
    await killer.end();
    service.child.kill('SIGTERM');
    await knex.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `Query latency, ${TRACES * 10} spans in ${TRACES} traces over one day (ms; the hand-written SQL runs through mysql2, without HTTP); ` +
        `the ${PRIOR_DAYS} days before it hold ${priorSpans} more spans (1/${PRIOR_DENSITY_DIVISOR} of the main day's density each), read only by the 7-day case:`,
      '',
      '| case | matches | endpoint p50 | endpoint p95 | hand-written SQL p50 | hand-written SQL p95 | endpoint / SQL (p50) | target | runs (endpoint / SQL) |',
      '|---|---:|---:|---:|---:|---:|---:|---|---:|',
      ...results,
      '',
    ].join('\n'),
  );
  if (mismatches.length > 0) throw new Error(`the endpoint and the hand-written SQL answered differently:\n${mismatches.join('\n')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
