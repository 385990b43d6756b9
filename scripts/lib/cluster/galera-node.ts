// One MariaDB Galera node: its configuration, data folder and process, started inside its own
// network namespace. The settings that matter for the service are explained in the README
// ("Running on more than one machine"). Without replication, the same server and settings as a
// plain MariaDB: the single-database baseline of `npm run bench:cluster`.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { command, SYSTEM_PATH, waitFor } from './commands.js';
import { ManagedProcess } from './managed-process.js';
import type { NodeAddress } from './network.js';

export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';
/** Debian's mariadb-plugin-provider-lz4: where installed, every node loads it (page-compression.ts). */
export const LZ4_PROVIDER = '/usr/lib/mysql/plugin/provider_lz4.so';
const MYSQL_PORT = 3306;

export interface GaleraNodeOptions {
  index: number;
  address: NodeAddress;
  /** Every node's address: the cluster address each node joins through. */
  peers: string[];
  directory: string;
  bufferPoolMb: number;
  /** False: a plain MariaDB server (no wsrep settings), otherwise configured as the cluster's nodes. Default true. */
  replication?: boolean;
  /**
   * Loads provider_lz4 and writes compressed pages with LZ4. The same for every node: a node
   * without the plugin cannot read a compressed page that replication or a state transfer gives it.
   */
  lz4?: boolean;
}

/** The node's option file: Galera replication (unless `replication` is false), and the InnoDB settings Galera needs. */
export function nodeOptionFile({
  index,
  address,
  peers,
  directory,
  bufferPoolMb,
  replication = true,
  lz4 = false,
}: GaleraNodeOptions): string {
  const server = [
    '[mariadbd]',
    `datadir=${path.join(directory, 'data')}`,
    `socket=${path.join(directory, 'mariadb.sock')}`,
    `pid-file=${path.join(directory, 'mariadb.pid')}`,
    `log-error=${path.join(directory, 'error.log')}`,
    // A temporary folder of its own: a server starting (mariadb-install-db's too) deletes every
    // `#sql*` file in its tmpdir, which in a shared /tmp are the temporary tables of the others.
    `tmpdir=${path.join(directory, 'tmp')}`,
    `bind-address=${address.ip}`,
    `port=${MYSQL_PORT}`,
    // Not root: the rsync daemon that receives a state transfer, run as root, would switch to
    // `nobody`, who may not write the data folder.
    'user=mysql',
    'skip-name-resolve',
    'max-connections=300',
    `innodb-buffer-pool-size=${bufferPoolMb}M`,
    // Galera replicates row images and needs interleaved auto-increment locks.
    'binlog-format=ROW',
    'innodb-autoinc-lock-mode=2',
    // Durable against a killed process (the log is in the page cache); the cluster holds every
    // commit on the other nodes against the loss of a machine.
    'innodb-flush-log-at-trx-commit=2',
    ...(lz4 ? ['plugin-load-add=provider_lz4', 'innodb-compression-algorithm=lz4'] : []),
  ];
  const wsrep = [
    'wsrep-on=ON',
    `wsrep-provider=${GALERA_PROVIDER}`,
    'wsrep-cluster-name=spanledger',
    `wsrep-cluster-address=gcomm://${peers.join(',')}`,
    `wsrep-node-address=${address.ip}`,
    `wsrep-node-name=node${index + 1}`,
    'wsrep-sst-method=rsync',
    // Reads wait until the node has applied every write committed anywhere before them: a
    // client that wrote through one instance reads its write through any other.
    'wsrep-sync-wait=1',
    // Failure detection in seconds rather than the defaults' tens of seconds.
    'wsrep-provider-options="gcache.size=256M; evs.keepalive_period=PT0.5S; evs.inactive_check_period=PT0.5S; evs.suspect_timeout=PT3S; evs.inactive_timeout=PT5S; evs.install_timeout=PT5S"',
  ];
  return [...server, ...(replication ? wsrep : []), ''].join('\n');
}

export class GaleraNode {
  private readonly process: ManagedProcess;
  readonly optionFile: string;

  constructor(readonly options: GaleraNodeOptions) {
    this.optionFile = path.join(options.directory, 'my.cnf');
    this.process = new ManagedProcess(path.join(options.directory, 'stderr.log'));
  }

  get ip(): string {
    return this.options.address.ip;
  }

  get name(): string {
    return `node${this.options.index + 1}`;
  }

  get socket(): string {
    return path.join(this.options.directory, 'mariadb.sock');
  }

  get running(): boolean {
    return this.process.running;
  }

  /** The server's process id while it runs (`ip netns exec` execs it in place). */
  get pid(): number | undefined {
    return this.process.pid;
  }

  get replication(): boolean {
    return this.options.replication ?? true;
  }

  /** Writes the option file and an empty system schema (a joining node gets its data by SST). */
  async prepare(): Promise<void> {
    await mkdir(path.join(this.options.directory, 'tmp'), { recursive: true });
    await writeFile(this.optionFile, nodeOptionFile(this.options));
    await command('chown', ['-R', 'mysql:mysql', this.options.directory]);
    await command('mariadb-install-db', [
      `--defaults-file=${this.optionFile}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ]);
  }

  /** Starts the server in its namespace; `bootstrap` starts a new cluster from this node (a plain server has none). */
  start(bootstrap = false): void {
    const args = [
      'netns',
      'exec',
      this.options.address.namespace,
      'mariadbd',
      `--defaults-file=${this.optionFile}`,
      ...(bootstrap && this.replication ? ['--wsrep-new-cluster'] : []),
    ];
    this.process.start('ip', args, { env: { ...process.env, PATH: SYSTEM_PATH } });
  }

  /** Runs SQL as root over the node's socket; answers the rows, tab-separated, without headers. */
  async sql(statements: string): Promise<string> {
    return command('mariadb', ['-S', this.socket, '-uroot', '-N', '-B', '-e', statements]);
  }

  /** A status variable of the node (SHOW STATUS), e.g. wsrep_local_state_comment. */
  async status(name: string): Promise<string> {
    const line = await this.sql(`SHOW STATUS LIKE '${name}'`);
    return line.trim().split('\t')[1] ?? '';
  }

  /** Waits until the node is synced with a primary component of `clusterSize` nodes (a plain server: until it answers). */
  async waitSynced(clusterSize: number, timeoutMs = 120_000): Promise<void> {
    await waitFor(
      `${this.name} synced in a cluster of ${clusterSize}`,
      async () => {
        if (!this.running) throw new Error(`${this.name} exited; see ${this.options.directory}/error.log`);
        if (!this.replication) return (await this.sql('SELECT 1')).trim() === '1';
        return (
          (await this.status('wsrep_local_state_comment')) === 'Synced' &&
          Number(await this.status('wsrep_cluster_size')) === clusterSize &&
          (await this.status('wsrep_cluster_status')) === 'Primary'
        );
      },
      timeoutMs,
    );
  }

  /** The node's process gone at once, as when its machine loses power (SIGKILL). */
  async kill(): Promise<void> {
    await this.process.stop('SIGKILL');
  }

  /** A clean shutdown (SIGTERM); a node that cannot leave its cluster cleanly is killed after 30 s. */
  async stop(): Promise<void> {
    await this.process.stop('SIGTERM');
  }
}
