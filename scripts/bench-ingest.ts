// `npm run bench:ingest`: OTLP ingestion throughput on MariaDB/MySQL, against the ceiling of the
// same rows written straight into the same table with multi-row INSERTs through mysql2.
//
//   BENCH_MYSQL_URL=mysql://user:password@127.0.0.1:3307/mysql npm run bench:ingest
//
// The bench creates five databases of its own on that server (dropped at the end). On three of
// them it starts the service as a child process, seeds an application and an API key holding
// write:traces, and sends protobuf ExportTraceServiceRequests made by the OpenTelemetry SDK's
// own serializer: BENCH_BATCH spans a request (512), BENCH_SENDERS concurrent senders (4),
// BENCH_SPANS spans in all (about 1 million), BENCH_INDEXED_ATTRIBUTES the paths the applications
// index (none). Every span carries the vendor cost, billing and usage attributes; traces are 8
// spans deep and wide. BENCH_WORKLOAD=genai-reported or genai-priced gives the two LLM calls of
// each trace their model, provider and token usage (GenAI or OpenInference attributes), with
// `vendor.cost` or without it, so that a run of the second measures pricing from the default book
// against a run of the first (bench-workload.ts). The three endpoint rows differ only in how they
// send: POST /v1/traces with a Bearer token, POST /v1/traces with Basic key:secret, and
// OTLP/gRPC TraceService/Export with Basic key:secret. And the ceiling, on two more databases:
// the same rows (decoded and mapped by the service's code beforehand, outside the timing)
// inserted by the same number of connections, one multi-row INSERT per batch, with mysql2's
// client-side escaping (`query`) and with prepared statements (`execute`). Everything writes
// with the server's durability settings. The five run in interleaved rounds, so that other
// load on the machine weighs on all of them alike; each on its own database, so that every
// table grows alike and each row's verification counts only its own spans.
//
// BENCH_BUDGETS=N (none by default) seeds N budgets on each endpoint row's bench organization
// (amounts from a cent to a million USD, day and month periods, the organization's or the
// application's spend, so thresholds keep firing as the spans arrive) and runs the services'
// budget evaluator every second (BUDGET_EVALUATION_INTERVAL_SECONDS=1): a run with it against one
// without measures what budget evaluation costs ingestion.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import { EXPORT_PATH } from '../src/grpc/trace-service.js';
import { decodeProtobufRequest } from '../src/ingest/otlp-protobuf.js';
import { toSpanRows } from '../src/ingest/span-mapping.js';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { SPAN_ROW_COLUMNS } from '../src/storage/spans/span-row.js';
import { FOLD_STATE } from '../src/storage/spans/fold/trace-figures.js';
import { databaseUrl as databaseUrlOn, log, startService } from './lib/bench-service.js';
import { httpSender, ingestCaller, runSenders, type Sender } from './lib/bench-senders.js';
import { verifyStoredOnce } from './lib/bench-verify.js';
import { makeBatches, SPANS_PER_TRACE, WORKLOADS, type Workload } from './lib/bench-workload.js';
import { interleavedRounds } from './lib/interleaved-rounds.js';
import { databaseServerPid, ownCpuSeconds, totalCpuSeconds } from './lib/process-cpu.js';
import { retryOnLockConflict } from '../src/storage/transactions.js';
import { seedBudget } from './lib/seed-accounts.js';

const SERVER_URL = process.env.BENCH_MYSQL_URL;
const TOTAL_SPANS = Number(process.env.BENCH_SPANS ?? 1_048_576);
const BATCH = Number(process.env.BENCH_BATCH ?? 512);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 4);
const WORKLOAD = (process.env.BENCH_WORKLOAD ?? 'vendor') as Workload;
// Attribute paths the endpoint rows' applications index (comma-separated; none by default). The
// ceiling rows store the same spans with empty slots.
const INDEXED_ATTRIBUTES = (process.env.BENCH_INDEXED_ATTRIBUTES ?? '').split(',').filter((path) => path !== '');
const BUDGETS = Number(process.env.BENCH_BUDGETS ?? 0);

function databaseUrl(name: string): string {
  return databaseUrlOn(SERVER_URL as string, name);
}

function adminKnex(url: string): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: { uri: url, supportBigNumbers: true, bigNumberStrings: true } as Knex.MySql2ConnectionConfig,
    pool: { min: 0, max: 1 },
  });
}

// ---------------------------------------------------------------------------------------------
// The endpoint: the service as a child process, fed by SENDERS concurrent senders.

/** How an endpoint row sends: POST /v1/traces with a token or with Basic key:secret, or OTLP/gRPC with Basic. */
type Transport = 'bearer' | 'basic' | 'grpc';

interface Endpoint {
  /** The service's process id, for its CPU time. */
  pid: number;
  send(batches: Uint8Array[]): Promise<number>;
  /** Resolves once the service's trace fold has filed every trace stored (at once with the fold off). */
  settle(): Promise<void>;
  /** Checks that every span sent was stored once and every trace summary counts its spans. */
  verify(spans: number): Promise<void>;
  stop(): Promise<void>;
}

function grpcSender(address: string, headers: Record<string, string>): Sender {
  // A client, and so an HTTP/2 connection, per sender, as each HTTP sender holds a keep-alive
  // connection; without a local subchannel pool grpc-js would share one connection among them.
  const clients = Array.from(
    { length: SENDERS },
    () => new Client(address, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }),
  );
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
  const bytes = (data: Buffer) => data;
  const send = (body: Uint8Array, sender: number) =>
    new Promise<void>((resolve, reject) => {
      // The same request bytes as the HTTP senders send (a Buffer view of them, not a copy).
      const request = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      clients[sender].makeUnaryRequest(EXPORT_PATH, bytes, bytes, request, metadata.clone(), (error, response) => {
        // An empty ExportTraceServiceResponse: every span accepted, as the HTTP 200 with an empty body.
        if (!error && response?.length === 0) resolve();
        else
          reject(
            new Error(
              `TraceService/Export answered ${error ? `${error.code} ${error.details}` : `a partial success (${response?.length} bytes)`}`,
            ),
          );
      });
    });
  return { send, close: () => clients.forEach((client) => client.close()) };
}

// The services fold their trace summaries in the background (TRACE_FOLD_INTERVAL_SECONDS, 0: off).
const FOLD_ON = process.env.TRACE_FOLD_INTERVAL_SECONDS !== '0';

/** Waits until no trace summary of the database is pending for the fold. */
async function untilFolded(knex: Knex, what: string): Promise<void> {
  const [application] = (await knex('applications').select('id')) as Array<{ id: string }>;
  const deadline = performance.now() + 300_000;
  for (;;) {
    const pending = await knex('traces').select('trace_id').where({ application_id: application.id, folded: FOLD_STATE.pending }).first();
    if (pending === undefined) return;
    if (performance.now() > deadline) throw new Error(`${what}: the fold left traces pending for 5 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** BENCH_BUDGETS budgets on the bench organization, their amounts spread from 10^-2 to 10^6 USD. */
async function seedBenchBudgets(knex: Knex): Promise<void> {
  const [application] = (await knex('applications').select('id', 'organization_id')) as Array<{ id: string; organization_id: string }>;
  for (let index = 0; index < BUDGETS; index += 1) {
    await seedBudget(knex, application.organization_id, {
      amount: Number((10 ** (-2 + (8 * index) / BUDGETS)).toPrecision(3)),
      period: index % 2 === 0 ? 'month' : 'day',
      application_id: index % 3 === 0 ? null : application.id,
    });
  }
}

async function startEndpoint(dbName: string, transport: Transport): Promise<Endpoint> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-bench-'));
  const { url, grpcPort, child } = await startService(databaseUrl(dbName), dataDir);
  const knex = adminKnex(databaseUrl(dbName));
  // The gRPC row sends the Basic credentials in its metadata.
  const headers = await ingestCaller(knex, url, transport === 'bearer' ? 'bearer' : 'basic', INDEXED_ATTRIBUTES);
  if (BUDGETS > 0) await seedBenchBudgets(knex);
  const sender = transport === 'grpc' ? grpcSender(`127.0.0.1:${grpcPort}`, headers) : httpSender(url, headers, SENDERS);
  return {
    pid: child.pid as number,
    send: (batches) => runSenders(batches, SENDERS, sender.send),
    settle: () => (FOLD_ON ? untilFolded(knex, `the ${transport} row's database`) : Promise.resolve()),
    verify: (expected) => verifyStoredOnce(knex, expected, `the ${transport} row's database`),
    async stop() {
      sender.close();
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await knex.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The ceiling: the same rows, straight into the same table through mysql2.

const COLUMNS = SPAN_ROW_COLUMNS;

function insertSql(rows: number): string {
  const tuple = `(${COLUMNS.map(() => '?').join(',')})`;
  return `INSERT INTO spans (${COLUMNS.join(',')}) VALUES ${Array.from({ length: rows }, () => tuple).join(',')}`;
}

/** Each batch's rows as statement parameters, decoded and mapped by the service's own code. */
type Value = string | number | null;

function ceilingValues(batches: Uint8Array[]): Value[][] {
  return batches.map((body) =>
    toSpanRows(decodeProtobufRequest(body), 'app_ceiling', Date.now()).rows.flatMap((row) => COLUMNS.map((column) => row[column])),
  );
}

interface Ceiling {
  insert(values: Value[][]): Promise<number>;
  verify(spans: number): Promise<void>;
  stop(): Promise<void>;
}

function startCeiling(dbName: string, method: 'query' | 'execute'): Ceiling {
  const pool = mysql.createPool({
    uri: databaseUrl(dbName),
    connectionLimit: SENDERS,
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: 'utf8mb4',
  });
  return {
    insert: (values) =>
      runSenders(values, SENDERS, async (params) => {
        const sql = insertSql(params.length / COLUMNS.length);
        // With spans clustered by (application, start time), concurrent multi-row inserts can
        // deadlock on InnoDB's gap locks; the service retries those, so the ceiling does too.
        await retryOnLockConflict(async () => {
          if (method === 'query') await pool.query(sql, params);
          else await pool.execute(sql, params);
        }, 20);
      }),
    async verify(expected) {
      const [[{ stored }]] = (await pool.query('SELECT COUNT(*) AS stored FROM spans')) as unknown as [[{ stored: string }]];
      if (Number(stored) !== expected) throw new Error(`the ${method} ceiling stored ${stored} rows, expected ${expected}`);
    },
    stop: () => pool.end(),
  };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!SERVER_URL) {
    log('Set BENCH_MYSQL_URL to a MariaDB/MySQL server the bench may create databases on, e.g. mysql://user:password@127.0.0.1:3307/mysql');
    process.exit(2);
  }
  if (BATCH % SPANS_PER_TRACE !== 0) throw new Error(`BENCH_BATCH must be a multiple of ${SPANS_PER_TRACE}`);
  if (!WORKLOADS.includes(WORKLOAD)) throw new Error(`BENCH_WORKLOAD must be one of ${WORKLOADS.join(', ')}`);
  // The services inherit it: every endpoint row evaluates its budgets each second.
  if (BUDGETS > 0) process.env.BUDGET_EVALUATION_INTERVAL_SECONDS = '1';
  const suffix = randomBytes(4).toString('hex');
  const names = {
    bearer: `spanledger_bench_bearer_${suffix}`,
    basic: `spanledger_bench_basic_${suffix}`,
    grpc: `spanledger_bench_grpc_${suffix}`,
    query: `spanledger_bench_query_${suffix}`,
    execute: `spanledger_bench_execute_${suffix}`,
  };
  const admin = adminKnex(SERVER_URL);
  const stops: Array<() => Promise<void>> = [];
  try {
    const [[server]] = await admin.raw(
      'SELECT VERSION() AS version, @@innodb_flush_log_at_trx_commit AS flush, @@innodb_buffer_pool_size AS pool',
    );
    for (const name of Object.values(names)) await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    for (const name of [names.query, names.execute]) {
      const knex = adminKnex(databaseUrl(name));
      await migrateToLatest(knex);
      await knex.destroy();
    }

    const loadBefore = os.loadavg()[0];
    let started = performance.now();
    const batches = makeBatches(TOTAL_SPANS, BATCH, WORKLOAD);
    const spans = batches.length * BATCH;
    const megabytes = batches.reduce((sum, body) => sum + body.length, 0) / 1e6;
    log(
      `made ${batches.length} protobuf requests of ${BATCH} spans (${spans} spans, ${megabytes.toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // Each service migrates its database at start.
    const endpoints = {} as Record<Transport, Endpoint>;
    for (const transport of ['bearer', 'basic', 'grpc'] as const) {
      endpoints[transport] = await startEndpoint(names[transport], transport);
      stops.push(() => endpoints[transport].stop());
    }
    const query = startCeiling(names.query, 'query');
    const execute = startCeiling(names.execute, 'execute');
    stops.push(
      () => query.stop(),
      () => execute.stop(),
    );

    // Warm-up (JIT, connections, prepared statements), then back to empty tables.
    const warmUp = batches.slice(0, 2 * SENDERS);
    for (const endpoint of Object.values(endpoints)) {
      await endpoint.send(warmUp);
      await endpoint.settle();
    }
    await query.insert(ceilingValues(warmUp));
    await execute.insert(ceilingValues(warmUp));
    for (const name of Object.values(names)) {
      await admin.raw(`DELETE FROM \`${name}\`.spans`);
      await admin.raw(`DELETE FROM \`${name}\`.traces`);
      await admin.raw(`DELETE FROM \`${name}\`.usage_hourly`);
    }
    // The slot values are keyed by span and trace: left behind, the same spans sent again would
    // collide with them (an application that indexes a key, BENCH_INDEXED_ATTRIBUTES).
    for (const name of [names.bearer, names.basic, names.grpc]) {
      await admin.raw(`DELETE FROM \`${name}\`.span_slot_values`);
      await admin.raw(`DELETE FROM \`${name}\`.trace_slot_values`);
    }

    // The five are measured in interleaved rounds, in a rotating order, so that whatever else
    // runs on the machine weighs on each of them alike; the tables grow alike too. After its
    // step, untimed, each service's fold files what is left of the step's traces (with the fold
    // on), so that no service's background work runs in another row's step.
    // CPU seconds each phase cost: the services (all three, the idle ones cost next to nothing),
    // this process (the senders, or the ceiling's mysql2 client) and the database server, when
    // it runs on this machine.
    const databasePid = databaseServerPid(Number(new URL(SERVER_URL as string).port) || undefined);
    const services = Object.values(endpoints).map((endpoint) => endpoint.pid);
    const processes = { service: () => totalCpuSeconds(services), bench: ownCpuSeconds, database: () => totalCpuSeconds([databasePid]) };
    const rounds = 8;
    started = performance.now();
    const measured = await interleavedRounds(
      batches,
      rounds,
      ['bearer', 'basic', 'grpc', 'query', 'execute'] as const,
      processes,
      (slice) => {
        const values = ceilingValues(slice); // outside the timing
        return [
          ['bearer', () => endpoints.bearer.send(slice), () => endpoints.bearer.settle()],
          ['basic', () => endpoints.basic.send(slice), () => endpoints.basic.settle()],
          ['grpc', () => endpoints.grpc.send(slice), () => endpoints.grpc.settle()],
          ['query', () => query.insert(values)],
          ['execute', () => execute.insert(values)],
        ];
      },
    );
    const { cpu, settling } = measured;
    const seconds = Object.fromEntries(
      Object.entries(measured.seconds).map(([name, values]) => [name, values.reduce((sum, value) => sum + value, 0)]),
    ) as Record<keyof typeof cpu, number>;
    for (const endpoint of Object.values(endpoints)) await endpoint.verify(spans);
    await query.verify(spans);
    await execute.verify(spans);
    log(`all rounds: ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const rate = (value: number) => Math.round(spans / value);
    const perThousand = (value: number) => ((1e6 * value) / spans).toFixed(1);
    const cpuCells = (name: keyof typeof seconds) =>
      `${perThousand(cpu[name].service)} | ${perThousand(cpu[name].bench)} | ${databasePid ? perThousand(cpu[name].database) : 'n/a'}`;
    const ceiling = Math.max(rate(seconds.query), rate(seconds.execute));
    const lines = [
      `MariaDB/MySQL ${server.version} (innodb_flush_log_at_trx_commit=${server.flush}, buffer pool ${Math.round(Number(server.pool) / 2 ** 20)} MiB), ${os.cpus().length} cores, Node ${process.version}`,
      `${spans} spans${WORKLOAD === 'vendor' ? '' : ` (workload ${WORKLOAD})`}${BUDGETS > 0 ? `, ${BUDGETS} budgets evaluated every second` : ''}, ${BATCH} a request, ${SENDERS} concurrent senders, ${rounds} interleaved rounds; 1-minute load average before the run ${loadBefore.toFixed(1)}`,
      '',
      '| what | seconds | spans/s | CPU ms per 1,000 spans: service | bench process | database server |',
      '|---|---:|---:|---:|---:|---:|',
      `| POST /v1/traces, Bearer token (protobuf, stored and committed, trace summaries kept) | ${seconds.bearer.toFixed(1)} | ${rate(seconds.bearer)} | ${cpuCells('bearer')} |`,
      `| POST /v1/traces, Basic key:secret (the key's own application) | ${seconds.basic.toFixed(1)} | ${rate(seconds.basic)} | ${cpuCells('basic')} |`,
      `| OTLP/gRPC TraceService/Export, Basic key:secret (a connection per sender) | ${seconds.grpc.toFixed(1)} | ${rate(seconds.grpc)} | ${cpuCells('grpc')} |`,
      `| ceiling: multi-row INSERT, mysql2 query (client-side escaping) | ${seconds.query.toFixed(1)} | ${rate(seconds.query)} | ${cpuCells('query')} |`,
      `| ceiling: multi-row INSERT, mysql2 execute (prepared statements) | ${seconds.execute.toFixed(1)} | ${rate(seconds.execute)} | ${cpuCells('execute')} |`,
      '',
      `endpoint / best ceiling: ${((100 * rate(seconds.bearer)) / ceiling).toFixed(0)} %`,
      `endpoint (Basic) / best ceiling: ${((100 * rate(seconds.basic)) / ceiling).toFixed(0)} %`,
      `endpoint (OTLP/gRPC) / best ceiling: ${((100 * rate(seconds.grpc)) / ceiling).toFixed(0)} %`,
    ];
    if (FOLD_ON) {
      const settled = (name: Transport) =>
        `${settling.seconds[name].toFixed(1)} | ${perThousand(settling.cpu[name].service)} | ${databasePid ? perThousand(settling.cpu[name].database) : 'n/a'}`;
      lines.push(
        '',
        "The fold after each step, untimed, until every trace of the step was filed (seconds include waiting for the service's next pass):",
        '',
        '| after the steps of | seconds | CPU ms per 1,000 spans: service | database server |',
        '|---|---:|---:|---:|',
        ...(['bearer', 'basic', 'grpc'] as const).map((name) => `| ${name} | ${settled(name)} |`),
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const stop of stops) await stop();
    for (const name of Object.values(names)) await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.destroy();
  }
}

await main();
