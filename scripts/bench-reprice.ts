// `npm run bench:reprice`: how fast a re-pricing job (src/jobs/repricer.ts, src/storage/repricing/)
// re-prices an application's spans, in spans per second, on a scratch SQLite file and, when
// BENCH_MYSQL_URL names a MariaDB/MySQL server, on a scratch database there.
//
//   npm run bench:reprice
//   BENCH_REPRICE_SPANS=300000 BENCH_MYSQL_URL=mysql://user:password@127.0.0.1:3307/mysql npm run bench:reprice
//
// Each run stores BENCH_REPRICE_SPANS GenAI spans (default 100,000, at most 300,000) through the
// span writer, priced as ingestion prices them (costFields), traces of 5 LLM calls of known models
// over 24 hours, every tenth call with a reported cost; then makes every computed cost wrong as
// an older price would have left it (twice the cost, another book version), rebuilds the derived
// data to match, and runs one job over the whole window to completion with one worker
// (REPRICING_BATCH_SIZE spans a batch, default 1000). Reported: the job's spans examined and
// re-priced, its hours, the wall time and spans examined per second of it, and the CPU time of
// this process (which runs SQLite itself) and of the database server (read from /proc when it
// runs on this machine) per 1,000 spans, which a busy machine disturbs less than wall time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import { createRepricingJob } from '../src/accounts/repricing-jobs.js';
import { costFields } from '../src/ingest/computed-cost.js';
import { Repricer } from '../src/jobs/repricer.js';
import { NO_PRICE_ENTRIES } from '../src/pricing/price-entries.js';
import { createLogger } from '../src/logger.js';
import { knexSettings } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { findRepricingJob } from '../src/storage/repricing/repricing-jobs.js';
import { rebuildDerivedData } from '../src/storage/spans/derived/derived-rebuild.js';
import { NO_LLM_CALL, type SpanRow } from '../src/storage/spans/span-row.js';
import { storeSpans } from '../src/storage/spans/writes/span-writer.js';
import { databaseUrl, log } from './lib/bench-service.js';
import { cpuSeconds, databaseServerPid, ownCpuSeconds } from './lib/process-cpu.js';
import { seedApplication, seedOrganization } from './lib/seed-accounts.js';

const SPANS = Math.min(Number(process.env.BENCH_REPRICE_SPANS ?? 100_000), 300_000);
const BATCH = Number(process.env.REPRICING_BATCH_SIZE ?? 1000);
const MYSQL_SERVER = process.env.BENCH_MYSQL_URL;
const MYSQL_DATABASE = 'spanledger_bench_reprice';
const SPANS_PER_TRACE = 5;
const HOURS = 24;
/** 2026-11-22T00:00:00Z. */
const START_NS = BigInt(Date.UTC(2026, 10, 22)) * 1_000_000n;
const HOUR_NS = 3_600_000_000_000n;
const CALLS = [
  { provider: 'openai', model: 'gpt-4o-mini-2024-07-18' },
  { provider: 'anthropic', model: 'claude-3-5-haiku-20241022' },
  { provider: 'gcp.vertex_ai', model: 'gemini-2.5-flash' },
  { provider: 'openai', model: 'gpt-4o' },
];

/** Span `index` of the workload: an LLM call, priced as ingestion prices it. */
function spanOf(applicationId: string, index: number): SpanRow {
  const trace = Math.floor(index / SPANS_PER_TRACE);
  const traces = Math.ceil(SPANS / SPANS_PER_TRACE);
  const start = START_NS + (BigInt(trace) * BigInt(HOURS) * HOUR_NS) / BigInt(traces) + BigInt(index % SPANS_PER_TRACE) * 1_000_000n;
  const call = CALLS[index % CALLS.length] as (typeof CALLS)[number];
  const input = 500 + ((index * 7919) % 20_000);
  const usage = {
    model: call.model,
    provider: call.provider,
    input_tokens: input,
    output_tokens: 50 + ((index * 104_729) % 2_000),
    cache_read_tokens: index % 3 === 0 ? Math.floor(input / 2) : null,
    cache_creation_tokens: null,
    total_tokens: null,
  };
  const reported = index % 10 === 9 ? 0.01 : null;
  return {
    ...NO_LLM_CALL,
    ...usage,
    ...costFields(reported, usage, start.toString(), NO_PRICE_ENTRIES),
    application_id: applicationId,
    trace_id: trace.toString(16).padStart(32, '0'),
    span_id: (index + 1).toString(16).padStart(16, '0'),
    parent_span_id: index % SPANS_PER_TRACE === 0 ? null : (index - (index % SPANS_PER_TRACE) + 1).toString(16).padStart(16, '0'),
    start_time_unix_nano: start.toString(),
    end_time_unix_nano: (start + 800_000_000n).toString(),
    duration_ms: 800,
    span_name: 'chat',
    span_kind: 'SPAN_KIND_CLIENT',
    service_name: 'assistant',
    unit: null,
    parent_unit: null,
    billing_resource_type: null,
    billing_resource_name: null,
    billing_service_id: null,
    billing_service_name: null,
    billing_sku_id: null,
    billing_sku_name: null,
    billing_region: null,
    usage_amount: null,
    usage_unit: null,
    resource_attributes: JSON.stringify({ 'service.name': 'assistant' }),
    span_attributes: JSON.stringify({ 'gen_ai.request.model': call.model, 'gen_ai.usage.input_tokens': input }),
    status_code: 'STATUS_CODE_UNSET',
    status_message: null,
    scope_name: 'bench',
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

interface Measured {
  database: string;
  examined: number;
  repriced: number;
  hours: number;
  seconds: number;
  /** CPU seconds of this process (SQLite runs in it) and of the database server, when it runs on this machine. */
  ownCpu: number;
  serverCpu: number | undefined;
}

/** Seeds, spoils and re-prices the workload on `knex` (migrated here); answers the job's figures. */
async function measure(database: string, knex: Knex, server: number | undefined): Promise<Measured> {
  await migrateToLatest(knex);
  const applicationId = await seedApplication(knex, await seedOrganization(knex, { name: 'Bench' }), { name: 'bench:reprice' });
  log(`${database}: storing ${SPANS} spans`);
  for (let from = 0; from < SPANS; from += 2_000) {
    const rows = Array.from({ length: Math.min(2_000, SPANS - from) }, (_, offset) => spanOf(applicationId, from + offset));
    await storeSpans(knex, rows);
  }
  log(`${database}: making the computed costs wrong, and the derived data with them`);
  await knex('spans')
    .where({ application_id: applicationId, cost_source: 'computed' })
    .update({ cost: knex.raw('cost * 2'), price_book: 'genai-prices 0.0.1' });
  await rebuildDerivedData(knex, { applicationId });
  const job = await createRepricingJob(knex, applicationId, { fromNs: START_NS, toNs: START_NS + BigInt(HOURS) * HOUR_NS });
  const worker = new Repricer({ knex, logger: createLogger('silent'), config: { intervalSeconds: 0, batchSize: BATCH } });
  log(`${database}: re-pricing`);
  const [ownBefore, serverBefore] = [ownCpuSeconds(), server === undefined ? undefined : cpuSeconds(server)];
  const started = performance.now();
  await worker.runOnce();
  const seconds = (performance.now() - started) / 1000;
  const ownCpu = ownCpuSeconds() - ownBefore;
  const serverAfter = server === undefined ? undefined : cpuSeconds(server);
  const serverCpu = serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore;
  await worker.stop();
  const done = await findRepricingJob(knex, applicationId, job.id);
  if (done?.status !== 'succeeded') throw new Error(`${database}: the job ended ${done?.status}: ${done?.error ?? ''}`);
  return { database, examined: done.spansExamined, repriced: done.spansRepriced, hours: done.hoursDone, seconds, ownCpu, serverCpu };
}

async function onSqlite(): Promise<Measured> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-bench-reprice-'));
  const knex = knexFactory(knexSettings(`sqlite:${path.join(dir, 'bench.sqlite')}`, dir));
  try {
    return await measure('SQLite', knex, undefined);
  } finally {
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function onMysql(serverUrl: string): Promise<Measured> {
  const admin = await mysql.createConnection(serverUrl);
  await admin.query(`DROP DATABASE IF EXISTS ${MYSQL_DATABASE}`);
  await admin.query(`CREATE DATABASE ${MYSQL_DATABASE}`);
  const knex = knexFactory(knexSettings(databaseUrl(serverUrl, MYSQL_DATABASE), os.tmpdir()));
  try {
    // The server of this URL's port: another MariaDB on the machine (a development one) is not it.
    return await measure('MariaDB/MySQL', knex, databaseServerPid(Number(new URL(serverUrl).port) || undefined));
  } finally {
    await knex.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${MYSQL_DATABASE}`);
    await admin.end();
  }
}

const results = [await onSqlite(), ...(MYSQL_SERVER ? [await onMysql(MYSQL_SERVER)] : [])];
console.log(`Re-pricing job over ${SPANS} GenAI spans in ${HOURS} hours, ${BATCH} spans a batch, one worker:\n`);
console.log(
  '| database | spans examined | spans re-priced | hours | seconds | spans examined per second | job process CPU ms per 1,000 spans | database server CPU ms per 1,000 spans |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const { database, examined, repriced, hours, seconds, ownCpu, serverCpu } of results) {
  const perThousand = (cpu: number | undefined) => (cpu === undefined ? 'n/a' : ((cpu * 1000 * 1000) / examined).toFixed(0));
  console.log(
    `| ${database} | ${examined} | ${repriced} | ${hours} | ${seconds.toFixed(1)} | ${Math.round(examined / seconds)} | ${perThousand(ownCpu)} | ${perThousand(serverCpu)} |`,
  );
}
