// `npm run bench:export`: bulk exports (src/exports/, docs/exports.md) of the query bench's main
// day through the HTTP API, per format, and OTLP ingestion beside a running export, on a scratch
// SQLite file and, when BENCH_MYSQL_URL names a MariaDB/MySQL server, on the query bench's database.
//
//   npm run bench:export
//   BENCH_MYSQL_URL=mysql://user:password@127.0.0.1:3307/mysql npm run bench:export
//   BENCH_SQLITE=0 BENCH_MYSQL_URL=… npm run bench:export      # MariaDB/MySQL only
//
// The data is the query bench's (scripts/lib/bench-query-data.ts): a main day of 1,000,000 spans
// in 100,000 traces of 10 and 6 thinner days before it. On MariaDB/MySQL it is bench:query's own
// database, reused when whole and seeded again as bench:query would (BENCH_RESEED=1 forces it);
// on SQLite it is seeded into a scratch file once per run (bench:query keeps no SQLite data).
// The service runs as a child process (scripts/lib/bench-service.ts) with EXPORT_SETTLE_SECONDS=0,
// so a job's time from creation to `succeeded` holds no settle wait, only the wait for the
// worker's next look (EXPORT_INTERVAL_SECONDS, 1), reported apart; EXPORT_MAX_BYTES_PER_ORGANIZATION
// is raised so that the files of one run fit. EXPORT_BATCH_ROWS is the service's (2,000 unless set).
//
// 1. Exports, one at a time: the main day at grain `spans`, no filter, in each format of
//    BENCH_EXPORT_FORMATS (ndjson,csv,parquet,ndjson.gz,csv.gz: `.gz` with compression=gzip), then at grain `traces` as NDJSON. Each is created,
//    polled every 250 ms until it ends (BENCH_EXPORT_BUDGET_SECONDS, 1,200, at most: then it is
//    cancelled and the run fails), and downloaded as a stream, its bytes counted and not kept
//    (the last 16 MiB of a Parquet file are, for its footer). Checked: the job's rows equal the
//    total of `POST /engine/query` (or `POST /traces`) for the same window, and the file's
//    records (lines, or the Parquet footer's row count) and bytes equal the job's. Then its parts
//    are deleted, so the database keeps only the bench data.
// 2. Ingestion beside an export: OTLP/HTTP protobuf requests of the ingest bench's workload
//    (scripts/lib/bench-workload.ts, 512 spans each, 4 senders on keep-alive connections) into a
//    scratch application of another organization for BENCH_INGEST_SECONDS (30) at most, or
//    BENCH_INGEST_SPANS (786,432) at most, in four windows: without an export, with one, with one,
//    without (interleaved, so that other load on the machine weighs on both alike), repeated
//    BENCH_INGEST_ROUNDS (1) times. "With": an NDJSON export of the main day is created and taken
//    by the worker first; the window ends early if the export ends, and the export is cancelled
//    after it. After each window, untimed, the service's fold files the window's traces, every
//    accepted span must be stored, and the scratch application's spans are purged (the retention
//    purger's own batches), so that each window starts from the same tables. A refused request
//    (503 when the one SQLite connection is busy past its wait) is counted, not sent again. At the
//    end the scratch application is deleted, so that bench:query's data stays as it expects.
//
// CPU from /proc: the service's, and the database server's when it runs on this machine (SQLite
// runs inside the service). Results go to stdout as tables to paste; progress to stderr.
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { parquetMetadata } from 'hyparquet';
import { writeTransaction } from '../src/storage/transactions.js';
import { softDeleteApplicationWithKeys } from '../src/storage/accounts/applications.js';
import { exportHousekeeping } from '../src/storage/exports/export-housekeeping.js';
import { EXPORTS } from '../src/storage/exports/export-jobs.js';
import { EXPORT_PARTS } from '../src/storage/exports/export-parts.js';
import { FOLD_STATE } from '../src/storage/spans/fold/trace-figures.js';
import { sqlSpanStore } from '../src/storage/spans/sql-span-store.js';
import { benchScale, DAY_NS, DAY_START_NS } from './lib/bench-query-workload.js';
import { defaultDatabase, mysqlBenchData, sqliteBenchData, tracesPerDay, type BenchData } from './lib/bench-query-data.js';
import { httpSender } from './lib/bench-senders.js';
import { apiKeyToken, log, startService } from './lib/bench-service.js';
import { makeBatches } from './lib/bench-workload.js';
import { cpuSeconds, databaseServerPid } from './lib/process-cpu.js';
import { seedApplication, seedOrganization } from './lib/seed-accounts.js';

const MYSQL_SERVER = process.env.BENCH_MYSQL_URL;
/** BENCH_SQLITE=0: MariaDB/MySQL only. */
const SQLITE = process.env.BENCH_SQLITE !== '0';
const TRACES = tracesPerDay();
const SCALE = benchScale(TRACES);
const MYSQL_DATABASE = process.env.BENCH_QUERY_DATABASE ?? defaultDatabase(TRACES);
const FORMATS = (process.env.BENCH_EXPORT_FORMATS ?? 'ndjson,csv,parquet,ndjson.gz,csv.gz').split(',').map((name) => name.trim());
const EXPORT_BUDGET_MS = Number(process.env.BENCH_EXPORT_BUDGET_SECONDS ?? 1200) * 1000;
const INGEST_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 30);
const INGEST_BATCH = 512;
const INGEST_SPANS = Math.ceil(Number(process.env.BENCH_INGEST_SPANS ?? 786_432) / INGEST_BATCH) * INGEST_BATCH;
const SENDERS = 4;
/** Each round is the four windows without, with, with, without. */
const INGEST_ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 1);
const POLL_MS = 250;
const SCRATCH_APPLICATION = 'bench:export ingestion';
/** The last bytes of a download kept: a Parquet footer (about 2.2 kB per row group, docs/exports-parquet.md) fits. */
const TAIL_BYTES = 16 * 2 ** 20;

// The service inherits these (startService passes the environment on).
process.env.EXPORT_SETTLE_SECONDS = '0';
process.env.EXPORT_MAX_BYTES_PER_ORGANIZATION = String(2 ** 40);

const rfc3339 = (nanos: bigint) => new Date(Number(nanos / 1_000_000n)).toISOString();
const MAIN_DAY = `start_time=${rfc3339(DAY_START_NS)}&end_time=${rfc3339(DAY_START_NS + DAY_NS)}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The HTTP API.

interface ExportJob {
  id: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired';
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  progress: { rows: number; bytes: number };
  download_path: string | null;
  error: { code: string; message: string } | null;
}

class Api {
  constructor(
    readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  async call<T>(method: string, pathAndQuery: string, body?: unknown, expected = 200): Promise<T> {
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers = { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      // A connection per call: making a window's requests blocks this process for seconds, long
      // enough for the service to close an idle keep-alive connection that a pool would reuse.
      const request = http.request(
        new URL(pathAndQuery, this.url),
        { method, agent: false, headers: { ...headers, 'content-length': Buffer.byteLength(text) } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(text);
    });
    if (answer.status !== expected) throw new Error(`${method} ${pathAndQuery} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    return JSON.parse(answer.text) as T;
  }

  /** `format` may end in `.gz`: that format with `compression=gzip`. */
  createExport(request: { grain: 'spans' | 'traces'; format: string }): Promise<ExportJob> {
    const [format, gz] = request.format.split('.');
    const query = gz === 'gz' ? `${MAIN_DAY}&compression=gzip` : MAIN_DAY;
    return this.call('POST', `/engine/exports?${query}`, { grain: request.grain, format }, 202);
  }

  getExport(id: string): Promise<ExportJob> {
    return this.call('GET', `/engine/exports/${id}`);
  }

  cancelExport(id: string): Promise<ExportJob> {
    return this.call('POST', `/engine/exports/${id}/cancel`);
  }

  /** What the same query pages through: its total, as the export must hold it. */
  async total(grain: 'spans' | 'traces'): Promise<number> {
    if (grain === 'spans') return (await this.call<{ total: number }>('POST', `/engine/query?${MAIN_DAY}&limit=1`, { filter: null })).total;
    return (await this.call<{ pagination: { total: number } }>('POST', `/traces?${MAIN_DAY}&limit=1`, { filter: null })).pagination.total;
  }

  /** Streams the file, counting its bytes and line ends (gunzipped, with `gzip`); keeps only its last TAIL_BYTES. */
  download(filePath: string, gzip = false): Promise<{ bytes: number; lines: number; seconds: number; head: Buffer; tail: Buffer }> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const request = http.get(new URL(filePath, this.url), { agent: false, headers: this.headers }, (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`GET ${filePath} answered ${response.statusCode}`));
          return;
        }
        let bytes = 0;
        let lines = 0;
        let head = Buffer.alloc(0);
        let tail: Buffer[] = [];
        let tailBytes = 0;
        // The bytes sent are counted as they come; the lines in what they decompress to.
        const content = gzip ? response.pipe(zlib.createGunzip()) : response;
        if (gzip) response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        content.on('data', (chunk: Buffer) => {
          if (!gzip) bytes += chunk.length;
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
          if (head.length < 4) head = Buffer.concat([head, chunk.subarray(0, 4)]);
          tail.push(chunk);
          tailBytes += chunk.length;
          while (tail.length > 1 && tailBytes - (tail[0] as Buffer).length >= TAIL_BYTES) tailBytes -= (tail.shift() as Buffer).length;
        });
        content.on('end', () => {
          const seconds = (performance.now() - started) / 1000;
          const whole = Buffer.concat(tail);
          tail = [];
          resolve({ bytes, lines, seconds, head: head.subarray(0, 4), tail: whole.subarray(Math.max(0, whole.length - TAIL_BYTES)) });
        });
        response.on('error', reject);
        content.on('error', reject);
      });
      request.on('error', reject);
    });
  }
}

/** Polls the job until its state is not one of `states`, within the export budget; answers it. */
async function whileIn(api: Api, job: ExportJob, states: ReadonlyArray<ExportJob['state']>): Promise<ExportJob> {
  const deadline = performance.now() + EXPORT_BUDGET_MS;
  let current = job;
  while (states.includes(current.state)) {
    if (performance.now() > deadline) {
      await api.cancelExport(job.id).catch(() => undefined);
      throw new Error(`export ${job.id} was still ${current.state} after ${EXPORT_BUDGET_MS / 1000} s; cancelled`);
    }
    await sleep(POLL_MS);
    current = await api.getExport(job.id);
  }
  return current;
}

// ---------------------------------------------------------------------------------------------
// Cleaning up: nothing of a run stays in the bench database.

/**
 * `work` again while SQLite answers busy: the bench writes to the file beside the service's one
 * connection (its fold, its export housekeeping), which the service itself never has to share.
 */
async function retryBusy<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 100 || !String((error as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY')) throw error;
      await sleep(100);
    }
  }
}

/** Ends every export of the application and deletes their parts (the housekeeping's bounded deletes) and records. */
async function dropExports(knex: Knex, applicationId: string): Promise<void> {
  // Marked dead here rather than waiting a day for their expiry: the housekeeping deletes dead jobs' parts.
  await retryBusy(() =>
    knex(EXPORTS).where({ application_id: applicationId }).whereIn('state', ['queued', 'running']).update({ state: 'cancelled' }),
  );
  await retryBusy(() => knex(EXPORTS).where({ application_id: applicationId, state: 'succeeded' }).update({ state: 'expired' }));
  const ids = knex(EXPORTS).where({ application_id: applicationId }).select('id');
  for (let pass = 0; pass < 10_000; pass += 1) {
    if ((await knex(EXPORT_PARTS).whereIn('export_id', ids).first('export_id')) === undefined) break;
    await retryBusy(() => exportHousekeeping(knex, Date.now(), 0));
  }
  await retryBusy(() => knex(EXPORTS).where({ application_id: applicationId }).del());
}

/** Purges every span of the application in the retention purger's own batches (derived data with them). */
async function purgeSpans(knex: Knex, applicationId: string): Promise<void> {
  const spans = sqlSpanStore(knex);
  const started = performance.now();
  let purged = 0;
  for (let batch = 0; batch < 100_000; batch += 1) {
    const { deleted, full } = await retryBusy(() => spans.purge({ applicationId, beforeNs: null, limit: 10_000 }));
    purged += deleted;
    if (!full) break;
  }
  log(`  purged ${purged} spans of the scratch application in ${Math.round((performance.now() - started) / 1000)} s`);
}

/** Purges the spans of the scratch applications (left by this run or an interrupted one) and deletes them. */
async function dropScratchApplications(knex: Knex): Promise<void> {
  const scratch = (await knex('applications').where({ name: SCRATCH_APPLICATION }).whereNull('deleted_at').select('id')) as Array<{
    id: string;
  }>;
  for (const { id } of scratch) {
    await purgeSpans(knex, id);
    await retryBusy(() => writeTransaction(knex, (trx) => softDeleteApplicationWithKeys(trx, id, Date.now())));
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Exports.

interface ExportRow {
  what: string;
  rows: number;
  /** Creation to `succeeded`, and of that the wait before a worker took the job, by the job's own times. */
  seconds: number;
  queuedSeconds: number;
  bytes: number;
  downloadSeconds: number;
  serviceCpu: number;
  databaseCpu: number | undefined;
}

function cpuOf(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : cpuSeconds(pid);
}

async function measureExport(
  api: Api,
  knex: Knex,
  applicationId: string,
  pids: { service: number; database: number | undefined },
  grain: 'spans' | 'traces',
  format: string,
): Promise<ExportRow> {
  const what = `${grain}, ${format}`;
  const expected = await api.total(grain);
  log(`  export ${what}: ${expected} records expected`);
  const [serviceBefore, databaseBefore] = [cpuOf(pids.service) as number, cpuOf(pids.database)];
  const created = await api.createExport({ grain, format });
  const job = await whileIn(api, created, ['queued', 'running']);
  const [serviceAfter, databaseAfter] = [cpuOf(pids.service) as number, cpuOf(pids.database)];
  if (job.state !== 'succeeded') throw new Error(`export ${what} ended ${job.state}: ${JSON.stringify(job.error)}`);
  if (job.progress.rows !== expected) throw new Error(`export ${what} holds ${job.progress.rows} records, the query ${expected}`);
  const file = await api.download(job.download_path as string, format.endsWith('.gz'));
  if (file.bytes !== job.progress.bytes)
    throw new Error(`export ${what}: downloaded ${file.bytes} bytes, the job wrote ${job.progress.bytes}`);
  checkRecords(format, file, expected);
  await dropExports(knex, applicationId);
  const at = (time: string | null) => Date.parse(time as string);
  const row: ExportRow = {
    what,
    rows: job.progress.rows,
    seconds: (at(job.finished_at) - at(job.created_at)) / 1000,
    queuedSeconds: (at(job.started_at) - at(job.created_at)) / 1000,
    bytes: file.bytes,
    downloadSeconds: file.seconds,
    serviceCpu: serviceAfter - serviceBefore,
    databaseCpu: databaseBefore === undefined || databaseAfter === undefined ? undefined : databaseAfter - databaseBefore,
  };
  log(`  export ${what}: ${row.seconds.toFixed(1)} s, ${row.bytes} bytes, downloaded in ${row.downloadSeconds.toFixed(1)} s`);
  return row;
}

/** The file holds the records: a line each (and CSV's header line), or the Parquet footer's row count. */
function checkRecords(format: string, file: { lines: number; head: Buffer; tail: Buffer }, expected: number): void {
  let records: number;
  if (format.startsWith('ndjson')) records = file.lines;
  else if (format.startsWith('csv')) records = file.lines - 1;
  else {
    if (file.head.toString('latin1') !== 'PAR1') throw new Error('the Parquet file does not open with PAR1');
    records = Number(parquetMetadata(file.tail).num_rows);
  }
  if (records !== expected) throw new Error(`the ${format} file holds ${records} records, expected ${expected}`);
}

// ---------------------------------------------------------------------------------------------
// 2. Ingestion beside an export.

interface IngestWindow {
  withExport: boolean;
  seconds: number;
  spans: number;
  refused: number;
  /** Records the export wrote during the window, and whether it was still running at its end. */
  exportRows: number | undefined;
  exportEndedEarly: boolean;
  serviceCpu: number;
  databaseCpu: number | undefined;
}

/** Waits until the service's fold has filed every trace of the application (bounded). */
async function untilFolded(knex: Knex, applicationId: string): Promise<void> {
  const deadline = performance.now() + 300_000;
  while ((await knex('traces').where({ application_id: applicationId, folded: FOLD_STATE.pending }).first('trace_id')) !== undefined) {
    if (performance.now() > deadline) throw new Error('the fold left traces pending for 5 minutes');
    await sleep(200);
  }
}

async function ingestWindow(
  api: Api,
  ingestHeaders: Record<string, string>,
  knex: Knex,
  ids: { bench: string; scratch: string },
  pids: { service: number; database: number | undefined },
  withExport: boolean,
): Promise<IngestWindow> {
  const batches = makeBatches(INGEST_SPANS, INGEST_BATCH); // fresh trace ids, made before the window
  let job: ExportJob | undefined;
  if (withExport) job = await whileIn(api, await api.createExport({ grain: 'spans', format: 'ndjson' }), ['queued']);
  if (job && job.state !== 'running') throw new Error(`the export beside ingestion was ${job.state} before ingestion started`);
  const sender = httpSender(api.url, ingestHeaders, SENDERS);
  let exportEnded = false;
  let done = false;
  // Ends the window early should the export end first: what follows would be ingestion alone.
  const watching = (async () => {
    while (job && !done && !exportEnded) {
      await sleep(POLL_MS);
      const current = await api.getExport(job.id);
      if (current.state !== 'running') exportEnded = true;
    }
  })();
  const rowsBefore = job ? (await api.getExport(job.id)).progress.rows : 0;
  const [serviceBefore, databaseBefore] = [cpuOf(pids.service) as number, cpuOf(pids.database)];
  const started = performance.now();
  const deadline = started + INGEST_SECONDS * 1000;
  let next = 0;
  let accepted = 0;
  let refused = 0;
  let firstRefusal = '';
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, senderIndex) => {
      while (next < batches.length && performance.now() < deadline && !exportEnded) {
        try {
          await sender.send(batches[next++] as Uint8Array, senderIndex);
          accepted += 1;
        } catch (error) {
          refused += 1;
          firstRefusal ||= (error as Error).message;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const [serviceAfter, databaseAfter] = [cpuOf(pids.service) as number, cpuOf(pids.database)];
  done = true;
  await watching;
  sender.close();
  let exportRows: number | undefined;
  if (job) {
    exportRows = (await api.getExport(job.id)).progress.rows - rowsBefore;
    if (!exportEnded) await api.cancelExport(job.id);
    await whileIn(api, await api.getExport(job.id), ['queued', 'running']);
    await dropExports(knex, ids.bench);
  }
  if (refused > 0) log(`  ${refused} requests refused, the first: ${firstRefusal}`);
  if (accepted === 0) throw new Error('every ingestion request was refused');
  await untilFolded(knex, ids.scratch);
  const [{ stored }] = (await knex('spans').where({ application_id: ids.scratch }).count({ stored: '*' })) as Array<{
    stored: number | string;
  }>;
  if (Number(stored) !== accepted * INGEST_BATCH)
    throw new Error(`the scratch application holds ${stored} spans; ${accepted * INGEST_BATCH} were accepted`);
  // Every window's workload has the same start times: left in place, a window's spans would land
  // among the last one's in the clustered index and each window would start from larger tables.
  await purgeSpans(knex, ids.scratch);
  const window: IngestWindow = {
    withExport,
    seconds,
    spans: accepted * INGEST_BATCH,
    refused,
    exportRows,
    exportEndedEarly: exportEnded,
    serviceCpu: serviceAfter - serviceBefore,
    databaseCpu: databaseBefore === undefined || databaseAfter === undefined ? undefined : databaseAfter - databaseBefore,
  };
  log(
    `  ingestion ${withExport ? 'with' : 'without'} an export: ${Math.round(window.spans / seconds)} spans/s over ${seconds.toFixed(1)} s` +
      (exportRows === undefined ? '' : `; the export wrote ${exportRows} records meanwhile${exportEnded ? ' and ended' : ''}`),
  );
  return window;
}

// ---------------------------------------------------------------------------------------------

interface Measured {
  database: string;
  load: [number, number];
  exports: ExportRow[];
  windows: IngestWindow[];
}

async function measure(database: string, data: BenchData, databasePid: number | undefined): Promise<Measured> {
  const { knex, url, applicationId } = data;
  const loadBefore = os.loadavg()[0];
  // Whatever an interrupted run left: its exports' files and its scratch application's spans.
  await dropExports(knex, applicationId);
  await dropScratchApplications(knex);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-bench-export-'));
  const service = await startService(url, dataDir);
  try {
    const pids = { service: service.child.pid as number, database: databasePid };
    const token = await apiKeyToken(knex, service.url, applicationId, ['read:traces']);
    const api = new Api(service.url, { authorization: `Bearer ${token}`, 'x-vendor-app-id': applicationId });
    log(`${database}: exports of the main day`);
    const exports: ExportRow[] = [];
    for (const format of FORMATS) exports.push(await measureExport(api, knex, applicationId, pids, 'spans', format));
    exports.push(await measureExport(api, knex, applicationId, pids, 'traces', 'ndjson'));

    log(`${database}: ingestion without and with an export`);
    const scratch = await seedApplication(knex, await seedOrganization(knex, { name: 'Bench export ingestion' }), {
      name: SCRATCH_APPLICATION,
    });
    const ingestToken = await apiKeyToken(knex, service.url, scratch, ['write:traces']);
    const ingestHeaders = { authorization: `Bearer ${ingestToken}`, 'x-vendor-app-id': scratch };
    const windows: IngestWindow[] = [];
    for (let round = 0; round < INGEST_ROUNDS; round += 1)
      for (const withExport of [false, true, true, false])
        windows.push(await ingestWindow(api, ingestHeaders, knex, { bench: applicationId, scratch }, pids, withExport));
    return { database, load: [loadBefore, os.loadavg()[0]], exports, windows };
  } finally {
    service.child.kill('SIGTERM');
    await new Promise((resolve) => service.child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
    await dropExports(knex, applicationId);
    await dropScratchApplications(knex);
  }
}

async function onSqlite(): Promise<Measured> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-bench-export-sqlite-'));
  const data = await sqliteBenchData(path.join(dir, 'bench.sqlite'), SCALE);
  try {
    return await measure('SQLite', data, undefined);
  } finally {
    await data.knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function onMysql(serverUrl: string): Promise<Measured> {
  const data = await mysqlBenchData(serverUrl, MYSQL_DATABASE, SCALE);
  try {
    // The server of this URL's port: another MariaDB on the machine (a development one) is not it.
    return await measure('MariaDB/MySQL', data, databaseServerPid(Number(new URL(serverUrl).port) || undefined));
  } finally {
    await data.knex.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The report.

function report({ database, load, exports, windows }: Measured): string {
  const perThousand = (cpu: number | undefined, rows: number) => (cpu === undefined ? 'n/a' : ((1e6 * cpu) / rows).toFixed(1));
  const percent = (cpu: number | undefined, seconds: number) => (cpu === undefined ? 'n/a' : `${Math.round((100 * cpu) / seconds)} %`);
  const rate = (spans: number, seconds: number) => Math.round(spans / seconds);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const without = windows.filter((window) => !window.withExport).map((window) => window.spans / window.seconds);
  const beside = windows.filter((window) => window.withExport).map((window) => window.spans / window.seconds);
  return [
    `${database}: the main day, ${rfc3339(DAY_START_NS).slice(0, 10)} (${TRACES} traces of 10 spans seeded; ${exports[0]?.rows ?? '?'} spans start in it), of ${SCALE.totalSpans} spans stored; ` +
      `EXPORT_BATCH_ROWS ${process.env.EXPORT_BATCH_ROWS ?? 2000}, EXPORT_SETTLE_SECONDS 0; 1-minute load average ${load[0].toFixed(1)} before, ${load[1].toFixed(1)} after; ${os.cpus().length} cores, Node ${process.version}`,
    '',
    '| export (grain, format) | records | seconds, creation → succeeded | of which before a worker took it | records/s | file bytes | bytes a record | download s | download MB/s | CPU ms per 1,000 records: service | database server |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...exports.map(
      (row) =>
        `| ${row.what} | ${row.rows} | ${row.seconds.toFixed(1)} | ${row.queuedSeconds.toFixed(1)} | ${rate(row.rows, row.seconds)} | ${row.bytes} | ` +
        `${(row.bytes / row.rows).toFixed(0)} | ${row.downloadSeconds.toFixed(1)} | ${(row.bytes / 1e6 / row.downloadSeconds).toFixed(0)} | ` +
        `${perThousand(row.serviceCpu, row.rows)} | ${perThousand(row.databaseCpu, row.rows)} |`,
    ),
    '',
    `OTLP/HTTP ingestion into another application (${INGEST_BATCH} spans a request, ${SENDERS} senders, ${INGEST_SECONDS} s or ${INGEST_SPANS} spans a window at most, ${INGEST_ROUNDS} round(s) of four windows), without and beside an NDJSON export of the main day:`,
    '',
    '| window | seconds | spans | spans/s | requests refused | export records written meanwhile (records/s) | CPU of the window: service | database server |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...windows.map(
      (window, index) =>
        `| ${index + 1}, ${window.withExport ? 'with an export' : 'without'} | ${window.seconds.toFixed(1)} | ${window.spans} | ${rate(window.spans, window.seconds)} | ${window.refused} | ` +
        `${window.exportRows === undefined ? '' : `${window.exportRows} (${rate(window.exportRows, window.seconds)})${window.exportEndedEarly ? ', the export ended' : ''}`} | ` +
        `${percent(window.serviceCpu, window.seconds)} | ${percent(window.databaseCpu, window.seconds)} |`,
    ),
    '',
    `ingestion beside an export / without: ${Math.round(mean(beside))} / ${Math.round(mean(without))} spans/s = ${((100 * mean(beside)) / mean(without)).toFixed(0)} %`,
    '',
  ].join('\n');
}

const results = [...(SQLITE ? [await onSqlite()] : []), ...(MYSQL_SERVER ? [await onMysql(MYSQL_SERVER)] : [])];
process.stdout.write(results.map(report).join('\n'));
