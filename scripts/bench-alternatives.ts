// `npm run bench:alternatives`: the simplest alternatives to two derived structures, timed beside
// the endpoint that reads the structure, on the query bench's database (issue 32, "Fewer
// mechanisms, each justified by a measurement"):
//
//   BENCH_MYSQL_URL=mysql://user:password@127.0.0.1:3307/mysql npm run bench:alternatives
//
// - The trace fold (trace_figures, trace_histograms) against covering indexes on the trace
//   summaries: (d) whole-day and off-the-hour metrics, (f) count and p95 duration per root service
//   per hour. The count, means and spreads come from one walk of a covering index of the window;
//   each percentile is read exactly (the engine's p × (n − 1), interpolated between the ranks
//   around it) by walking an index in value order from its nearer end to the rank (LIMIT/OFFSET,
//   the window checked inside the index). (f) indexes its cells through two virtual columns, the
//   root's hour and service (a TEXT column is indexed only by a prefix, which cannot cover).
// - The slot roll-ups (slot_rollups) against reading the spans: (e2) count and cost per
//   gen_ai.request.model per hour, every span of the window read with its slot column and cost
//   (spans without the model make a group too, so the slots' index, which lists only spans with a
//   value, cannot answer it), and the floor of any index: the model groups' counts alone, read
//   from span_slot_values' lookup index only.
//
// The endpoint's cases are timed first, on the database as the service keeps it; the service is
// then stopped, the indexes and columns the alternatives need are added to `traces` where missing
// (their size is printed), the alternatives timed, their answers checked against the endpoint's,
// and what was added dropped again (BENCH_KEEP_ALTERNATIVES=1 keeps it). BENCH_QUERY_DATABASE (the
// 10m scale's spanledger_bench_query_10m by default) must have been seeded and filed by
// `npm run bench:query`. BENCH_RUNS measured calls a side (20) after warm-up; a call over
// BENCH_CASE_BUDGET_MS (60,000) stops its side.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import { percentileAt } from '../src/traces/trace-metrics.js';
import { endpointAnswer, spanAggregatesAnswer, spanAggregatesSql, type Window } from './lib/bench-query-analytics.js';
import type { SqlRow } from './lib/bench-query-case.js';
import { DAY_NS, DAY_START_NS, HOUR_NS, MODEL_ATTRIBUTE_PATH } from './lib/bench-query-workload.js';
import { apiKeyToken, databaseUrl, log, startService } from './lib/bench-service.js';
import { OverBudget, timedWithinBudget, type Timing } from './lib/bounded-timing.js';
import { answerDifference, type AnswerValue } from './lib/same-answer.js';

const SERVER_URL = process.env.BENCH_MYSQL_URL;
const DATABASE = process.env.BENCH_QUERY_DATABASE ?? 'spanledger_bench_query_10m';
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BUDGET_MS = Number(process.env.BENCH_CASE_BUDGET_MS ?? 60_000);
const KEEP = process.env.BENCH_KEEP_ALTERNATIVES === '1';

/** POST /engine/analytics's default row_limit; the alternatives compute no `other`. */
const ROW_LIMIT = 10;
const PERCENTS = [50, 90, 95, 99] as const;

// What the alternatives add to `traces`.
const VIRTUAL_COLUMNS: Array<[string, string]> = [
  ['bench_root_hour', `BIGINT AS (root_start_time_unix_nano DIV ${HOUR_NS}) VIRTUAL`],
  ['bench_root_service', 'VARBINARY(1020) AS (service_name) VIRTUAL'],
];
const INDEXES: Array<[string, string]> = [
  ['bench_traces_window', '(application_id, root_start_time_unix_nano, duration_ms, total_cost, spans_count)'],
  ['bench_traces_by_duration', '(application_id, duration_ms, root_start_time_unix_nano)'],
  ['bench_traces_by_cost', '(application_id, total_cost, root_start_time_unix_nano)'],
  ['bench_traces_by_spans', '(application_id, spans_count, root_start_time_unix_nano)'],
  ['bench_traces_cells', '(application_id, bench_root_service, bench_root_hour, duration_ms)'],
];
/** The metrics' figures: the endpoint's name, the summary column, and the index that orders it. */
const FIGURES = [
  ['duration', 'duration_ms', 'bench_traces_by_duration'],
  ['cost', 'total_cost', 'bench_traces_by_cost'],
  ['spans_per_trace', 'spans_count', 'bench_traces_by_spans'],
] as const;

const ROOT_WINDOW =
  'application_id = ? AND root_start_time_unix_nano >= CAST(? AS SIGNED) AND root_start_time_unix_nano < CAST(? AS SIGNED)';

type Run = (sql: string, bindings: unknown[]) => Promise<SqlRow[]>;

function rfc3339(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}

// ---------------------------------------------------------------------------------------------
// (d): metrics of the traces whose root starts in the window.

/** Runs of consecutive ranks, each read in one walk from the nearer end of the figure's index. */
function rankRuns(ranks: number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const rank of [...new Set(ranks)].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && last[1] + 1 === rank) last[1] = rank;
    else runs.push([rank, rank]);
  }
  return runs;
}

async function metricsFromIndexes(run: Run, applicationId: string, startNs: bigint, endNs: bigint): Promise<AnswerValue> {
  const window = [applicationId, String(startNs), String(endNs)];
  const [row = {}] = await run(
    'SELECT COUNT(*) AS n, AVG(duration_ms) AS mean_0, STDDEV_POP(duration_ms) AS stddev_0, AVG(total_cost) AS mean_1, STDDEV_POP(total_cost) AS stddev_1, ' +
      `AVG(spans_count + 0e0) AS mean_2, STDDEV_POP(spans_count + 0e0) AS stddev_2 FROM traces FORCE INDEX (bench_traces_window) WHERE ${ROOT_WINDOW}`,
    window,
  );
  const count = Number(row.n);
  const answer: Record<string, AnswerValue> = { trace_count: count };
  for (const [index, [figure, column, orderedBy]] of FIGURES.entries()) {
    if (count === 0) {
      answer[figure] = { mean: 0, stddev: 0, min: 0, max: 0, p50: 0, p90: 0, p95: 0, p99: 0 };
      continue;
    }
    const ranks = [0, count - 1];
    for (const percent of PERCENTS) {
      const low = Math.floor((percent * (count - 1)) / 100);
      ranks.push(low, Math.min(low + 1, count - 1));
    }
    const byRank = new Map<number, number>();
    for (const [first, last] of rankRuns(ranks)) {
      const ascending = first <= count - 1 - last;
      const values = await run(
        `SELECT ${column} AS v FROM traces FORCE INDEX (${orderedBy}) WHERE ${ROOT_WINDOW} ORDER BY ${column} ${ascending ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?`,
        [...window, last - first + 1, ascending ? first : count - 1 - last],
      );
      values.forEach((value, position) => byRank.set(ascending ? first + position : last - position, Number(value.v)));
    }
    const at = (percent: number) => percentileAt(percent, count, (rank) => byRank.get(rank) as number);
    answer[figure] = {
      mean: Number(row[`mean_${index}`]),
      stddev: Number(row[`stddev_${index}`]),
      min: byRank.get(0) as number,
      max: byRank.get(count - 1) as number,
      p50: at(50),
      p90: at(90),
      p95: at(95),
      p99: at(99),
    };
  }
  return answer;
}

/** POST /engine/metrics's answer without the median (= p50). */
function metricsAnswer(text: string): AnswerValue {
  const body = JSON.parse(text) as Record<string, unknown> & { trace_count: number };
  const answer: Record<string, AnswerValue> = { trace_count: body.trace_count };
  for (const [figure] of FIGURES) {
    const { mean, stddev, min, max, p50, p90, p95, p99 } = body[figure] as Record<string, number>;
    answer[figure] = { mean, stddev, min, max, p50, p90, p95, p99 } as Record<string, number>;
  }
  return answer;
}

// ---------------------------------------------------------------------------------------------
// (f): traces per root service and hour, count and a percentile of duration (whole-hour windows).

async function cellPercentilesFromIndex(run: Run, applicationId: string, window: Window, percent: number): Promise<AnswerValue> {
  const [firstHour, endHour] = [window.startNs / HOUR_NS, window.endNs / HOUR_NS];
  const services = (await run(
    'SELECT DISTINCT bench_root_service AS k FROM traces FORCE INDEX (bench_traces_cells) WHERE application_id = ?',
    [applicationId],
  )) as Array<{ k: Buffer | null }>;
  const named = services.flatMap((service) => (service.k === null ? [] : [service.k]));
  const serviceIn = [
    named.length > 0 ? 'bench_root_service IN (?)' : 'FALSE',
    ...(named.length < services.length ? ['bench_root_service IS NULL'] : []),
  ];
  const cells = (await run(
    'SELECT bench_root_service AS k, bench_root_hour AS h, COUNT(*) AS n FROM traces FORCE INDEX (bench_traces_cells) ' +
      `WHERE application_id = ? AND (${serviceIn.join(' OR ')}) AND bench_root_hour >= ? AND bench_root_hour < ? GROUP BY k, h`,
    [applicationId, ...(named.length > 0 ? [named] : []), String(firstHour), String(endHour)],
  )) as Array<{ k: Buffer | null; h: string; n: string }>;
  // The value at each cell's ranks around the percentile, walked from the top of the cell's range.
  const parts: string[] = [];
  const bindings: unknown[] = [];
  cells.forEach((cell, index) => {
    const count = Number(cell.n);
    const low = Math.floor((percent * (count - 1)) / 100);
    const high = Math.min(low + 1, count - 1);
    parts.push(
      `(SELECT ${index} AS c, duration_ms AS v FROM traces FORCE INDEX (bench_traces_cells) WHERE application_id = ? AND bench_root_service <=> ? ` +
        'AND bench_root_hour = ? ORDER BY duration_ms DESC LIMIT ? OFFSET ?)',
    );
    bindings.push(applicationId, cell.k, cell.h, high - low + 1, count - 1 - high);
  });
  const values = parts.length === 0 ? [] : await run(parts.join(' UNION ALL '), bindings);
  const key = (cell: { k: Buffer | null }) => (cell.k === null ? null : cell.k.toString('utf8'));
  const totals = new Map<string | null, number>();
  for (const cell of cells) totals.set(key(cell), (totals.get(key(cell)) ?? 0) + Number(cell.n));
  // Groups ranked by their count, ties by key (null first), as the endpoint ranks them.
  const ranked = [...totals.entries()].sort(
    ([a, countA], [b, countB]) => countB - countA || (a === null ? -1 : b === null ? 1 : a < b ? -1 : a > b ? 1 : 0),
  );
  if (ranked.length > ROW_LIMIT) throw new Error(`${ranked.length} groups: the alternative computes no "other"`);
  const groups = ranked.map(([service]) => ({
    key: { service_name: service },
    points: cells
      .map((cell, index) => ({ cell, index }))
      .filter(({ cell }) => key(cell) === service)
      .sort((a, b) => Number(a.cell.h) - Number(b.cell.h))
      .map(({ cell, index }) => {
        const count = Number(cell.n);
        const cellValues = values.filter((value) => Number(value.c) === index).map((value) => Number(value.v));
        const low = Math.floor((percent * (count - 1)) / 100);
        // Walked downwards: the first value is the higher rank's.
        const byRank = new Map([
          [Math.min(low + 1, count - 1), cellValues[0] as number],
          [low, cellValues[cellValues.length - 1] as number],
        ]);
        return [String(BigInt(cell.h) * HOUR_NS), count, percentileAt(percent, count, (rank) => byRank.get(rank) as number)];
      }),
  }));
  return { groups, other: null, truncated: false } as unknown as AnswerValue;
}

// ---------------------------------------------------------------------------------------------
// (e2): the model groups' counts only, from span_slot_values' lookup index alone (no row read).

async function modelCountsFromIndex(run: Run, applicationId: string, window: Window): Promise<AnswerValue> {
  const rows = await run(
    'SELECT CAST(value AS CHAR) AS k, (start_time_unix_nano - CAST(? AS SIGNED)) DIV CAST(? AS SIGNED) AS b, COUNT(*) AS c ' +
      'FROM span_slot_values FORCE INDEX (span_slot_values_lookup) WHERE application_id = ? AND slot = 1 ' +
      'AND start_time_unix_nano >= CAST(? AS SIGNED) AND start_time_unix_nano < CAST(? AS SIGNED) GROUP BY k, b ORDER BY k, b',
    [String(window.startNs), String(window.widthNs), applicationId, String(window.startNs), String(window.endNs)],
  );
  return rows.map((row) => [String(row.k), String(window.startNs + BigInt(String(row.b)) * window.widthNs), Number(row.c)]);
}

/** The endpoint's (e2) answer cut to what modelCountsFromIndex answers: per model and hour, the count. */
function modelCountsOf(answer: AnswerValue): AnswerValue {
  const { groups } = answer as unknown as { groups: Array<{ key: Record<string, string | null>; points: Array<[string, number]> }> };
  return groups
    .filter((group) => group.key[MODEL_ATTRIBUTE_PATH] !== null)
    .flatMap((group) => group.points.map(([bucket, count]) => [group.key[MODEL_ATTRIBUTE_PATH] as string, bucket, count]))
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : Number(BigInt(a[1] as string) - BigInt(b[1] as string))));
}

// ---------------------------------------------------------------------------------------------
// The database's side: what the alternatives add, and statements within the budget.

async function existing(db: mysql.Connection): Promise<{ columns: Set<string>; indexes: Set<string> }> {
  const [columns] = (await db.query(
    "SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'traces'",
  )) as unknown as [Array<{ name: string }>];
  const [indexes] = (await db.query(
    "SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'traces'",
  )) as unknown as [Array<{ name: string }>];
  return { columns: new Set(columns.map((row) => row.name)), indexes: new Set(indexes.map((row) => row.name)) };
}

/** Adds the virtual columns and indexes that are missing, in one ALTER TABLE (one pass over `traces`). */
async function addAlternatives(db: mysql.Connection): Promise<void> {
  const { columns, indexes } = await existing(db);
  const clauses = [
    ...VIRTUAL_COLUMNS.filter(([name]) => !columns.has(name)).map(([name, definition]) => `ADD COLUMN ${name} ${definition}`),
    ...INDEXES.filter(([name]) => !indexes.has(name)).map(([name, columnList]) => `ADD INDEX ${name} ${columnList}`),
  ];
  if (clauses.length === 0) return;
  const started = performance.now();
  await db.query(`ALTER TABLE traces ${clauses.join(', ')}`);
  log(`added to traces in ${((performance.now() - started) / 1000).toFixed(1)} s: ${clauses.join(', ')}`);
}

async function dropAlternatives(db: mysql.Connection): Promise<void> {
  const { columns, indexes } = await existing(db);
  const clauses = [
    ...INDEXES.filter(([name]) => indexes.has(name)).map(([name]) => `DROP INDEX ${name}`),
    ...VIRTUAL_COLUMNS.filter(([name]) => columns.has(name)).map(([name]) => `DROP COLUMN ${name}`),
  ];
  if (clauses.length > 0) await db.query(`ALTER TABLE traces ${clauses.join(', ')}`);
}

/** The indexes' pages (innodb_index_stats after ANALYZE TABLE), per span stored. */
async function alternativeSizes(db: mysql.Connection): Promise<string> {
  await db.query('ANALYZE TABLE traces');
  const [[spanRow]] = (await db.query('SELECT SUM(spans_count) AS spans FROM traces')) as unknown as [Array<{ spans: string }>];
  const [sizes] = (await db.query(
    "SELECT index_name AS name, stat_value * @@innodb_page_size AS bytes FROM mysql.innodb_index_stats WHERE database_name = DATABASE() AND table_name = 'traces' AND stat_name = 'size' AND index_name IN (?)",
    [INDEXES.map(([name]) => name)],
  )) as unknown as [Array<{ name: string; bytes: string }>];
  const spans = Number(spanRow?.spans);
  return sizes
    .map((row) => `${row.name} ${(Number(row.bytes) / 1e6).toFixed(0)} MB (${(Number(row.bytes) / spans).toFixed(1)} bytes/span)`)
    .join('; ');
}

/** `work` on `db`; past the budget its statement is killed from `killer` and OverBudget thrown. */
async function withinBudget<T>(db: mysql.Connection, killer: mysql.Connection, work: (run: Run) => Promise<T>): Promise<T> {
  let overBudget = false;
  const timer = setTimeout(() => {
    overBudget = true;
    void killer.query(`KILL QUERY ${db.threadId}`).catch(() => undefined);
  }, BUDGET_MS);
  try {
    return await work(async (sql, bindings) => (await db.query(sql, bindings))[0] as SqlRow[]);
  } catch (error) {
    if (overBudget) throw new OverBudget(BUDGET_MS);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// The endpoint's side.

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function post(target: URL, headers: Record<string, string>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      target,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode === 200) resolve(text);
          else reject(new Error(`${target.pathname}: ${response.statusCode} ${text.slice(0, 300)}`));
        });
        response.on('error', reject);
      },
    );
    request.setTimeout(BUDGET_MS, () => request.destroy(new OverBudget(BUDGET_MS)));
    request.on('error', reject);
    request.end(body);
  });
}

interface Case {
  name: string;
  path: string;
  window: Window;
  body: unknown;
  endpointAnswer: (text: string) => AnswerValue;
  alternatives: Array<{ name: string; answer: (run: Run) => Promise<AnswerValue>; comparable?: (endpoint: AnswerValue) => AnswerValue }>;
}

function casesOf(applicationId: string): Case[] {
  const day: Window = { startNs: DAY_START_NS, endNs: DAY_START_NS + DAY_NS, widthNs: HOUR_NS };
  const offHour: Window = { startNs: DAY_START_NS + HOUR_NS / 2n, endNs: DAY_START_NS + DAY_NS - HOUR_NS / 2n, widthNs: HOUR_NS };
  const metrics = (name: string, window: Window): Case => ({
    name,
    path: '/engine/metrics',
    window,
    body: { filter: null },
    endpointAnswer: metricsAnswer,
    alternatives: [
      { name: 'covering indexes on `traces`', answer: (run) => metricsFromIndexes(run, applicationId, window.startNs, window.endNs) },
    ],
  });
  const [e2Sql, e2Bindings] = spanAggregatesSql('indexed_value_1', ['count', 'sum_cost'], 0, applicationId, day, 'spans', 'spans');
  return [
    metrics('(d) metrics, whole day, no filter', day),
    metrics('(d) metrics, 00:30 to 23:30 (off the hour), no filter', offHour),
    {
      name: '(f) day, count and p95 trace duration per root service per hour',
      path: '/engine/analytics',
      window: day,
      body: {
        grain: 'traces',
        group_by: ['service_name'],
        granularity: 'hour',
        measures: [{ fn: 'count' }, { fn: 'p95', field: 'duration_ms' }],
        order_by: { measure: 0 },
      },
      endpointAnswer,
      alternatives: [
        {
          name: 'an index per (root service, root hour, duration) on `traces`',
          answer: (run) => cellPercentilesFromIndex(run, applicationId, day, 95),
        },
      ],
    },
    {
      name: '(e2) day, count and cost per `gen_ai.request.model` per hour',
      path: '/engine/analytics',
      window: day,
      body: {
        grain: 'spans',
        group_by: [MODEL_ATTRIBUTE_PATH],
        granularity: 'hour',
        measures: [{ fn: 'count' }, { fn: 'sum', field: 'cost' }],
      },
      endpointAnswer,
      alternatives: [
        {
          name: 'every span of the window, the slot and the cost from the row',
          answer: async (run) => spanAggregatesAnswer(MODEL_ATTRIBUTE_PATH, day, 2)([await run(e2Sql, e2Bindings)]),
        },
        {
          name: "floor: the 4 model groups' counts only, from span_slot_values' lookup index alone",
          answer: (run) => modelCountsFromIndex(run, applicationId, day),
          comparable: modelCountsOf,
        },
      ],
    },
  ];
}

function figure(timing: Timing<unknown>): string {
  return timing.kind === 'measured' ? `${timing.p50.toFixed(1)} / ${timing.p95.toFixed(1)}` : `> ${timing.budgetMs / 1000} s (stopped)`;
}

async function main(): Promise<void> {
  if (!SERVER_URL)
    throw new Error('set BENCH_MYSQL_URL, e.g. mysql://user:password@127.0.0.1:3307/mysql (a server holding the bench database)');
  const url = databaseUrl(SERVER_URL, DATABASE);
  const knex: Knex = knexFactory({ client: 'mysql2', connection: { uri: url } as Knex.MySql2ConnectionConfig, pool: { min: 0, max: 1 } });
  const db = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
  const killer = await mysql.createConnection({ uri: url });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-bench-'));
  const load = () => os.loadavg()[0].toFixed(2);
  const lines: string[] = [];
  const mismatches: string[] = [];
  try {
    const application = (await knex('applications').where({ name: 'bench:query' }).first('id', 'indexed_attributes_state')) as
      { id: string; indexed_attributes_state: string | null } | undefined;
    if (!application) throw new Error(`${DATABASE} holds no bench application: seed it with npm run bench:query first`);
    const slot = (JSON.parse(application.indexed_attributes_state ?? '{"slots":[]}') as { slots: Array<{ path: string } | null> }).slots[0];
    if (slot?.path !== MODEL_ATTRIBUTE_PATH)
      throw new Error('the bench application does not index the model (seeded with BENCH_INDEX_MODEL=0)');
    const cases = casesOf(application.id);
    const loadBefore = load();

    // The endpoint, on the database as the service keeps it.
    const service = await startService(url, dataDir);
    const endpoint = new Map<string, Timing<AnswerValue>>();
    try {
      const token = await apiKeyToken(knex, service.url, application.id, ['read:traces']);
      const headers = { authorization: `Bearer ${token}`, 'x-vendor-app-id': application.id, 'content-type': 'application/json' };
      for (const benchCase of cases) {
        const target = new URL(benchCase.path, service.url);
        target.searchParams.set('start_time', rfc3339(benchCase.window.startNs));
        target.searchParams.set('end_time', rfc3339(benchCase.window.endNs));
        const timing = await timedWithinBudget(RUNS, BUDGET_MS, async () =>
          benchCase.endpointAnswer(await post(target, headers, JSON.stringify(benchCase.body))),
        );
        endpoint.set(benchCase.name, timing);
        log(`${benchCase.name}: endpoint ${figure(timing)}`);
      }
    } finally {
      agent.destroy();
      service.child.kill('SIGTERM');
    }

    await addAlternatives(db);
    const sizes = await alternativeSizes(db);
    log(`indexes of the alternatives: ${sizes}`);
    for (const benchCase of cases) {
      const endpointTiming = endpoint.get(benchCase.name) as Timing<AnswerValue>;
      lines.push(
        `| ${benchCase.name} | the endpoint | ${figure(endpointTiming)} | | ${endpointTiming.kind === 'measured' ? endpointTiming.runs : 0} |`,
      );
      for (const alternative of benchCase.alternatives) {
        const timing = await timedWithinBudget(RUNS, BUDGET_MS, () => withinBudget(db, killer, alternative.answer));
        if (timing.kind === 'stopped') await db.query('SELECT 1').catch(() => undefined);
        let agrees = '';
        if (timing.kind === 'measured' && endpointTiming.kind === 'measured') {
          const expected = alternative.comparable ? alternative.comparable(endpointTiming.answer) : endpointTiming.answer;
          const difference = answerDifference(expected, timing.answer);
          if (difference) mismatches.push(`${benchCase.name}, ${alternative.name}: ${difference}`);
          agrees = difference ? ' (ANSWER DIFFERS)' : '';
        }
        const ratio =
          timing.kind === 'measured' && endpointTiming.kind === 'measured' ? (timing.p50 / endpointTiming.p50).toFixed(2) : 'n/a';
        const line = `| | ${alternative.name}${agrees} | ${figure(timing)} | ${ratio} | ${timing.kind === 'measured' ? timing.runs : 0} |`;
        log(line);
        lines.push(line);
      }
    }
    process.stdout.write(
      [
        `Alternatives on ${DATABASE}, ms (1-minute load average ${loadBefore} before, ${load()} after); the alternatives' indexes: ${sizes}:`,
        '',
        '| case | read by | p50 / p95 | alternative / endpoint (p50) | runs |',
        '|---|---|---:|---:|---:|',
        ...lines,
        '',
      ].join('\n'),
    );
  } finally {
    if (!KEEP) await dropAlternatives(db);
    await db.end();
    await killer.end();
    await knex.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (mismatches.length > 0) throw new Error(`an alternative answered differently from the endpoint:\n${mismatches.join('\n')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
