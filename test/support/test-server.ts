// Starts the real service over a real, fresh database for one suite, once per configured database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server.js';
import { testDatabases, type TestDatabase } from './databases.js';

export interface TestServer {
  url: string;
  /** `127.0.0.1:<port>` of OTLP/gRPC ingestion; only for suites that pass GRPC_PORT (e.g. '0'). */
  grpcAddress: string | undefined;
  config: Config;
  server: RunningServer;
  database: TestDatabase['name'];
}

export interface TestServerOptions {
  /** The service's logger (default: silent, or TEST_LOG_LEVEL); tests that read the log pass a captured one. */
  logger?: Logger;
  /** The service's clock of usage hours and quota days (default Date.now); a settable one crosses midnight at once. */
  clock?: () => number;
  /** How webhook destinations' host names resolve (default: the system's DNS). */
  webhookResolver?: ServerOptions['webhookResolver'];
}

export async function startTestServer(
  database: TestDatabase,
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer & { stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-test-'));
  const created = await database.create(dataDir);
  // No gRPC port unless the suite asks for one (GRPC_PORT: '0' binds a free port). No background
  // trace fold unless the suite asks for one: tests that fold run it themselves, at chosen points.
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_PORT: 'off',
    DATA_DIR: dataDir,
    DATABASE_URL: created.url,
    LOG_LEVEL: 'silent',
    TRACE_FOLD_INTERVAL_SECONDS: '0',
    ...env,
  });
  const logger = options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ? (process.env.TEST_LOG_LEVEL as Config['logLevel']) : 'silent');
  const server = await startServer(config, logger, { clock: options.clock, webhookResolver: options.webhookResolver });
  return {
    url: server.url,
    grpcAddress: server.grpcPort === undefined ? undefined : `127.0.0.1:${server.grpcPort}`,
    config,
    server,
    database: database.name,
    async stop() {
      await server.close();
      await created.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Declares `suite` once per configured database, each with its own running server:
 * `onEachDatabase('ops routes', (app) => { it('...', async () => { await fetch(app().url) }) })`.
 */
export function onEachDatabase(
  title: string,
  suite: (app: () => TestServer) => void,
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): void {
  for (const database of testDatabases()) {
    describe(`${title} [${database.name}]`, function () {
      let running: (TestServer & { stop(): Promise<void> }) | undefined;
      before(async function () {
        running = await startTestServer(database, env, options);
      });
      after(async function () {
        await running?.stop();
      });
      suite(() => {
        if (!running) throw new Error('test server is not running');
        return running;
      });
    });
  }
}
