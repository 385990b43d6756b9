// `npm run bench:fold`: what filing a backlog of trace summaries costs (the trace fold,
// src/storage/spans/fold/trace-folding.ts): wall time and CPU of the database server and of this
// process per 1,000 traces, for backlogs of the sizes given.
//
//   BENCH_MYSQL_URL=mysql://user:password@127.0.0.1:3307/mysql npm run bench:fold
//
// For each backlog (BENCH_FOLD_TRACES, default 20000,100000 traces a main day; the query bench's
// workload, so 1.6 times as many traces in all with its prior days), a scratch database
// spanledger_bench_fold is created, migrated and seeded through the span writer (every summary
// pending, as after a burst of ingestion or the folding migration), then folded from this process
// as the background job folds (foldApplication, TRACE_FOLD_BATCH_SIZE traces a transaction,
// default 1000), and dropped. The CPU of the server is read from /proc when it runs on this
// machine (n/a otherwise).
import knexFactory from 'knex';
import mysql from 'mysql2/promise';
import { migrateToLatest } from '../src/storage/migrations/index.js';
import { foldApplication } from '../src/storage/spans/fold/trace-folding.js';
import { benchScale, INDEX_MODEL, MODEL_ATTRIBUTE_PATH, seedSpans } from './lib/bench-query-workload.js';
import { databaseUrl, log } from './lib/bench-service.js';
import { cpuSeconds, databaseServerPid, ownCpuSeconds } from './lib/process-cpu.js';
import { seedApplication, seedOrganization } from './lib/seed-accounts.js';

const SERVER_URL = process.env.BENCH_MYSQL_URL;
const DATABASE = 'spanledger_bench_fold';
const BACKLOGS = (process.env.BENCH_FOLD_TRACES ?? '20000,100000').split(',').map(Number);
const BATCH = Number(process.env.TRACE_FOLD_BATCH_SIZE ?? 1000);

interface FoldCost {
  traces: number;
  wallMs: number;
  serverCpuMs: number | undefined;
  ownCpuMs: number;
}

async function foldBacklog(serverUrl: string, tracesPerDay: number): Promise<FoldCost> {
  const admin = await mysql.createConnection(serverUrl);
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const knex = knexFactory({
    client: 'mysql2',
    connection: `${databaseUrl(serverUrl, DATABASE)}?supportBigNumbers=true`,
    pool: { min: 0, max: 6 },
  });
  try {
    await migrateToLatest(knex);
    // Indexed as the query bench's application is (the workload's rows carry the slot value); the fold reads no slot.
    const applicationId = await seedApplication(knex, await seedOrganization(knex, { name: 'Bench' }), {
      name: 'bench:fold',
      indexedAttributes: INDEX_MODEL ? [MODEL_ATTRIBUTE_PATH] : [],
    });
    await seedSpans(knex, applicationId, benchScale(tracesPerDay));
    const server = databaseServerPid();
    const serverBefore = server === undefined ? undefined : cpuSeconds(server);
    const ownBefore = ownCpuSeconds();
    const started = performance.now();
    const traces = await foldApplication(knex, applicationId, BATCH);
    const wallMs = performance.now() - started;
    const serverAfter = server === undefined ? undefined : cpuSeconds(server);
    return {
      traces,
      wallMs,
      serverCpuMs: serverBefore === undefined || serverAfter === undefined ? undefined : (serverAfter - serverBefore) * 1000,
      ownCpuMs: (ownCpuSeconds() - ownBefore) * 1000,
    };
  } finally {
    await knex.destroy();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  if (!SERVER_URL) throw new Error('BENCH_MYSQL_URL names the MariaDB/MySQL server to create the scratch database on');
  const rows: string[] = [];
  for (const tracesPerDay of BACKLOGS) {
    log(`backlog of ${tracesPerDay} traces a main day: seeding`);
    const cost = await foldBacklog(SERVER_URL, tracesPerDay);
    const per = (ms: number) => (ms / cost.traces) * 1000;
    rows.push(
      `| ${cost.traces} | ${(cost.wallMs / 1000).toFixed(1)} | ${per(cost.wallMs).toFixed(0)} | ${cost.serverCpuMs === undefined ? 'n/a' : per(cost.serverCpuMs).toFixed(0)} | ${per(cost.ownCpuMs).toFixed(0)} |`,
    );
  }
  console.log(`Trace fold of a pending backlog, ${BATCH} traces a transaction (ms per 1,000 traces):\n`);
  console.log('| pending traces | seconds | wall | database server CPU | fold process CPU |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
}

await main();
