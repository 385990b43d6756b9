// `npm run bench:query`: latency of the engine's read endpoints on MariaDB/MySQL, each beside the
// equivalent hand-written SQL run straight through mysql2.
//
//   BENCH_MYSQL_URL=mysql://user:password@127.0.0.1:3307/mysql npm run bench:query
//
// Data: BENCH_TRACES traces (100,000) of 10 spans each (1 million spans) spread over one day,
// stored with the service's own writer (storeSpans, so the per-trace summaries are the real
// ones) into the database BENCH_QUERY_DATABASE (spanledger_bench_query) on that server. The
// database is kept between runs; it is dropped, migrated and seeded again when it does not hold
// the expected data, or with BENCH_RESEED=1 (after a schema change). The service runs as a child process on it; each case is sent BENCH_RUNS times
// (30; fewer for the slow ones) one after another after 3 warm-up calls, and reported as p50
// and p95 of the HTTP round trip. The hand-written SQL is what one would write by hand for the
// same answer (the total and the page, or the statistics), timed the same way.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import type { SpanRow } from '../src/storage/spans/span-row.js';
import { storeSpans } from '../src/storage/spans/span-writer.js';
import { apiKeyToken, databaseUrl as databaseUrlOn, log, startService } from './lib/bench-service.js';
import { seedApplication, seedOrganization } from './lib/seed-accounts.js';

const SERVER_URL = process.env.BENCH_MYSQL_URL;
const DATABASE = process.env.BENCH_QUERY_DATABASE ?? 'spanledger_bench_query';
const TRACES = Number(process.env.BENCH_TRACES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const SPANS_PER_TRACE = 10;
const DAY_START_NS = BigInt(Date.UTC(2026, 10, 22)) * 1_000_000n;
const DAY_NS = 86_400_000_000_000n;
const HOUR_NS = 3_600_000_000_000n;
const SERVICES = ['checkout', 'search', 'summarizer', 'billing', 'auth', 'catalog', 'inventory', 'gateway'];
const MODELS = ['gemini-2.5-flash', 'gemini-2.5-pro', 'gpt-4o-mini', 'claude-haiku'];
const DB_OPERATIONS = ['SELECT', 'INSERT', 'UPDATE'];

function databaseUrl(name: string): string {
  return databaseUrlOn(SERVER_URL as string, name);
}

function knexFor(url: string, connections = 1): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: { uri: url, supportBigNumbers: true, bigNumberStrings: true, charset: 'utf8mb4' } as Knex.MySql2ConnectionConfig,
    pool: { min: 0, max: connections },
  });
}

// ---------------------------------------------------------------------------------------------
// Data: deterministic, so that every run measures the same day.

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hexOf(next: () => number, digits: number): string {
  let text = '';
  while (text.length < digits) text += Math.floor(next() * 0x100000000).toString(16).padStart(8, '0');
  return text.slice(0, digits);
}

const EMPTY_BILLING = {
  billing_resource_type: null,
  billing_resource_name: null,
  billing_service_id: null,
  billing_service_name: null,
  billing_sku_id: null,
  billing_sku_name: null,
  billing_region: null,
  usage_amount: null,
  usage_unit: null,
};

/** One request: a SERVER root, two LLM calls, four database queries, two internal steps, one outbound call. */
function traceRows(applicationId: string, index: number): SpanRow[] {
  const next = random(index + 1);
  const service = SERVICES[index % SERVICES.length] as string;
  const traceId = hexOf(next, 32);
  const rootId = hexOf(next, 16);
  const start = DAY_START_NS + (BigInt(index) * DAY_NS) / BigInt(TRACES) + BigInt(Math.floor(next() * 500_000_000));
  const resource = JSON.stringify({ 'service.name': service, 'deployment.environment': 'production', 'telemetry.sdk.language': 'nodejs' });
  const rows: SpanRow[] = [];
  const add = (spanId: string, parent: string | null, offsetMs: number, durationMs: number, fields: Partial<SpanRow>, attributes: Record<string, unknown>) => {
    const begin = start + BigInt(Math.round(offsetMs * 1e6));
    const end = begin + BigInt(Math.round(durationMs * 1e6));
    rows.push({
      application_id: applicationId,
      trace_id: traceId,
      span_id: spanId,
      parent_span_id: parent,
      start_time_unix_nano: begin.toString(),
      end_time_unix_nano: end.toString(),
      duration_ms: Number(end - begin) / 1e6,
      span_name: 'span',
      span_kind: 'SPAN_KIND_INTERNAL',
      service_name: service,
      unit: null,
      parent_unit: null,
      cost: null,
      ...EMPTY_BILLING,
      resource_attributes: resource,
      span_attributes: JSON.stringify(attributes),
      status_code: 'STATUS_CODE_UNSET',
      status_message: null,
      scope_name: 'bench-query',
      scope_version: '1.0.0',
      events: null,
      links: null,
      dropped_attributes_count: 0,
      dropped_events_count: 0,
      dropped_links_count: 0,
      received_at: Date.now(),
      indexed_value_1: null,
      indexed_value_2: null,
      indexed_value_3: null,
      ...fields,
    });
  };
  const failed = next() < 0.02;
  const total = 50 + next() * 2000;
  const status: Partial<SpanRow> = failed ? { status_code: 'STATUS_CODE_ERROR', status_message: 'HTTP 500' } : {};
  add(rootId, null, 0, total, { span_name: `POST /api/${service}`, span_kind: 'SPAN_KIND_SERVER', unit: service, ...status }, {
    'vendor.unit': service,
    'http.request.method': 'POST',
    'http.route': `/api/${service}`,
    'http.response.status_code': failed ? 500 : 200,
  });
  for (let call = 0; call < 2; call += 1) {
    const model = MODELS[Math.floor(next() * MODELS.length)] as string;
    const tokens = Math.floor(100 + next() * 4000);
    const cost = tokens * 0.0000025;
    add(hexOf(next, 16), rootId, 5 + call * total * 0.4, total * 0.35, {
      span_name: `${model}.generate_content`,
      span_kind: 'SPAN_KIND_CLIENT',
      unit: 'llm',
      parent_unit: service,
      cost,
      billing_resource_type: 'llm_generate_content',
      billing_resource_name: model,
      billing_service_id: 'vertex-ai',
      billing_sku_name: `${model} output tokens`,
      billing_region: 'europe-west4',
      usage_amount: tokens,
      usage_unit: 'tokens',
    }, {
      'vendor.unit': 'llm',
      'vendor.parent_unit': service,
      'vendor.cost': cost,
      'vendor.usage.amount': tokens,
      'vendor.usage.unit': 'tokens',
      'gen_ai.request.model': model,
      'gen_ai.usage.output_tokens': tokens,
    });
  }
  for (let query = 0; query < 4; query += 1) {
    const operation = DB_OPERATIONS[Math.floor(next() * DB_OPERATIONS.length)] as string;
    add(hexOf(next, 16), rootId, 1 + query * 2, 0.5 + next() * 20, { span_name: `${operation} orders`, span_kind: 'SPAN_KIND_CLIENT', unit: 'db', parent_unit: service, cost: 0.000001 }, {
      'vendor.unit': 'db',
      'db.system': 'mariadb',
      'db.operation.name': operation,
      'db.collection.name': 'orders',
    });
  }
  for (let step = 0; step < 2; step += 1) {
    add(hexOf(next, 16), rootId, 2 + step, 1 + next() * 10, { span_name: `step-${step}` }, { 'step.index': step, retry: next() < 0.1 });
  }
  add(hexOf(next, 16), rootId, total * 0.9, total * 0.05, { span_name: 'GET https://api.partner.example/v1/rates', span_kind: 'SPAN_KIND_CLIENT', unit: 'partner-api', cost: 0.0001 }, {
    'vendor.unit': 'partner-api',
    'http.request.method': 'GET',
    'server.address': 'api.partner.example',
    'http.response.status_code': 200,
  });
  return rows;
}

async function seed(knex: Knex, applicationId: string): Promise<void> {
  const tracesPerBatch = 50;
  const started = performance.now();
  let nextTrace = 0;
  let stored = 0;
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (nextTrace < TRACES) {
        const first = nextTrace;
        nextTrace += tracesPerBatch;
        const rows: SpanRow[] = [];
        for (let index = first; index < Math.min(first + tracesPerBatch, TRACES); index += 1) rows.push(...traceRows(applicationId, index));
        await storeSpans(knex, rows);
        stored += rows.length;
        if (stored % 100_000 < rows.length) log(`  seeded ${stored} spans (${Math.round(stored / ((performance.now() - started) / 1000))} spans/s)`);
      }
    }),
  );
  await knex.raw('ANALYZE TABLE spans, traces');
}

// ---------------------------------------------------------------------------------------------
// The service and its caller.

/** The bench's application (created once with the data) and a fresh read:traces key's token. */
async function benchCaller(knex: Knex, applicationId: string, serviceUrl: string): Promise<Record<string, string>> {
  const token = await apiKeyToken(knex, serviceUrl, applicationId, ['read:traces']);
  return { authorization: `Bearer ${token}`, 'x-vendor-app-id': applicationId, 'content-type': 'application/json' };
}

/** The bench's application when the database already holds its whole day of spans. */
async function seededApplication(knex: Knex): Promise<string | undefined> {
  if (process.env.BENCH_RESEED === '1' || !(await knex.schema.hasTable('applications'))) return undefined;
  const existing = (await knex('applications').where({ name: 'bench:query' }).first('id')) as { id: string } | undefined;
  if (!existing) return undefined;
  const [{ spans }] = (await knex('spans').where('application_id', existing.id).count({ spans: '*' })) as Array<{ spans: number | string }>;
  return Number(spans) === TRACES * SPANS_PER_TRACE ? existing.id : undefined;
}

/** The bench's organization and application (the name is how seededApplication() finds it again). */
async function createApplication(knex: Knex): Promise<string> {
  return seedApplication(knex, await seedOrganization(knex, { name: 'Bench' }), { name: 'bench:query' });
}

// ---------------------------------------------------------------------------------------------
// Measurement.

function percentile(sorted: number[], fraction: number): number {
  const position = fraction * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return (sorted[low] as number) + (position - low) * ((sorted[high] as number) - (sorted[low] as number));
}

async function timed(runs: number, work: () => Promise<void>): Promise<{ p50: number; p95: number }> {
  for (let warmup = 0; warmup < 3; warmup += 1) await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

function rfc3339(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}

interface Case {
  name: string;
  runs: number;
  target?: string;
  http: { path: string; query: Record<string, string | boolean>; filter: unknown };
  /** The same answer by hand: every statement, run one after another. */
  sql: Array<[string, unknown[]]>;
}

const SPAN_COLUMNS =
  'seq, trace_id, span_id, parent_span_id, CAST(start_time_unix_nano AS CHAR) AS start_ns, CAST(end_time_unix_nano AS CHAR) AS end_ns, duration_ms, span_name, span_kind, ' +
  'service_name, unit, parent_unit, cost, billing_resource_type, billing_resource_name, billing_service_id, billing_service_name, billing_sku_id, billing_sku_name, billing_region, ' +
  'usage_amount, usage_unit, CAST(resource_attributes AS CHAR) AS resource_attributes, CAST(span_attributes AS CHAR) AS span_attributes';
const SUMMARY_COLUMNS = 'trace_id, span_name, duration_ms, spans_count, total_cost, CAST(min_start_time_unix_nano AS CHAR) AS min_start, service_name, unit, parent_unit';

/** Statistics over a set of traces by hand: the aggregates, then each figure's ranked values around its percentiles. */
function metricsSql(where: string, bindings: unknown[]): Array<[string, unknown[]]> {
  const statements: Array<[string, unknown[]]> = [
    [`SELECT COUNT(*), AVG(duration_ms), STDDEV_POP(duration_ms), AVG(total_cost), STDDEV_POP(total_cost), AVG(spans_count), STDDEV_POP(spans_count) FROM traces t WHERE ${where}`, bindings],
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

function cases(applicationId: string): Case[] {
  const hourStart = DAY_START_NS + 12n * HOUR_NS;
  const hour = { start_time: rfc3339(hourStart), end_time: rfc3339(hourStart + HOUR_NS) };
  const day = { start_time: rfc3339(DAY_START_NS), end_time: rfc3339(DAY_START_NS + DAY_NS) };
  const hourNs = [String(hourStart), String(hourStart + HOUR_NS)];
  const dayNs = [String(DAY_START_NS), String(DAY_START_NS + DAY_NS)];
  const model = { field: 'span_attributes.gen_ai.request.model', op: 'eq', value: 'gemini-2.5-pro' };
  const service = { field: 'service_name', op: 'eq', value: 'checkout' };
  const spanWindow = 'application_id = ? AND start_time_unix_nano >= CAST(? AS SIGNED) AND start_time_unix_nano < CAST(? AS SIGNED)';
  const traceWindow = 't.application_id = ? AND t.root_start_time_unix_nano >= CAST(? AS SIGNED) AND t.root_start_time_unix_nano < CAST(? AS SIGNED)';
  const modelSql = `JSON_VALUE(span_attributes, '$."gen_ai.request.model"') = ?`;
  const childModel = `EXISTS (SELECT 1 FROM spans s WHERE s.application_id = t.application_id AND s.trace_id = t.trace_id AND JSON_VALUE(s.span_attributes, '$."gen_ai.request.model"') = ?)`;
  const tracePage = (where: string) => `SELECT ${SUMMARY_COLUMNS} FROM traces t WHERE ${where} ORDER BY t.min_start_time_unix_nano DESC, t.trace_id LIMIT 20`;
  const traceCases = (label: string, window: Record<string, string>, windowNs: string[], runs: number): Case[] => [
    {
      name: `(b) POST /traces, ${label}, root service_name = checkout`,
      runs,
      target: label === 'one hour' ? 'p95 < 100 ms' : undefined,
      http: { path: '/traces', query: window, filter: service },
      sql: [
        [`SELECT COUNT(*) FROM traces t WHERE ${traceWindow} AND t.service_name = ?`, [applicationId, ...windowNs, 'checkout']],
        [tracePage(`${traceWindow} AND t.service_name = ?`), [applicationId, ...windowNs, 'checkout']],
      ],
    },
    {
      name: `(c) POST /traces?search_child_spans=true, ${label}, any span's gen_ai.request.model = gemini-2.5-pro`,
      runs,
      http: { path: '/traces', query: { ...window, search_child_spans: true }, filter: model },
      sql: [
        [`SELECT COUNT(*) FROM traces t WHERE ${traceWindow} AND ${childModel}`, [applicationId, ...windowNs, 'gemini-2.5-pro']],
        [tracePage(`${traceWindow} AND ${childModel}`), [applicationId, ...windowNs, 'gemini-2.5-pro']],
      ],
    },
  ];
  const emptyHour = [String(DAY_START_NS - HOUR_NS), String(DAY_START_NS)];
  return [
    {
      // What every call costs besides its SQL: HTTP, the token and application checks (two
      // queries), validation and the JSON answer; the statements themselves find nothing.
      name: '(0) POST /engine/query, an hour without spans: the fixed cost of a call',
      runs: RUNS,
      http: { path: '/engine/query', query: { start_time: rfc3339(DAY_START_NS - HOUR_NS), end_time: rfc3339(DAY_START_NS) }, filter: null },
      sql: [
        [`SELECT COUNT(*) FROM spans WHERE ${spanWindow}`, [applicationId, ...emptyHour]],
        [`SELECT ${SPAN_COLUMNS} FROM spans WHERE ${spanWindow} ORDER BY start_time_unix_nano DESC, trace_id, span_id LIMIT 20`, [applicationId, ...emptyHour]],
      ],
    },
    {
      name: '(a) POST /engine/query, one hour, span_attributes.gen_ai.request.model = gemini-2.5-pro',
      runs: RUNS,
      target: 'p95 < 100 ms',
      http: { path: '/engine/query', query: hour, filter: model },
      sql: [
        [`SELECT COUNT(*) FROM spans WHERE ${spanWindow} AND ${modelSql}`, [applicationId, ...hourNs, 'gemini-2.5-pro']],
        [`SELECT ${SPAN_COLUMNS} FROM spans WHERE ${spanWindow} AND ${modelSql} ORDER BY start_time_unix_nano DESC, trace_id, span_id LIMIT 20`, [applicationId, ...hourNs, 'gemini-2.5-pro']],
      ],
    },
    ...traceCases('one hour', hour, hourNs, RUNS),
    ...traceCases('whole day', day, dayNs, Math.max(5, Math.round(RUNS / 3))),
    {
      name: '(d) POST /engine/metrics, whole day, no filter',
      runs: Math.max(10, Math.round(RUNS / 2)),
      target: 'p95 < 500 ms',
      http: { path: '/engine/metrics', query: day, filter: null },
      sql: metricsSql(traceWindow, [applicationId, ...dayNs]),
    },
    {
      name: "(d) POST /engine/metrics, whole day, any span's gen_ai.request.model = gemini-2.5-pro",
      runs: Math.max(5, Math.round(RUNS / 6)),
      http: { path: '/engine/metrics', query: day, filter: model },
      sql: metricsSql(`${traceWindow} AND ${childModel}`, [applicationId, ...dayNs, 'gemini-2.5-pro']),
    },
  ];
}

async function main(): Promise<void> {
  if (!SERVER_URL) throw new Error('set BENCH_MYSQL_URL, e.g. mysql://user:password@127.0.0.1:3307/mysql (the bench creates its own database there)');
  const url = databaseUrl(DATABASE);
  const admin = knexFor(SERVER_URL);
  await admin.raw(`CREATE DATABASE IF NOT EXISTS \`${DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  let knex = knexFor(url, 8);
  let applicationId = await seededApplication(knex);
  if (applicationId) {
    await migrateToLatest(knex);
    log(`reusing the ${TRACES * SPANS_PER_TRACE} spans already in ${DATABASE} (BENCH_RESEED=1 to rebuild)`);
  } else {
    // A fresh database: the current migrations, and no leftovers to delete.
    await knex.destroy();
    await admin.raw(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
    await admin.raw(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    knex = knexFor(url, 8);
    await migrateToLatest(knex);
    applicationId = await createApplication(knex);
    log(`seeding ${TRACES * SPANS_PER_TRACE} spans in ${TRACES} traces over one day into ${DATABASE} …`);
    const started = performance.now();
    await seed(knex, applicationId);
    log(`  seeded in ${Math.round((performance.now() - started) / 1000)} s`);
  }
  await admin.destroy();

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-bench-'));
  const service = await startService(url, dataDir);
  const raw = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
  const results: string[] = [];
  try {
    const headers = await benchCaller(knex, applicationId, service.url);
    for (const benchCase of cases(applicationId)) {
      const target = new URL(benchCase.http.path, service.url);
      for (const [key, value] of Object.entries(benchCase.http.query)) target.searchParams.set(key, String(value));
      let total: number | undefined;
      const endpoint = await timed(benchCase.runs, async () => {
        const response = await fetch(target, { method: 'POST', headers, body: JSON.stringify({ filter: benchCase.http.filter }) });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`${benchCase.name}: ${response.status} ${text.slice(0, 300)}`);
        const body = JSON.parse(text) as { total?: number; pagination?: { total: number }; trace_count?: number };
        total = body.total ?? body.pagination?.total ?? body.trace_count;
      });
      const handWritten = await timed(benchCase.runs, async () => {
        for (const [sql, bindings] of benchCase.sql) await raw.query(sql, bindings);
      });
      const ratio = endpoint.p50 / handWritten.p50;
      const line = `| ${benchCase.name} | ${total} | ${endpoint.p50.toFixed(1)} | ${endpoint.p95.toFixed(1)} | ${handWritten.p50.toFixed(1)} | ${handWritten.p95.toFixed(1)} | ${ratio.toFixed(2)} | ${benchCase.target ?? ''} |`;
      log(line);
      results.push(line);
    }
  } finally {
    await raw.end();
    service.child.kill('SIGTERM');
    await knex.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `Query latency, ${TRACES * SPANS_PER_TRACE} spans in ${TRACES} traces over one day (ms; the hand-written SQL runs through mysql2, without HTTP):`,
      '',
      '| case | matches | endpoint p50 | endpoint p95 | hand-written SQL p50 | hand-written SQL p95 | endpoint / SQL (p50) | target |',
      '|---|---:|---:|---:|---:|---:|---:|---|',
      ...results,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
