// A whole cluster on this one machine, started with one call and removed with another: three
// MariaDB Galera nodes, each in its own network namespace, three service instances (one per node)
// and nginx in front of them. `npm run cluster` (scripts/cluster.ts) and the cluster test suite
// (test/cluster/) use it; the README's "Running on more than one machine" is the same topology on
// real machines.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../free-port.js';
import { command } from './commands.js';
import { GaleraNode, LZ4_PROVIDER } from './galera-node.js';
import { createNetwork, cutOff, planNetwork, reconnect, removeNetwork, type ClusterNetwork } from './network.js';
import { Nginx } from './nginx.js';
import { ServiceInstance } from './service-instance.js';

export { UPSTREAM_HEADER } from './nginx.js';
export type { GaleraNode, ServiceInstance };

const DATABASE = 'spanledger';
const USER = 'spanledger';
const PASSWORD = 'spanledger';
const INGEST_BODY_LIMIT_BYTES = 20 * 1024 * 1024;

export interface ClusterOptions {
  nodes?: number;
  /** Where everything lives; a new folder under the system's temporary folder by default. */
  directory?: string;
  bufferPoolMb?: number;
  /** False: plain MariaDB servers with the nodes' settings, without Galera (with nodes: 1, a single-database baseline). */
  replication?: boolean;
  /** More environment for every service instance. */
  serviceEnv?: Record<string, string>;
  log?: (message: string) => void;
}

/** What the cluster needs from the machine: root (namespaces), Galera, MariaDB, nginx, nft, rsync. */
export async function missingClusterComponents(): Promise<string[]> {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (to create network namespaces)');
  const tools: Array<[string, string]> = [
    ['mariadbd', 'mariadb-server'],
    ['mariadb', 'mariadb-client'],
    ['nginx', 'nginx'],
    ['nft', 'nftables'],
    ['ip', 'iproute2'],
    ['rsync', 'rsync'],
  ];
  for (const [tool, pkg] of tools) {
    if (!(await command('sh', ['-c', `command -v ${tool}`]).catch(() => ''))) missing.push(`${tool} (Debian package ${pkg})`);
  }
  if (!(await command('sh', ['-c', 'test -e /usr/lib/galera/libgalera_smm.so && echo yes']).catch(() => '')))
    missing.push('the Galera provider (Debian package galera-4)');
  return missing;
}

/** A /24 of 10.213.0.0/16 that no interface of this machine uses yet (another cluster, say). */
async function freeSubnet(): Promise<number> {
  const used = new Set(
    [...(await command('ip', ['-o', '-4', 'addr', 'show'])).matchAll(/inet 10\.213\.(\d+)\./g)].map((match) => Number(match[1])),
  );
  const free = Array.from({ length: 256 }, (_, subnet) => subnet).filter((subnet) => !used.has(subnet));
  if (free.length === 0) throw new Error('no free /24 left in 10.213.0.0/16');
  return free[(randomBytes(1)[0] as number) % free.length] as number;
}

export class Cluster {
  private constructor(
    readonly directory: string,
    readonly network: ClusterNetwork,
    readonly nodes: GaleraNode[],
    readonly instances: ServiceInstance[],
    readonly nginx: Nginx,
    private readonly ownsDirectory: boolean,
    private readonly log: (message: string) => void,
  ) {}

  /** The address clients use: nginx. */
  get url(): string {
    return this.nginx.url;
  }

  /** A mysql:// URL of the service's database on node `index` (0-based). */
  databaseUrl(index: number): string {
    return `mysql://${USER}:${PASSWORD}@${this.nodes[index]?.ip}:3306/${DATABASE}`;
  }

  /** Plans a cluster (names, addresses, ports, folders); start() brings it up. */
  static async create(options: ClusterOptions = {}): Promise<Cluster> {
    const { nodes: nodeCount = 3, bufferPoolMb = 256, replication = true, serviceEnv = {}, log = () => undefined } = options;
    const ownsDirectory = options.directory === undefined;
    const directory = options.directory ?? (await mkdtemp(path.join(os.tmpdir(), 'spanledger-cluster-')));
    // The database servers run as the `mysql` user, who must reach their folders.
    await chmod(directory, 0o755);
    const tag = randomBytes(2).toString('hex');
    const network = planNetwork(tag, await freeSubnet(), nodeCount);
    const peers = network.nodes.map((node) => node.ip);
    // Decided once for all nodes (see GaleraNodeOptions.lz4).
    const lz4 = existsSync(LZ4_PROVIDER);
    const nodes = network.nodes.map(
      (address, index) =>
        new GaleraNode({ index, address, peers, directory: path.join(directory, `node${index + 1}`), bufferPoolMb, replication, lz4 }),
    );
    const ports = await Promise.all(nodes.map(() => freePort()));
    const instances = nodes.map(
      (_, index) =>
        new ServiceInstance({
          index,
          port: ports[index] as number,
          databaseUrl: `mysql://${USER}:${PASSWORD}@${network.nodes[index]?.ip}:3306/${DATABASE}`,
          dataDir: path.join(directory, 'service'),
          logFile: path.join(directory, `instance${index + 1}.log`),
          env: { INGEST_MAX_BODY_BYTES: String(INGEST_BODY_LIMIT_BYTES), ...serviceEnv },
        }),
    );
    const nginx = new Nginx({
      directory: path.join(directory, 'nginx'),
      port: await freePort(),
      upstreamPorts: ports,
      ingestBodyLimitBytes: INGEST_BODY_LIMIT_BYTES,
    });
    return new Cluster(directory, network, nodes, instances, nginx, ownsDirectory, log);
  }

  /** Brings the planned cluster up; on failure, removes what it had started and throws. */
  async start(): Promise<void> {
    try {
      await this.bringUp();
    } catch (error) {
      // The start's own failure is the one to report, not a failure of the cleanup after it.
      await this.stop().catch((cleanup: unknown) => this.log(`cleanup after a failed start: ${String(cleanup)}`));
      throw error;
    }
  }

  /** create() and start() in one. */
  static async start(options: ClusterOptions = {}): Promise<Cluster> {
    const cluster = await Cluster.create(options);
    await cluster.start();
    return cluster;
  }

  private async bringUp(): Promise<void> {
    this.log(`network ${this.network.bridge}: nodes at ${this.nodes.map((node) => node.ip).join(', ')}`);
    await createNetwork(this.network);
    // One after the other: a failure must not leave other preparations writing into the folder.
    for (const node of this.nodes) await node.prepare();
    const [first, ...others] = this.nodes as [GaleraNode, ...GaleraNode[]];
    first.start(true);
    await first.waitSynced(1);
    await first.sql(
      `CREATE DATABASE ${DATABASE}; CREATE USER '${USER}'@'%' IDENTIFIED BY '${PASSWORD}'; GRANT ALL ON *.* TO '${USER}'@'%';`,
    );
    // One joiner at a time: each takes a full copy (SST) from a donor that must stay available.
    for (const [position, node] of others.entries()) {
      node.start();
      await node.waitSynced(position + 2);
      this.log(`${node.name} joined`);
    }
    // The first instance runs the migrations; the others start once they are current.
    for (const instance of this.instances) {
      await instance.start();
      this.log(`${instance.name} ready at ${instance.url} (database ${instance.options.databaseUrl.replace(/\/\/[^@]*@/, '//')})`);
    }
    await this.nginx.start();
    this.log(`nginx at ${this.url}`);
  }

  /** Kills node `index` with SIGKILL. */
  async killNode(index: number): Promise<void> {
    await this.node(index).kill();
  }

  /** Starts node `index` again and waits until it has caught up (IST or SST) with the others. */
  async restartNode(index: number): Promise<void> {
    const node = this.node(index);
    node.start();
    await node.waitSynced(this.nodes.length);
  }

  /** Cuts node `index` off from the other nodes (its own instance still reaches it). */
  async cutOffNode(index: number): Promise<void> {
    await cutOff(this.network, this.network.nodes[index] as ClusterNetwork['nodes'][number]);
  }

  /** Ends the cut; waits until the node is back in the primary component and synced. */
  async reconnectNode(index: number): Promise<void> {
    await reconnect(this.network.nodes[index] as ClusterNetwork['nodes'][number]);
    await this.node(index).waitSynced(this.nodes.length);
  }

  node(index: number): GaleraNode {
    const node = this.nodes[index];
    if (!node) throw new Error(`no node ${index}`);
    return node;
  }

  instance(index: number): ServiceInstance {
    const instance = this.instances[index];
    if (!instance) throw new Error(`no instance ${index}`);
    return instance;
  }

  /** Stops everything it started and removes the network and (unless given) the folder. */
  async stop(): Promise<void> {
    await this.nginx.stop().catch(() => undefined);
    await Promise.all(this.instances.map((instance) => instance.stop().catch(() => undefined)));
    await Promise.all(this.nodes.map((node) => node.stop().catch(() => undefined)));
    await removeNetwork(this.network);
    if (this.ownsDirectory && !process.env.KEEP_CLUSTER_DIR) await rm(this.directory, { recursive: true, force: true, maxRetries: 5 });
  }
}
