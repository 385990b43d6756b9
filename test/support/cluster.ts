// The cluster suite's fixture: one cluster (scripts/lib/cluster/: three Galera nodes in network
// namespaces, three service instances, nginx) for a whole describe block, dashboard-user tokens
// signed with the instances' shared key, a Knex connection per database node, and what nginx
// logged. The suite starts only when asked with REQUIRE_CLUSTER=1 (`npm run test:cluster`, CI):
// it needs root, creates network namespaces and starts database servers, which a plain `npm test`
// must never do unasked. Asked, a missing component (root, Galera, nginx, nft) fails it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { Cluster, missingClusterComponents } from '../../scripts/lib/cluster/index.js';
import { loadSigningKey } from '../../src/auth/signing-key.js';
import { TokenService } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { DASHBOARD_USER_PERMISSIONS } from '../../src/permissions.js';
import { openDatabase } from '../../src/storage/database.js';

export interface ClusterHarness {
  cluster: Cluster;
  /** A token of a new dashboard user, valid on every instance. */
  userToken(subject: string): Promise<string>;
  /** Knex on database node `index` (0-based); closed with the cluster. */
  database(index: number): Knex;
  /**
   * The lines of nginx's access log (`<client> "<request>" <status> upstream=... upstream_status=...`)
   * written after `fromLine` (a count of lines read before).
   */
  accessLog(fromLine?: number): Promise<string[]>;
}

/** Starts a cluster before the block's tests and removes it after them. */
export function useCluster(): () => ClusterHarness {
  let harness: ClusterHarness | undefined;
  const databases = new Map<number, Knex>();
  let cluster: Cluster | undefined;
  before(async function () {
    this.timeout(300_000);
    if (process.env.REQUIRE_CLUSTER !== '1') this.skip();
    const missing = await missingClusterComponents();
    if (missing.length > 0) throw new Error(`REQUIRE_CLUSTER=1 but the cluster suite cannot run without: ${missing.join('; ')}`);
    cluster = await Cluster.start({
      serviceEnv: { LIVE_POLL_INTERVAL_MS: '200' },
      log: process.env.CLUSTER_LOG ? (message) => console.error(message) : undefined,
    });
    const started = cluster;
    const config = loadConfig({ DATA_DIR: started.instance(0).options.dataDir });
    const tokens = new TokenService(config.auth, await loadSigningKey(config.auth.signingKeyFile));
    harness = {
      cluster: started,
      userToken: (subject) =>
        tokens.signUserToken(
          { subject, email: `${subject}@example.com`, name: subject, permissions: [...DASHBOARD_USER_PERMISSIONS] },
          3600,
        ),
      database(index) {
        let knex = databases.get(index);
        if (!knex) {
          knex = openDatabase(started.databaseUrl(index), started.directory);
          databases.set(index, knex);
        }
        return knex;
      },
      accessLog: async (fromLine = 0) => (await readFile(started.nginx.accessLog, 'utf8')).split('\n').filter(Boolean).slice(fromLine),
    };
  });
  after(async function () {
    this.timeout(120_000);
    await Promise.all([...databases.values()].map((knex) => knex.destroy()));
    if (cluster) {
      if (process.env.KEEP_CLUSTER_DIR) console.error(`cluster files kept in ${path.resolve(cluster.directory)}`);
      await cluster.stop();
    }
  });
  return () => {
    if (!harness) throw new Error('the cluster is not running');
    return harness;
  };
}
