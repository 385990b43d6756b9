// Owns the service configuration: every environment variable is read here, once,
// checked, and turned into one typed object that the rest of the code receives.
import fs from 'node:fs';
import path from 'node:path';

export type ApiName = 'engine' | 'management';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface OidcConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** The dashboard's sign-in with this provider (docs/dashboard.md); undefined: link sign-in only. */
  dashboard: OidcDashboardClient | undefined;
}

/** The public client the dashboard signs users in as (authorization code flow with PKCE). */
export interface OidcDashboardClient {
  clientId: string;
  /** OIDC_DASHBOARD_SCOPE; undefined: the default of src/dashboard/settings.ts. */
  scope: string | undefined;
  /** Shown on the sign-in button ("Sign in with …"). */
  providerName: string;
}

/** Where OTLP/gRPC ingestion listens; absent from Config when GRPC_PORT=off. */
export interface GrpcConfig {
  host: string;
  port: number;
}

export interface Config {
  host: string;
  port: number;
  grpc: GrpcConfig | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  apis: ApiName[];
  logLevel: LogLevel;
  migrateOnStart: boolean;
  /** How long a start waits for another instance's migrations, in milliseconds (MIGRATION_LOCK_WAIT_SECONDS). */
  migrationLockWaitMs: number;
  jsonBodyLimitBytes: number;
  ingestBodyLimitBytes: number;
  shutdownTimeoutMs: number;
  /** How often each live stream checks storage for new spans. */
  livePollIntervalMs: number;
  /** How long one statement whose filter holds a `regex` condition may run (openapi/engine.yaml, FilterOperator). */
  regexStatementTimeoutMs: number;
  retention: RetentionConfig;
  audit: AuditConfig;
  /** How long usage rows (docs/usage-and-quotas.md) are kept; the same shape as the audit log's. */
  usage: AuditConfig;
  indexing: IndexingConfig;
  folding: FoldingConfig;
  repricing: RepricingConfig;
  exports: ExportConfig;
  webhooks: WebhookConfig;
  budgets: BudgetConfig;
  dashboard: DashboardSessionConfig;
  auth: {
    tokenIssuer: string;
    tokenAudience: string;
    signingKeyFile: string;
    accessTokenTtlSeconds: number;
    clockToleranceSeconds: number;
    oidc: OidcConfig | undefined;
  };
}

export interface RetentionConfig {
  /** Days an application's spans are kept when it has not chosen its own `retention_days`. */
  defaultDays: number;
  /** Seconds between purge passes; 0 turns the background purger off. */
  purgeIntervalSeconds: number;
  /** Spans one purge statement deletes at most (one short transaction each). */
  purgeBatchSize: number;
}

/** The audit log's retention (docs/audit-log.md). */
/** The retention of rows that are only ever added (audit events, usage rows), purged in batches. */
export interface AuditConfig {
  /** Days a row is kept. */
  retentionDays: number;
  /** Seconds between purge passes; 0 turns the purge off. */
  purgeIntervalSeconds: number;
  /** Rows one purge statement deletes at most. */
  purgeBatchSize: number;
}

export interface FoldingConfig {
  /** Seconds between passes of the trace fold (src/jobs/trace-folder.ts); 0 turns it off. */
  intervalSeconds: number;
  /** Summaries one fold transaction files at most. */
  batchSize: number;
}

/** The re-pricing jobs' worker (src/jobs/repricer.ts). */
export interface RepricingConfig {
  /** Seconds between looks for a job to work on; 0 turns the worker off (another instance's works the jobs). */
  intervalSeconds: number;
  /** Spans one re-pricing transaction reads at most. */
  batchSize: number;
}

/** Bulk exports (docs/exports.md, src/exports/README.md) and their worker (src/jobs/exporter.ts). */
export interface ExportConfig {
  /** Seconds between looks for export work; 0 turns the worker off on this instance (another instance's works the jobs). */
  intervalSeconds: number;
  /** Records one batch reads and writes. */
  batchRows: number;
  /** Seconds after a job's snapshot before its worker starts reading (spans received by then have been committed). */
  settleSeconds: number;
  /** Jobs queued or running at once per organization. */
  maxActivePerOrganization: number;
  /** Bytes an organization keeps: results not yet expired and running jobs' files. */
  maxBytesPerOrganization: number;
  /** Hours a result is kept after it succeeded. */
  retentionHours: number;
}

/** Webhook deliveries (docs/webhooks.md, src/webhooks/README.md). */
export interface WebhookConfig {
  /** Seconds between looks for due deliveries; 0 turns the deliverer off (another instance's delivers). */
  intervalSeconds: number;
  /** How long one POST may take, connection to last byte, in milliseconds. */
  timeoutMs: number;
  /** POSTs one instance has in flight at most. */
  concurrency: number;
  /** Seconds before each retry (before jitter): one more attempt than entries, then the delivery fails. */
  retryScheduleSeconds: number[];
  /** `host` or `host:port` entries (lowercase) exempt from the https rule and the address checks. */
  allowedHosts: string[];
  /** How long events, deliveries and attempts are kept, and their purge. */
  retention: AuditConfig;
}

/** The budget evaluator (src/jobs/budget-evaluator.ts, src/storage/budgets/README.md). */
export interface BudgetConfig {
  /** Seconds between evaluation passes; 0 turns the evaluator off (another instance's evaluates). */
  intervalSeconds: number;
}

/** The dashboard's sign-in sessions (docs/dashboard.md, "Signing in"). */
export interface DashboardSessionConfig {
  /** A session ends after this many seconds without a token request. */
  idleSeconds: number;
  /** A session ends this many seconds after sign-in, used or not. */
  maxSeconds: number;
}

export interface IndexingConfig {
  /** Seconds between passes of the indexed attribute backfill; 0 turns it off. */
  backfillIntervalSeconds: number;
  /** Spans one backfill statement updates at most (one short transaction each). */
  backfillBatchSize: number;
  /**
   * Seconds a changed slot waits before its backfill starts: longer than ingestion may store
   * spans with the keys it read before the change (src/ingest/ingest-traces.ts, SLOT_KEYS_MAX_AGE_MS),
   * plus room for clock differences between instances.
   */
  settleSeconds: number;
}

/** The bounds of `retention_days`, as the management document states them. */
export const RETENTION_DAYS_MIN = 1;
export const RETENTION_DAYS_MAX = 3650;

/** Seconds before each retry of a webhook delivery, before jitter. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [10, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800];

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** WEBHOOK_RETRY_SCHEDULE_SECONDS: comma-separated whole seconds, each at most a day. */
function readSchedule(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 30 || parts.some((part) => !/^\d{1,5}$/.test(part) || Number(part) > 86_400)) {
    throw new ConfigError(name, `must be up to 30 comma-separated whole seconds of at most 86400 each, got "${raw}"`);
  }
  return parts.map(Number);
}

/** WEBHOOK_ALLOWED_HOSTS: comma-separated `host` or `host:port` entries (IPv6 in brackets). */
function readHosts(env: Env, name: string): string[] {
  const raw = env[name] ?? '';
  const hosts = raw
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean);
  return hosts.map((entry) => {
    const match = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(entry);
    let hostname: string | undefined;
    try {
      hostname = match ? new URL(`http://${match[1]}`).hostname : undefined;
    } catch {
      hostname = undefined;
    }
    if (!match || hostname === undefined || (match[2] !== undefined && Number(match[2]) > 65535)) {
      throw new ConfigError(name, `must list host or host:port entries (IPv6 in brackets), got "${entry}"`);
    }
    // As the WHATWG URL parser writes a webhook URL's host (2130706433 is 127.0.0.1).
    return match[2] === undefined ? hostname : `${hostname}:${Number(match[2])}`;
  });
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

/** GRPC_PORT: a port (0 picks a free one), or `off` for no gRPC listener at all. */
function readGrpc(env: Env, host: string): GrpcConfig | undefined {
  if ((env.GRPC_PORT ?? '').trim().toLowerCase() === 'off') return undefined;
  return { host: env.GRPC_HOST || host, port: readInteger(env, 'GRPC_PORT', 4317, 0, 65535) };
}

function readApis(env: Env): ApiName[] {
  const raw = env.SERVE_APIS ?? 'engine,management';
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const valid = names.every((name): name is ApiName => name === 'engine' || name === 'management');
  if (!valid || names.length === 0) {
    throw new ConfigError('SERVE_APIS', `must list engine, management or both (comma-separated), got "${raw}"`);
  }
  return [...new Set(names)] as ApiName[];
}

function readDatabaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^(mysql|sqlite):/.test(raw)) {
    throw new ConfigError('DATABASE_URL', 'must start with mysql:// or sqlite: (unset it for the embedded SQLite default)');
  }
  if (raw.startsWith('mysql:')) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid mysql:// URL');
    }
    // Without one the server would take every statement as "No database selected".
    if (url.pathname.length <= 1) throw new ConfigError('DATABASE_URL', 'must name a database: mysql://user:password@host:port/database');
  }
  return raw;
}

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces.
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;
// RFC 6749 Appendix A.1: client_id = *VSCHAR (visible ASCII and space).
const CLIENT_ID = /^[\x20-\x7E]{1,255}$/;

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** OIDC_DASHBOARD_*: only with the OIDC_* variables, whose issuer the browser must then reach. */
function readOidcDashboard(env: Env, issuer: string | undefined): OidcDashboardClient | undefined {
  const clientId = env.OIDC_DASHBOARD_CLIENT_ID || undefined;
  const scope = env.OIDC_DASHBOARD_SCOPE || undefined;
  const providerName = env.OIDC_DASHBOARD_PROVIDER_NAME?.trim() || undefined;
  if (!clientId) {
    if (scope) throw new ConfigError('OIDC_DASHBOARD_SCOPE', 'needs OIDC_DASHBOARD_CLIENT_ID');
    if (providerName) throw new ConfigError('OIDC_DASHBOARD_PROVIDER_NAME', 'needs OIDC_DASHBOARD_CLIENT_ID');
    return undefined;
  }
  if (!issuer)
    throw new ConfigError(
      'OIDC_DASHBOARD_CLIENT_ID',
      'needs OIDC_ISSUER, OIDC_AUDIENCE and OIDC_JWKS_URL (the provider whose tokens the service trusts)',
    );
  if (!CLIENT_ID.test(clientId)) throw new ConfigError('OIDC_DASHBOARD_CLIENT_ID', 'must be 1 to 255 visible ASCII characters');
  if (scope !== undefined && (!SCOPE.test(scope) || !scope.split(' ').includes('openid'))) {
    throw new ConfigError('OIDC_DASHBOARD_SCOPE', `must be space-separated scopes including openid, got "${scope}"`);
  }
  // The browser discovers the provider from its issuer (oauth4webapi): https, or http on this machine.
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    throw new ConfigError('OIDC_ISSUER', 'must be an absolute URL when OIDC_DASHBOARD_CLIENT_ID is set');
  }
  if (issuerUrl.protocol !== 'https:' && !(issuerUrl.protocol === 'http:' && isLoopback(issuerUrl.hostname))) {
    throw new ConfigError('OIDC_ISSUER', 'must be an https:// URL (http:// only on localhost) when OIDC_DASHBOARD_CLIENT_ID is set');
  }
  if (issuerUrl.search || issuerUrl.hash) throw new ConfigError('OIDC_ISSUER', 'must have no query or fragment');
  return { clientId, scope, providerName: providerName ?? issuerUrl.host };
}

function readOidc(env: Env): OidcConfig | undefined {
  const issuer = env.OIDC_ISSUER || undefined;
  const audience = env.OIDC_AUDIENCE || undefined;
  const jwksUrl = env.OIDC_JWKS_URL || undefined;
  if (!issuer && !audience && !jwksUrl) {
    // Throws when an OIDC_DASHBOARD_* variable is set without the provider.
    readOidcDashboard(env, undefined);
    return undefined;
  }
  for (const [name, value] of [
    ['OIDC_ISSUER', issuer],
    ['OIDC_AUDIENCE', audience],
    ['OIDC_JWKS_URL', jwksUrl],
  ] as const) {
    if (!value) throw new ConfigError(name, 'must be set when any OIDC_* variable is set');
  }
  try {
    new URL(jwksUrl as string);
  } catch {
    throw new ConfigError('OIDC_JWKS_URL', 'must be an absolute URL');
  }
  return { issuer: issuer as string, audience: audience as string, jwksUrl: jwksUrl as string, dashboard: readOidcDashboard(env, issuer) };
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const dataDir = path.resolve(env.DATA_DIR || 'data');
  const host = env.HOST || '0.0.0.0';
  return {
    host,
    port: readInteger(env, 'PORT', 8080, 0, 65535),
    grpc: readGrpc(env, host),
    databaseUrl: readDatabaseUrl(env),
    dataDir,
    apis: readApis(env),
    logLevel,
    migrateOnStart: readBoolean(env, 'MIGRATE_ON_START', true),
    migrationLockWaitMs: readInteger(env, 'MIGRATION_LOCK_WAIT_SECONDS', 120, 0, 86_400) * 1000,
    jsonBodyLimitBytes: readInteger(env, 'JSON_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    ingestBodyLimitBytes: readInteger(env, 'INGEST_MAX_BODY_BYTES', 20 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    shutdownTimeoutMs: readInteger(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    // Each open stream costs one storage read per interval: 10 ms is as busy as it gets.
    livePollIntervalMs: readInteger(env, 'LIVE_POLL_INTERVAL_MS', 500, 10, 60_000),
    regexStatementTimeoutMs: readInteger(env, 'REGEX_STATEMENT_TIMEOUT_MS', 10_000, 1, 600_000),
    retention: {
      defaultDays: readInteger(env, 'RETENTION_DEFAULT_DAYS', 30, RETENTION_DAYS_MIN, RETENTION_DAYS_MAX),
      purgeIntervalSeconds: readInteger(env, 'RETENTION_PURGE_INTERVAL_SECONDS', 600, 0, 86_400),
      // Small enough that a batch's locks and its summary recomputes last milliseconds.
      purgeBatchSize: readInteger(env, 'RETENTION_PURGE_BATCH_SIZE', 1000, 1, 10_000),
    },
    audit: {
      retentionDays: readInteger(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36_500),
      purgeIntervalSeconds: readInteger(env, 'AUDIT_PURGE_INTERVAL_SECONDS', 3600, 0, 86_400),
      purgeBatchSize: readInteger(env, 'AUDIT_PURGE_BATCH_SIZE', 1000, 1, 10_000),
    },
    usage: {
      // 400 days: a year of hourly usage and the month before it, for year-over-year comparisons.
      retentionDays: readInteger(env, 'USAGE_RETENTION_DAYS', 400, 1, 36_500),
      purgeIntervalSeconds: readInteger(env, 'USAGE_PURGE_INTERVAL_SECONDS', 3600, 0, 86_400),
      purgeBatchSize: readInteger(env, 'USAGE_PURGE_BATCH_SIZE', 1000, 1, 10_000),
    },
    indexing: {
      backfillIntervalSeconds: readInteger(env, 'INDEXING_BACKFILL_INTERVAL_SECONDS', 10, 0, 86_400),
      backfillBatchSize: readInteger(env, 'INDEXING_BACKFILL_BATCH_SIZE', 2000, 1, 50_000),
      settleSeconds: readInteger(env, 'INDEXING_SETTLE_SECONDS', 120, 0, 3600),
    },
    folding: {
      intervalSeconds: readInteger(env, 'TRACE_FOLD_INTERVAL_SECONDS', 5, 0, 86_400),
      batchSize: readInteger(env, 'TRACE_FOLD_BATCH_SIZE', 1000, 1, 20_000),
    },
    repricing: {
      intervalSeconds: readInteger(env, 'REPRICING_INTERVAL_SECONDS', 2, 0, 86_400),
      batchSize: readInteger(env, 'REPRICING_BATCH_SIZE', 1000, 1, 1000),
    },
    exports: {
      intervalSeconds: readInteger(env, 'EXPORT_INTERVAL_SECONDS', 1, 0, 3600),
      batchRows: readInteger(env, 'EXPORT_BATCH_ROWS', 2000, 1, 50_000),
      settleSeconds: readInteger(env, 'EXPORT_SETTLE_SECONDS', 5, 0, 3600),
      maxActivePerOrganization: readInteger(env, 'EXPORT_MAX_ACTIVE_PER_ORGANIZATION', 2, 1, 1000),
      // 1 GiB; at most 1 PiB.
      maxBytesPerOrganization: readInteger(env, 'EXPORT_MAX_BYTES_PER_ORGANIZATION', 2 ** 30, 1, 2 ** 50),
      retentionHours: readInteger(env, 'EXPORT_RETENTION_HOURS', 24, 1, 8760),
    },
    webhooks: {
      intervalSeconds: readInteger(env, 'WEBHOOK_DELIVERY_INTERVAL_SECONDS', 1, 0, 3600),
      timeoutMs: readInteger(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, 1, 60) * 1000,
      concurrency: readInteger(env, 'WEBHOOK_DELIVERY_CONCURRENCY', 8, 1, 100),
      // About 24 hours in all: 11 attempts, the last one 23.7 h after the first.
      retryScheduleSeconds: readSchedule(env, 'WEBHOOK_RETRY_SCHEDULE_SECONDS', DEFAULT_WEBHOOK_RETRY_SCHEDULE),
      allowedHosts: readHosts(env, 'WEBHOOK_ALLOWED_HOSTS'),
      retention: {
        retentionDays: readInteger(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 36_500),
        purgeIntervalSeconds: readInteger(env, 'WEBHOOK_PURGE_INTERVAL_SECONDS', 3600, 0, 86_400),
        purgeBatchSize: readInteger(env, 'WEBHOOK_PURGE_BATCH_SIZE', 1000, 1, 10_000),
      },
    },
    budgets: {
      intervalSeconds: readInteger(env, 'BUDGET_EVALUATION_INTERVAL_SECONDS', 60, 0, 86_400),
    },
    dashboard: {
      // 12 hours: a working day; 7 days: a week of days, after which a new sign-in link is needed.
      idleSeconds: readInteger(env, 'DASHBOARD_SESSION_IDLE_SECONDS', 12 * 3600, 60, 30 * 86_400),
      maxSeconds: readInteger(env, 'DASHBOARD_SESSION_MAX_SECONDS', 7 * 86_400, 60, 90 * 86_400),
    },
    auth: {
      tokenIssuer: env.TOKEN_ISSUER || 'spanledger',
      tokenAudience: env.TOKEN_AUDIENCE || 'spanledger',
      signingKeyFile: path.resolve(env.SIGNING_KEY_FILE || path.join(dataDir, 'signing-key.json')),
      accessTokenTtlSeconds: readInteger(env, 'ACCESS_TOKEN_TTL_SECONDS', 3600, 1, 86_400),
      clockToleranceSeconds: readInteger(env, 'CLOCK_TOLERANCE_SECONDS', 30, 0, 300),
      oidc: readOidc(env),
    },
  };
}

/** Where a client on this machine reaches the service: a wildcard listen address means loopback. */
export function localServiceUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * Where `npm start` writes the URL it listens on (one line), so that the commands of a second
 * terminal (`sign-in-link`, `seed:demo`) reach it without being told PORT or HOST again.
 */
export function serviceUrlFile(dataDir: string): string {
  return path.join(dataDir, 'service-url');
}

/**
 * The running service's address as a command of this machine finds it: from PORT and HOST when
 * either is set here, else the URL `npm start` wrote into the data folder, else the default
 * (http://127.0.0.1:8080). A stale file only names the address of the last start.
 */
export function cliServiceUrl(config: Pick<Config, 'host' | 'port' | 'dataDir'>, env: Env = process.env): string {
  if (env.PORT || env.HOST) return localServiceUrl(config.host, config.port);
  try {
    const written = fs.readFileSync(serviceUrlFile(config.dataDir), 'utf8').trim();
    if (/^https?:\/\/\S+$/.test(written)) return written;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return localServiceUrl(config.host, config.port);
}
