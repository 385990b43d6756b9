// Owns the process lifecycle: database, migrations, HTTP and gRPC listeners, the retention and audit purgers,
// the indexed attribute backfill, the trace fold, the re-pricing jobs' and export jobs' workers, the webhook
// deliverer, the budget evaluator and graceful shutdown.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { localServiceUrl, type Config } from './config.js';
import { loadSigningKey } from './auth/signing-key.js';
import { TokenService } from './auth/tokens.js';
import { startGrpcServer, type GrpcListener } from './grpc/server.js';
import { createApp } from './http/app.js';
import { IngestActivity } from './ingest/ingest-activity.js';
import { createLogger } from './logger.js';
import { HttpMetrics } from './ops/metrics.js';
import { RetentionPurger } from './jobs/purger.js';
import { sqlSpanStore } from './storage/spans/sql-span-store.js';
import { priceEntriesOf } from './storage/accounts/price-entries.js';
import { PriceEntryCache } from './pricing/price-entry-cache.js';
import { AuditPurger } from './jobs/audit-purger.js';
import { UsagePurger } from './jobs/usage-purger.js';
import { SlotBackfiller } from './jobs/slot-backfiller.js';
import { TraceFolder } from './jobs/trace-folder.js';
import { Repricer } from './jobs/repricer.js';
import { Exporter } from './jobs/exporter.js';
import { spanRecord, traceSummary } from './engine/wire.js';
import { WebhookDeliverer } from './jobs/webhook-deliverer.js';
import { WebhookPurger } from './jobs/webhook-purger.js';
import { BudgetEvaluator } from './jobs/budget-evaluator.js';
import type { Resolver } from './webhooks/destinations.js';
import { answerClientError } from './http/client-errors.js';
import { openDatabase } from './storage/database.js';
import { asDatabaseUnusable } from './storage/database-unusable.js';
import { migrateToLatest } from './storage/migrations/index.js';
import { pageCompressionNotice } from './storage/page-compression.js';
import { MIGRATION_LOCK_TABLE } from './storage/migrations/migration-lock.js';

export interface RunningServer {
  url: string;
  /** The OTLP/gRPC port, when that listener is on (GRPC_PORT is not `off` and the engine is served). */
  grpcPort: number | undefined;
  knex: Knex;
  logger: Logger;
  tokens: TokenService;
  /** The organizations' price entries ingestion prices with (src/pricing/price-entry-cache.ts). */
  prices: PriceEntryCache;
  /** Runs in the background every RETENTION_PURGE_INTERVAL_SECONDS; `runOnce()` runs a pass now. */
  purger: RetentionPurger;
  auditPurger: AuditPurger;
  /** Deletes usage rows past USAGE_RETENTION_DAYS in the background; `runOnce()` runs a pass now. */
  usagePurger: UsagePurger;
  /** The indexed attribute backfill (src/jobs/slot-backfiller.ts). */
  backfiller: SlotBackfiller;
  /** The trace fold (src/jobs/trace-folder.ts), which gives way to this process's ingestion. */
  folder: TraceFolder;
  /** The re-pricing jobs' worker (src/jobs/repricer.ts); `runOnce()` works every job that needs it now. */
  repricer: Repricer;
  /** The export jobs' worker (src/jobs/exporter.ts); `runOnce()` does the housekeeping and works every export that needs it now. */
  exporter: Exporter;
  /** Sends due webhook deliveries (src/jobs/webhook-deliverer.ts); `runOnce()` sends every due one now. */
  webhookDeliverer: WebhookDeliverer;
  /** Deletes webhook events past WEBHOOK_RETENTION_DAYS with their deliveries; `runOnce()` runs a pass now. */
  webhookPurger: WebhookPurger;
  /** Fires budgets' thresholds (src/jobs/budget-evaluator.ts); `runOnce()` evaluates every enabled budget now. */
  budgetEvaluator: BudgetEvaluator;
  /** Stops accepting connections, lets in-flight requests and the purge batch in flight finish, then closes the pool. */
  close(): Promise<void>;
}

function closeHttp(server: http.Server, timeoutMs: number): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections turn idle as their last response ends: close them as they do.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  const timeout = setTimeout(() => server.closeAllConnections(), timeoutMs);
  return stopped.finally(() => {
    clearInterval(sweep);
    clearTimeout(timeout);
  });
}

export interface ServerOptions {
  /**
   * The clock of usage metering and quotas (src/operations/service-deps.ts; Date.now by
   * default), of budgets' periods (answers and the evaluator), of exports' snapshots, settling
   * and expiry, and of ingestion's quiet time (src/ingest/ingest-activity.ts; performance.now).
   */
  clock?: () => number;
  /** How webhook destinations' host names are resolved (the system's DNS by default). */
  webhookResolver?: Resolver;
}

export async function startServer(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  options: ServerOptions = {},
): Promise<RunningServer> {
  const { clock } = options;
  // A database that cannot be used at all stops the start as DatabaseUnusable (one line, main.ts).
  // Without migrations at start the database is first reached by requests, which answer 503 until it answers.
  let knex: Knex;
  try {
    knex = openDatabase(config.databaseUrl, config.dataDir, logger, { regexStatementTimeoutMs: config.regexStatementTimeoutMs });
  } catch (error) {
    throw asDatabaseUnusable(error, config.databaseUrl, config.dataDir);
  }
  if (config.migrateOnStart) {
    // Several instances starting at once on a new release: one migrates, the others wait for it.
    const onWait = () => logger.info({ lock_table: MIGRATION_LOCK_TABLE }, 'waiting for the migrations another instance is running');
    try {
      await migrateToLatest(knex, { lockWaitMs: config.migrationLockWaitMs, onWait });
    } catch (error) {
      await knex.destroy();
      throw asDatabaseUnusable(error, config.databaseUrl, config.dataDir);
    }
    // Only a hint for the operator: a failure to read it must not stop the start.
    const notice = await pageCompressionNotice(knex).catch(() => undefined);
    if (notice) logger[notice.level](notice.fields, notice.message);
  }
  const tokens = new TokenService(config.auth, await loadSigningKey(config.auth.signingKeyFile));
  const metrics = new HttpMetrics();
  // Over HTTP and gRPC alike: the trace fold gives way to it.
  const ingestActivity = new IngestActivity(clock);
  // Ingestion is the engine's: a management-only process opens no gRPC port.
  const grpcConfig = config.apis.includes('engine') ? config.grpc : undefined;
  let grpc: GrpcListener | undefined;
  const grpcListening = () => !grpcConfig || (grpc?.listening() ?? false);
  const spans = sqlSpanStore(knex);
  // Over HTTP and gRPC alike, and forgotten by the management API's changes to them.
  const prices = new PriceEntryCache((organizationId) => priceEntriesOf(knex, organizationId));
  const app = await createApp({ config, knex, spans, logger, tokens, metrics, grpcListening, clock, ingestActivity, prices });
  const server = http.createServer(app.callback());
  server.on('clientError', answerClientError);
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
  if (grpcConfig) {
    try {
      grpc = await startGrpcServer(grpcConfig, { config, knex, spans, logger, tokens, prices, clock, ingestActivity }, metrics);
    } catch (error) {
      await closeHttp(server, 0);
      await knex.destroy();
      throw error;
    }
  }
  const purger = new RetentionPurger({ knex, spans, logger, config: config.retention, registry: metrics.registry });
  purger.start();
  const auditPurger = new AuditPurger({ knex, logger, config: config.audit });
  auditPurger.start();
  const usagePurger = new UsagePurger({ knex, logger, config: config.usage });
  usagePurger.start();
  const backfiller = new SlotBackfiller({ knex, logger, config: config.indexing });
  backfiller.start();
  const folder = new TraceFolder({ knex, logger, config: config.folding, ingestBusy: () => ingestActivity.busy() });
  folder.start();
  const repricer = new Repricer({ knex, logger, config: config.repricing });
  repricer.start();
  // The engine's record shapes: an export holds exactly what POST /engine/query and POST /traces answer.
  const records = { spans: spanRecord, traces: traceSummary };
  const exporter = new Exporter({ knex, spans, logger, config: config.exports, records, clock, ingestBusy: () => ingestActivity.busy() });
  exporter.start();
  const webhookDeliverer = new WebhookDeliverer({ knex, logger, config: config.webhooks, resolve: options.webhookResolver });
  webhookDeliverer.start();
  const webhookPurger = new WebhookPurger({ knex, logger, config: config.webhooks.retention });
  webhookPurger.start();
  const budgetEvaluator = new BudgetEvaluator({ knex, logger, config: config.budgets, clock });
  budgetEvaluator.start();
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // A purge batch in flight finishes (one short transaction) before the pool closes.
      await Promise.all([
        closeHttp(server, config.shutdownTimeoutMs),
        grpc?.close(config.shutdownTimeoutMs),
        purger.stop(),
        auditPurger.stop(),
        usagePurger.stop(),
        backfiller.stop(),
        folder.stop(),
        repricer.stop(),
        exporter.stop(),
        webhookDeliverer.stop(),
        webhookPurger.stop(),
        budgetEvaluator.stop(),
      ]);
      await knex.destroy();
    })();
    return closing;
  };
  return {
    url: localServiceUrl(config.host, port),
    grpcPort: grpc?.port,
    knex,
    logger,
    tokens,
    prices,
    purger,
    auditPurger,
    usagePurger,
    backfiller,
    folder,
    repricer,
    exporter,
    webhookDeliverer,
    webhookPurger,
    budgetEvaluator,
    close,
  };
}
