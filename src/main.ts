// `npm start`: reads the configuration, starts the service and stops it cleanly on SIGTERM/SIGINT.
import fs from 'node:fs';
import { cliServiceUrl, ConfigError, loadConfig, serviceUrlFile, type Config } from './config.js';
import { GrpcListenError } from './grpc/server.js';
import { createLogger } from './logger.js';
import { startServer, type RunningServer } from './server.js';
import { DatabaseUnusable } from './storage/database-unusable.js';
import { MigrationLockTimeout } from './storage/migrations/migration-lock.js';

/** The variables the CLI commands read to find this service's key and claims, as this process got them. */
const CLI_VARIABLES = ['DATA_DIR', 'SIGNING_KEY_FILE', 'TOKEN_ISSUER', 'TOKEN_AUDIENCE'];

function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `DATA_DIR=… ` and the like, so that a hinted command signs with this service's key and claims. */
function cliEnvironment(env: NodeJS.ProcessEnv): string {
  return CLI_VARIABLES.filter((name) => env[name])
    .map((name) => `${name}=${shellWord(env[name] as string)} `)
    .join('');
}

/**
 * Writes the URL this process listens on into the data folder (atomically: a reader never sees
 * half a line), for `sign-in-link` and `seed:demo` in another terminal; false when it cannot.
 */
function writeServiceUrl(config: Config, url: string): boolean {
  const file = serviceUrlFile(config.dataDir);
  try {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(`${file}.${process.pid}`, `${url}\n`);
    fs.renameSync(`${file}.${process.pid}`, file);
    return true;
  } catch (error) {
    logger.warn({ err: error, file }, 'the service URL could not be written for the CLI commands; they need --url');
    return false;
  }
}

function firstRunHint(config: Config, url: string, grpcPort: number | undefined, written: boolean): string {
  const cli = cliEnvironment(process.env);
  // The commands find this address in the data folder, or from the same PORT and HOST; else they are told.
  const found = cliServiceUrl(config, { ...process.env, ...(written ? {} : { PORT: String(config.port) }) });
  const linkUrl = found === url ? '' : ` --url ${url}`;
  return [
    `spanledger is listening on ${url} (APIs: ${config.apis.join(', ')}; database: ${config.databaseUrl ? config.databaseUrl.replace(/\/\/[^@]*@/, '//***@') : 'embedded SQLite in ' + config.dataDir})`,
    `  Demo data:     ${cli}npm run seed:demo${linkUrl ? ` --${linkUrl}` : ''}  (a day of traces in a demo organization; ends with a sign-in link as its owner)`,
    `  Dashboard:     ${url}/ui/  (or sign in as yourself: ${cli}npm run --silent sign-in-link -- --sub alice --name Alice${linkUrl})`,
    `  API docs:      ${url}/docs`,
    `  Health:        ${url}/healthz`,
    ...(grpcPort === undefined ? [] : [`  OTLP/gRPC:     port ${grpcPort} (TraceService/Export; GRPC_PORT=off turns it off)`]),
    `  Get a token:   TOKEN=$(${cli}npm run --silent token -- --sub alice --email alice@example.com --name Alice)`,
    `  First call:    curl -s -X POST ${url}/organizations -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"name":"Acme"}'`,
  ].join('\n');
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

/** A start-up failure the user fixes in the environment: one line, like a configuration error. */
function startProblem(error: unknown, { host, port, grpc }: Config): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (error instanceof MigrationLockTimeout || error instanceof DatabaseUnusable) return error.message;
  if (error instanceof GrpcListenError && grpc) {
    if (code === 'EADDRINUSE') return `gRPC port ${grpc.port} is in use; set GRPC_PORT to a free port (0 picks one) or GRPC_PORT=off`;
    if (code === 'EACCES') return `gRPC port ${grpc.port} needs privileges this process lacks; set GRPC_PORT (1024 or above)`;
    if (code === 'EADDRNOTAVAIL') return `address ${grpc.host} is not an address of this machine; set GRPC_HOST`;
    return `the gRPC port ${grpc.port} cannot be opened (${error.message}); set GRPC_PORT or GRPC_HOST`;
  }
  if (code === 'EADDRINUSE') return `port ${port} is in use; set PORT to a free port (0 picks one)`;
  if (code === 'EACCES') return `port ${port} needs privileges this process lacks; set PORT (1024 or above)`;
  if (code === 'EADDRNOTAVAIL') return `address ${host} is not an address of this machine; set HOST`;
  return undefined;
}

const logger = createLogger(config.logLevel);
let server: RunningServer;
try {
  server = await startServer(config, logger);
} catch (error) {
  const problem = startProblem(error, config);
  if (!problem) throw error;
  console.error(problem);
  process.exit(1);
}
console.error(firstRunHint(config, server.url, server.grpcPort, writeServiceUrl(config, server.url)));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
