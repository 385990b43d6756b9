// `npm run bench:cluster` (issue 16): OTLP ingestion through nginx into three service instances on
// a three-node MariaDB Galera cluster, beside one service instance on one plain MariaDB server, in
// the same run. Needs root (network namespaces), as `npm run cluster` does.
//
//   npm run bench:cluster
//
// Both topologies come from scripts/lib/cluster/: the cluster as `npm run cluster` starts it
// (nodes in their own network namespaces, instances one per node, nginx in front), and the
// baseline as a one-node "cluster" without replication: the same server, option file (less the
// wsrep lines), namespace, service instance and environment, its senders going straight to the
// instance. Each gets an application and an API key holding write:traces; BENCH_SENDERS
// concurrent senders (6) POST the protobuf ExportTraceServiceRequests of bench:ingest's workload
// (BENCH_BATCH spans a request, 512; BENCH_SPANS spans in all, about 200,000) with Basic
// key:secret over keep-alive connections, in interleaved rounds (BENCH_ROUNDS, 8). Afterwards
// every span sent must be stored exactly once, on every node. Reported per topology: spans/s
// (the median of the rounds), the ratio cluster / single, CPU per 1,000 spans by component
// (from /proc), and on the cluster the certification conflicts (wsrep counters), the tables the
// nodes' appliers met them on, the requests answered 503 once the service's retries ran out and
// those nginx passed to a second instance. BENCH_CLUSTER_VIA=instance1 sends the cluster's requests
// to one instance (below).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { log } from './lib/bench-service.js';
import { httpSender, ingestCaller, runSenders, type Sender } from './lib/bench-senders.js';
import { verifyStoredOnce } from './lib/bench-verify.js';
import { makeBatches, SPANS_PER_TRACE } from './lib/bench-workload.js';
import { Cluster, missingClusterComponents } from './lib/cluster/index.js';
import { interleavedRounds } from './lib/interleaved-rounds.js';
import { childPids, ownCpuSeconds, totalCpuSeconds } from './lib/process-cpu.js';

const TOTAL_SPANS = Number(process.env.BENCH_SPANS ?? 204_800);
const BATCH = Number(process.env.BENCH_BATCH ?? 512);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
// BENCH_CLUSTER_VIA=instance1: the cluster's senders go straight to its first instance, so every
// write starts on one node (the others apply them): Galera's replication without certification
// conflicts between nodes, to tell the two costs apart. Default: nginx.
const CLUSTER_VIA_ONE_INSTANCE = process.env.BENCH_CLUSTER_VIA === 'instance1';
/** Requests each topology takes before the timing (JIT, connections, prepared statements, on every instance). */
const WARM_UP_REQUESTS = 4 * SENDERS;

const TOPOLOGIES = ['single', 'cluster'] as const;
type Topology = (typeof TOPOLOGIES)[number];

/** The counters summed over a topology's nodes (SHOW GLOBAL STATUS). */
const COUNTERS = ['wsrep_local_cert_failures', 'wsrep_local_bf_aborts', 'wsrep_flow_control_paused_ns', 'Innodb_deadlocks'] as const;
type Counter = (typeof COUNTERS)[number];

function nodeKnex(url: string): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: { uri: url, supportBigNumbers: true, bigNumberStrings: true } as Knex.MySql2ConnectionConfig,
    pool: { min: 0, max: 1 },
  });
}

async function counters(cluster: Cluster): Promise<Record<Counter, number>> {
  const sums = Object.fromEntries(COUNTERS.map((counter) => [counter, 0])) as Record<Counter, number>;
  for (const node of cluster.nodes) {
    const rows = await node.sql(`SHOW GLOBAL STATUS WHERE Variable_name IN (${COUNTERS.map((counter) => `'${counter}'`).join(', ')})`);
    for (const line of rows.trim().split('\n')) {
      const [name, value] = line.split('\t') as [Counter, string];
      sums[name] += Number(value);
    }
  }
  return sums;
}

/** What nginx's access log says of its POST /v1/traces lines: per instance, passed on to another, and not 200. */
function nginxRequests(accessLog: string): { requests: number; perUpstream: Map<string, number>; passedOn: number; failed: number } {
  const lines = accessLog.split('\n');
  const perUpstream = new Map<string, number>();
  let requests = 0;
  let passedOn = 0;
  let failed = 0;
  for (const line of lines) {
    const match = /"POST \/v1\/traces [^"]*" (\d+) upstream=(.*) upstream_status=(.*)$/.exec(line);
    if (!match) continue;
    requests += 1;
    if (match[1] !== '200') failed += 1;
    // Several upstreams ("a, b") when an instance's answer (503, or none) sent the request on.
    const upstreams = match[2].split(', ');
    if (upstreams.length > 1) passedOn += 1;
    const last = upstreams[upstreams.length - 1];
    perUpstream.set(last, (perUpstream.get(last) ?? 0) + 1);
  }
  return { requests, perUpstream, passedOn, failed };
}

/** The part of a file written since it was `offset` bytes long. */
function since(file: string, offset: number): string {
  return fs.readFileSync(file, 'utf8').slice(offset);
}

/** A file's length now, to read what is written after it with since(). */
function lengthOf(file: string): number {
  return fs.statSync(file).size;
}

/** Export requests an instance answered 503 after its retries of a conflicting transaction ran out (its warn log line). */
function exhaustedRetries(log: string): number {
  return log.split('\n').filter((line) => line.includes('spans not stored: database unavailable') && line.includes('ER_LOCK_DEADLOCK'))
    .length;
}

/**
 * The tables the nodes' appliers were writing when they aborted a local transaction holding
 * rows they needed (wsrep_log_conflicts: "Winning thread" ... "SQL: insert into `table`").
 */
function abortingTables(errorLog: string): Map<string, number> {
  const tables = new Map<string, number>();
  for (const match of errorLog.matchAll(/Winning thread:\s*\n[^\n]*\n\s*SQL: \w+ \w+ `(\w+)`/g))
    tables.set(match[1], (tables.get(match[1]) ?? 0) + 1);
  return tables;
}

/** Heavy processes of others on the machine now (test suites), for the record. */
function otherLoad(): string {
  const others: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const commandLine = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (/mocha\/lib\/cli\/cli\.js/.test(commandLine)) others.push(`mocha (pid ${entry})`);
    } catch {
      // the process ended meanwhile
    }
  }
  return others.length > 0 ? others.join(', ') : 'no test suite';
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function main(): Promise<void> {
  const missing = await missingClusterComponents();
  if (missing.length > 0) {
    log(`the cluster needs: ${missing.join('; ')}`);
    process.exit(2);
  }
  if (BATCH % SPANS_PER_TRACE !== 0) throw new Error(`BENCH_BATCH must be a multiple of ${SPANS_PER_TRACE}`);

  let started = performance.now();
  const all = makeBatches(TOTAL_SPANS + WARM_UP_REQUESTS * BATCH, BATCH);
  // The warm-up sends traces of its own, which stay stored and are counted in the check.
  const batches = all.slice(0, all.length - WARM_UP_REQUESTS);
  const warmUp = all.slice(batches.length);
  const spans = batches.length * BATCH;
  log(`made ${all.length} protobuf requests of ${BATCH} spans in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const topologies = {} as Record<Topology, Cluster>;
  const knexes: Knex[] = [];
  const senders: Sender[] = [];
  const stopAll = async () => {
    for (const sender of senders) sender.close();
    for (const knex of knexes) await knex.destroy();
    for (const topology of Object.values(topologies)) await topology.stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping what the bench started`);
      void stopAll().finally(() => process.exit(1));
    });
  }
  try {
    started = performance.now();
    topologies.single = await Cluster.create({ nodes: 1, replication: false, log: (message) => log(`single: ${message}`) });
    await topologies.single.start();
    topologies.cluster = await Cluster.create({ log: (message) => log(`cluster: ${message}`) });
    await topologies.cluster.start();
    log(`both topologies up in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    // The single instance takes its senders' requests itself; the cluster's go to nginx (or instance 1).
    const sends = {} as Record<Topology, (slice: Uint8Array[]) => Promise<number>>;
    for (const name of TOPOLOGIES) {
      const topology = topologies[name];
      const knex = nodeKnex(topology.databaseUrl(0));
      knexes.push(knex);
      const url = name === 'single' || CLUSTER_VIA_ONE_INSTANCE ? topology.instance(0).url : topology.url;
      const sender = httpSender(url, await ingestCaller(knex, url, 'basic'), SENDERS);
      senders.push(sender);
      sends[name] = (slice) => runSenders(slice, SENDERS, sender.send);
      await sends[name](warmUp);
    }
    // nginx rests an instance for 5 s after a 503 (scripts/lib/cluster/nginx.ts): one that ran
    // out of retries in the warm-up is back before the rounds start.
    await new Promise((resolve) => setTimeout(resolve, 6_000));

    const { cluster, single } = topologies;
    // Each conflict the appliers resolve goes to the node's error log, with the statements involved.
    for (const node of cluster.nodes) await node.sql('SET GLOBAL wsrep_log_conflicts=ON');
    // The logs' lengths before the rounds: what the rounds add is read afterwards.
    const logs = [
      cluster.nginx.accessLog,
      ...cluster.instances.map((instance) => instance.options.logFile),
      ...cluster.nodes.map((node) => path.join(node.options.directory, 'error.log')),
    ];
    const logOffsets = logs.map(lengthOf);
    const before = { single: await counters(single), cluster: await counters(cluster) };
    const settings = async (topology: Cluster) =>
      (await topology.node(0).sql('SELECT VERSION(), @@innodb_buffer_pool_size, @@innodb_flush_log_at_trx_commit, @@wsrep_on'))
        .trim()
        .split('\t');
    const [version, pool, flush, singleWsrep] = await settings(single);
    const [, , , clusterWsrep] = await settings(cluster);
    const loadBefore = os.loadavg()[0];
    const othersBefore = otherLoad();

    // CPU by component, summed over both topologies (the idle one's processes cost next to nothing).
    const both = Object.values(topologies);
    const nginxPids = both.flatMap((topology) => {
      const master = topology.nginx.pid;
      return master === undefined ? [] : [master, ...childPids(master)];
    });
    const groups = {
      services: () => totalCpuSeconds(both.flatMap((topology) => topology.instances.map((instance) => instance.pid))),
      databases: () => totalCpuSeconds(both.flatMap((topology) => topology.nodes.map((node) => node.pid))),
      nginx: () => totalCpuSeconds(nginxPids),
      senders: ownCpuSeconds,
    };
    started = performance.now();
    const { seconds, cpu } = await interleavedRounds(batches, ROUNDS, TOPOLOGIES, groups, (slice) =>
      TOPOLOGIES.map((name) => [name, () => sends[name](slice)]),
    );
    const wallSeconds = (performance.now() - started) / 1000;
    const after = { single: await counters(single), cluster: await counters(cluster) };
    const othersAfter = otherLoad();
    const [accessLog, ...serverLogs] = logs.map((file, index) => since(file, logOffsets[index]));
    const instanceLogs = serverLogs.slice(0, cluster.instances.length);
    const nodeLogs = serverLogs.slice(cluster.instances.length);
    const nginx = nginxRequests(accessLog);
    const answered503 = instanceLogs.reduce((sum, log) => sum + exhaustedRetries(log), 0);
    const aborting = new Map<string, number>();
    for (const log of nodeLogs) for (const [table, count] of abortingTables(log)) aborting.set(table, (aborting.get(table) ?? 0) + count);

    const stored = spans + warmUp.length * BATCH;
    await verifyStoredOnce(knexes[0] as Knex, stored, 'the single node');
    for (let index = 0; index < cluster.nodes.length; index += 1) {
      const knex = nodeKnex(cluster.databaseUrl(index));
      knexes.push(knex);
      await verifyStoredOnce(knex, stored, `cluster ${cluster.node(index).name}`);
    }
    log(`verified: ${stored} spans stored exactly once on the single node and on each of the ${cluster.nodes.length} cluster nodes`);

    // The rate of a round is its spans over its seconds; the rounds are alike in size but the last.
    const perRound = Math.ceil(batches.length / ROUNDS);
    const roundSpans = (round: number) => Math.min(perRound, batches.length - round * perRound) * BATCH;
    const rates = Object.fromEntries(
      TOPOLOGIES.map((name) => [name, seconds[name].map((value, round) => roundSpans(round) / value)]),
    ) as Record<Topology, number[]>;
    const perThousand = (value: number) => ((1e6 * value) / spans).toFixed(1);
    const total = (name: Topology) => Object.values(cpu[name]).reduce((sum, value) => sum + value, 0);
    const row = (name: Topology, what: string) => {
      const sorted = [...rates[name]].sort((a, b) => a - b);
      const sum = seconds[name].reduce((all, value) => all + value, 0);
      return `| ${what} | ${Math.round(median(rates[name]))} | ${Math.round(sorted[0])}–${Math.round(sorted[sorted.length - 1])} | ${sum.toFixed(1)} | ${perThousand(cpu[name].services)} | ${perThousand(cpu[name].databases)} | ${perThousand(cpu[name].nginx)} | ${perThousand(cpu[name].senders)} | ${perThousand(total(name))} |`;
    };
    const delta = (name: Topology, counter: Counter) => after[name][counter] - before[name][counter];
    const lines = [
      `MariaDB ${version} (innodb_flush_log_at_trx_commit=${flush}, buffer pool ${Math.round(Number(pool) / 2 ** 20)} MiB a node; wsrep_on ${singleWsrep === '1' ? 'ON' : 'OFF'} on the single node, ${clusterWsrep === '1' ? 'ON' : 'OFF'} on the cluster's), ${os.cpus().length} cores, Node ${process.version}`,
      `${spans} spans a topology, ${BATCH} a request, ${SENDERS} concurrent senders (Basic key:secret, keep-alive), ${ROUNDS} interleaved rounds, ${wallSeconds.toFixed(0)} s in all; 1-minute load average before ${loadBefore.toFixed(1)}; other load: ${othersBefore} before, ${othersAfter} after`,
      '',
      '| topology | spans/s (median of rounds) | rounds min–max | seconds | CPU ms per 1,000 spans: service instances | MariaDB nodes | nginx | senders | total |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      row('single', 'one instance, one plain MariaDB (no nginx)'),
      row(
        'cluster',
        CLUSTER_VIA_ONE_INSTANCE
          ? 'the cluster, every request to instance 1 (BENCH_CLUSTER_VIA=instance1)'
          : 'nginx, three instances, three Galera nodes',
      ),
      '',
      `cluster / single (medians): ${(median(rates.cluster) / median(rates.single)).toFixed(2)}`,
      `cluster, summed over the nodes: wsrep_local_cert_failures ${delta('cluster', 'wsrep_local_cert_failures')}, wsrep_local_bf_aborts ${delta('cluster', 'wsrep_local_bf_aborts')}, Innodb_deadlocks ${delta('cluster', 'Innodb_deadlocks')}, flow control paused ${(delta('cluster', 'wsrep_flow_control_paused_ns') / 1e9).toFixed(1)} s`,
      `single: Innodb_deadlocks ${delta('single', 'Innodb_deadlocks')}`,
      `cluster, the tables the appliers were writing when they aborted a local transaction (wsrep_log_conflicts): ${[...aborting].map(([table, count]) => `${table} ${count}`).join(', ') || 'none'}`,
      `cluster instances: ${answered503} export requests answered 503 (deadlock retries run out)`,
      CLUSTER_VIA_ONE_INSTANCE
        ? 'nginx: not used (BENCH_CLUSTER_VIA=instance1)'
        : `nginx: ${nginx.requests} requests (${[...nginx.perUpstream.values()].join(' / ')} answered by each instance), ${nginx.passedOn} passed on to another instance, ${nginx.failed} not 200`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stopAll();
  }
}

await main();
