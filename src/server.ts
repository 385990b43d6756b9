// Owns the process lifecycle: database, migrations, HTTP listener, the retention purger and
// graceful shutdown.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { localServiceUrl, type Config } from './config.js';
import { loadSigningKey } from './auth/signing-key.js';
import { TokenService } from './auth/tokens.js';
import { createApp } from './http/app.js';
import { createLogger } from './logger.js';
import { HttpMetrics } from './ops/metrics.js';
import { RetentionPurger } from './retention/purger.js';
import { openDatabase } from './storage/database.js';
import { migrateToLatest } from './storage/migrations/index.js';

export interface RunningServer {
  url: string;
  knex: Knex;
  logger: Logger;
  tokens: TokenService;
  /** Runs in the background every RETENTION_PURGE_INTERVAL_SECONDS; `runOnce()` runs a pass now. */
  purger: RetentionPurger;
  /** Stops accepting connections, lets in-flight requests and the purge batch in flight finish, then closes the pool. */
  close(): Promise<void>;
}

export async function startServer(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  const knex = openDatabase(config.databaseUrl, config.dataDir, logger);
  if (config.migrateOnStart) await migrateToLatest(knex);
  const tokens = new TokenService(config.auth, await loadSigningKey(config.auth.signingKeyFile));
  const metrics = new HttpMetrics();
  const app = await createApp({ config, knex, logger, tokens, metrics });
  const server = http.createServer(app.callback());
  // OTLP exporters keep their connections open between exports, which the batch processors send
  // every 5 s by default: exactly Node's default keep-alive timeout, so the server would close
  // idle connections just as exporters reuse them ("socket hang up"). Idle connections are kept
  // for 65 s instead, the usual choice behind load balancers (headersTimeout must be longer).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const purger = new RetentionPurger({ knex, logger, config: config.retention, registry: metrics.registry });
  purger.start();
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // A purge batch in flight finishes (one short transaction) before the pool closes.
      const purgerStopped = purger.stop();
      // Keep-alive connections turn idle as their last response ends: close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const timeout = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await stopped;
      clearInterval(sweep);
      clearTimeout(timeout);
      await purgerStopped;
      await knex.destroy();
    })();
    return closing;
  };
  return { url: localServiceUrl(config.host, port), knex, logger, tokens, purger, close };
}
