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

/** The configuration of a test server on the database at `databaseUrl`, `env` over the defaults. */
export function testConfig(dataDir: string, databaseUrl: string, env: Record<string, string> = {}): Config {
  // No gRPC port unless the suite asks for one (GRPC_PORT: '0' binds a free port). No background
  // trace fold or export worker unless the suite asks for one: tests that fold or export run them
  // themselves, at chosen points, and the worker's polls stay out of tests that count statements.
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_PORT: 'off',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    TRACE_FOLD_INTERVAL_SECONDS: '0',
    EXPORT_INTERVAL_SECONDS: '0',
    ...env,
  });
}

export async function startTestServer(
  database: TestDatabase,
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer & { stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-test-'));
  const created = await database.create(dataDir);
  const config = testConfig(dataDir, created.url, env);
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

/** Servers started one after another (or side by side) on one database, as instances of one service. */
export interface OneDatabase {
  /** Starts an instance; `clock` as TestServerOptions. */
  start(clock?: () => number): Promise<TestServer>;
  /** Stops an instance (as `close()`: its background jobs let their work go). */
  stop(app: TestServer): Promise<void>;
  /** Stops what is still running and drops the database. */
  drop(): Promise<void>;
}

/** A fresh database of `database`'s kind for instances started and stopped by the suite. */
export async function oneDatabase(database: TestDatabase, env: Record<string, string> = {}): Promise<OneDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-test-'));
  const created = await database.create(dataDir);
  const config = testConfig(dataDir, created.url, env);
  const running = new Set<RunningServer>();
  return {
    async start(clock) {
      const server = await startServer(config, createLogger('silent'), { clock });
      running.add(server);
      return { url: server.url, grpcAddress: undefined, config, server, database: database.name };
    },
    async stop(app) {
      running.delete(app.server);
      await app.server.close();
    },
    async drop() {
      for (const server of running) await server.close();
      running.clear();
      await created.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
