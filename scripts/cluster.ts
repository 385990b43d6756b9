// `npm run cluster`: starts three MariaDB Galera nodes (each in its own network namespace), three
// service instances and nginx in front of them on this machine (scripts/lib/cluster/), prints the
// addresses, and on Ctrl-C (or SIGTERM) stops and removes everything it started. Needs root.
import { Cluster, missingClusterComponents } from './lib/cluster/index.js';

const missing = await missingClusterComponents();
if (missing.length > 0) {
  console.error(`the cluster needs: ${missing.join('; ')}`);
  process.exit(1);
}
const log = (message: string) => console.error(message);
const cluster = await Cluster.create({ log });
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log('stopping the cluster');
    cluster.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
await cluster.start();
console.error(
  [
    '',
    `spanledger cluster: clients use ${cluster.url} (nginx)`,
    ...cluster.instances.map(
      (instance, index) => `  ${instance.name}: ${instance.url} -> ${cluster.node(index).name} at ${cluster.node(index).ip}:3306`,
    ),
    `  files and logs: ${cluster.directory}`,
    `  a token: DATA_DIR=${cluster.instance(0).options.dataDir} npm run --silent token -- --sub alice`,
    'Ctrl-C stops and removes it all.',
  ].join('\n'),
);
