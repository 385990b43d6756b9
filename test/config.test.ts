// Configuration is read once and every bad variable is named in a one-line error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { cliServiceUrl, ConfigError, loadConfig, serviceUrlFile } from '../src/config.js';

describe('configuration', () => {
  it('has defaults that need nothing installed (embedded SQLite, both APIs)', () => {
    const config = loadConfig({});
    expect(config.port).to.equal(8080);
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.apis).to.deep.equal(['engine', 'management']);
    expect(config.migrateOnStart).to.equal(true);
    expect(config.migrationLockWaitMs).to.equal(120_000);
    expect(config.dataDir).to.equal(path.resolve('data'));
    expect(config.auth.oidc).to.equal(undefined);
    expect(config.livePollIntervalMs).to.equal(500);
    expect(config.retention).to.deep.equal({ defaultDays: 30, purgeIntervalSeconds: 600, purgeBatchSize: 1000 });
    // The audit log is kept a year unless told otherwise.
    expect(config.audit).to.deep.equal({ retentionDays: 365, purgeIntervalSeconds: 3600, purgeBatchSize: 1000 });
    expect(config.grpc).to.deep.equal({ host: '0.0.0.0', port: 4317 });
    // A dashboard session: 12 hours unused, a week at most (docs/dashboard.md, "Signing in").
    expect(config.dashboard).to.deep.equal({ idleSeconds: 43_200, maxSeconds: 604_800 });
  });

  it('finds the running service for a CLI command: PORT or HOST set here, else the URL npm start wrote, else the default', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-config-'));
    try {
      const env = { DATA_DIR: dataDir };
      expect(cliServiceUrl(loadConfig(env), env)).to.equal('http://127.0.0.1:8080');
      fs.writeFileSync(serviceUrlFile(dataDir), 'http://127.0.0.1:9090\n');
      expect(cliServiceUrl(loadConfig(env), env)).to.equal('http://127.0.0.1:9090');
      const given = { ...env, PORT: '7070' };
      expect(cliServiceUrl(loadConfig(given), given)).to.equal('http://127.0.0.1:7070');
      const host = { ...env, HOST: '::1' };
      expect(cliServiceUrl(loadConfig(host), host)).to.equal('http://[::1]:8080');
      // Anything but a URL in the file is not trusted.
      fs.writeFileSync(serviceUrlFile(dataDir), 'garbage\n');
      expect(cliServiceUrl(loadConfig(env), env)).to.equal('http://127.0.0.1:8080');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('moves the gRPC port (and host), or turns it off', () => {
    expect(loadConfig({ HOST: '127.0.0.1', GRPC_PORT: '0' }).grpc).to.deep.equal({ host: '127.0.0.1', port: 0 });
    expect(loadConfig({ GRPC_PORT: '5317', GRPC_HOST: '::1' }).grpc).to.deep.equal({ host: '::1', port: 5317 });
    expect(loadConfig({ GRPC_PORT: 'off' }).grpc).to.equal(undefined);
  });

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'mysql://u:p@127.0.0.1:3306/db',
      SERVE_APIS: 'engine',
      LOG_LEVEL: 'debug',
      MIGRATE_ON_START: 'false',
      LIVE_POLL_INTERVAL_MS: '20',
      RETENTION_DEFAULT_DAYS: '365',
      RETENTION_PURGE_INTERVAL_SECONDS: '0',
      RETENTION_PURGE_BATCH_SIZE: '250',
      AUDIT_RETENTION_DAYS: '90',
      AUDIT_PURGE_INTERVAL_SECONDS: '60',
      AUDIT_PURGE_BATCH_SIZE: '50',
      OIDC_ISSUER: 'https://id.example.com/',
      OIDC_AUDIENCE: 'spanledger',
      OIDC_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
    });
    expect(config).to.deep.include({
      port: 9000,
      databaseUrl: 'mysql://u:p@127.0.0.1:3306/db',
      apis: ['engine'],
      logLevel: 'debug',
      migrateOnStart: false,
      livePollIntervalMs: 20,
    });
    expect(config.retention).to.deep.equal({ defaultDays: 365, purgeIntervalSeconds: 0, purgeBatchSize: 250 });
    expect(config.audit).to.deep.equal({ retentionDays: 90, purgeIntervalSeconds: 60, purgeBatchSize: 50 });
    expect(config.auth.oidc).to.deep.equal({
      issuer: 'https://id.example.com/',
      audience: 'spanledger',
      jwksUrl: 'https://id.example.com/.well-known/jwks.json',
      dashboard: undefined,
    });
  });

  const PROVIDER = {
    OIDC_ISSUER: 'https://id.example.com/',
    OIDC_AUDIENCE: 'https://spanledger.example.com',
    OIDC_JWKS_URL: 'https://id.example.com/jwks',
  };

  it("reads the dashboard's OpenID Connect client, named after the issuer's host unless told otherwise", () => {
    expect(loadConfig({ ...PROVIDER, OIDC_DASHBOARD_CLIENT_ID: 'dashboard' }).auth.oidc?.dashboard).to.deep.equal({
      clientId: 'dashboard',
      scope: undefined,
      providerName: 'id.example.com',
    });
    const chosen = loadConfig({
      ...PROVIDER,
      OIDC_DASHBOARD_CLIENT_ID: 'dashboard',
      OIDC_DASHBOARD_SCOPE: 'openid read:traces',
      OIDC_DASHBOARD_PROVIDER_NAME: ' Example ID ',
    });
    expect(chosen.auth.oidc?.dashboard).to.deep.equal({ clientId: 'dashboard', scope: 'openid read:traces', providerName: 'Example ID' });
    // http is for a provider on this machine only.
    expect(
      loadConfig({ ...PROVIDER, OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_DASHBOARD_CLIENT_ID: 'dashboard' }).auth.oidc?.dashboard
        ?.providerName,
    ).to.equal('127.0.0.1:9000');
    expect(
      loadConfig({ ...PROVIDER, OIDC_ISSUER: 'http://localhost:9000', OIDC_DASHBOARD_CLIENT_ID: 'dashboard' }).auth.oidc?.dashboard,
    ).not.to.equal(undefined);
  });

  it('bounds statements with a regex filter at 10 s unless REGEX_STATEMENT_TIMEOUT_MS says otherwise', () => {
    expect(loadConfig({}).regexStatementTimeoutMs).to.equal(10_000);
    expect(loadConfig({ REGEX_STATEMENT_TIMEOUT_MS: '250' }).regexStatementTimeoutMs).to.equal(250);
  });

  const BAD: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['GRPC_PORT', { GRPC_PORT: '-1' }],
    ['GRPC_PORT', { GRPC_PORT: 'no' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://localhost/db' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://u:p@127.0.0.1:3306' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://u:p@127.0.0.1:3306/' }],
    ['SERVE_APIS', { SERVE_APIS: 'engine,billing' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['MIGRATE_ON_START', { MIGRATE_ON_START: 'maybe' }],
    ['MIGRATION_LOCK_WAIT_SECONDS', { MIGRATION_LOCK_WAIT_SECONDS: '2m' }],
    ['RETENTION_DEFAULT_DAYS', { RETENTION_DEFAULT_DAYS: '0' }],
    ['RETENTION_DEFAULT_DAYS', { RETENTION_DEFAULT_DAYS: '3651' }],
    ['RETENTION_PURGE_INTERVAL_SECONDS', { RETENTION_PURGE_INTERVAL_SECONDS: '-1' }],
    ['RETENTION_PURGE_BATCH_SIZE', { RETENTION_PURGE_BATCH_SIZE: '0' }],
    ['DASHBOARD_SESSION_IDLE_SECONDS', { DASHBOARD_SESSION_IDLE_SECONDS: '10' }],
    ['DASHBOARD_SESSION_MAX_SECONDS', { DASHBOARD_SESSION_MAX_SECONDS: '1w' }],
    ['OIDC_AUDIENCE', { OIDC_ISSUER: 'https://id.example.com/' }],
    ['OIDC_JWKS_URL', { OIDC_ISSUER: 'https://id.example.com/', OIDC_AUDIENCE: 'a', OIDC_JWKS_URL: 'not a url' }],
    ['OIDC_DASHBOARD_CLIENT_ID', { OIDC_DASHBOARD_CLIENT_ID: 'dashboard' }],
    [
      'OIDC_DASHBOARD_CLIENT_ID',
      {
        OIDC_ISSUER: 'https://id.example.com/',
        OIDC_AUDIENCE: 'a',
        OIDC_JWKS_URL: 'https://id.example.com/jwks',
        OIDC_DASHBOARD_CLIENT_ID: 'tab\tbed',
      },
    ],
    [
      'OIDC_DASHBOARD_SCOPE',
      {
        OIDC_ISSUER: 'https://id.example.com/',
        OIDC_AUDIENCE: 'a',
        OIDC_JWKS_URL: 'https://id.example.com/jwks',
        OIDC_DASHBOARD_SCOPE: 'openid',
      },
    ],
    [
      'OIDC_DASHBOARD_SCOPE',
      {
        OIDC_ISSUER: 'https://id.example.com/',
        OIDC_AUDIENCE: 'a',
        OIDC_JWKS_URL: 'https://id.example.com/jwks',
        OIDC_DASHBOARD_CLIENT_ID: 'd',
        OIDC_DASHBOARD_SCOPE: 'read:traces',
      },
    ],
    [
      'OIDC_DASHBOARD_SCOPE',
      {
        OIDC_ISSUER: 'https://id.example.com/',
        OIDC_AUDIENCE: 'a',
        OIDC_JWKS_URL: 'https://id.example.com/jwks',
        OIDC_DASHBOARD_CLIENT_ID: 'd',
        OIDC_DASHBOARD_SCOPE: 'openid  read:traces',
      },
    ],
    ['OIDC_DASHBOARD_PROVIDER_NAME', { OIDC_DASHBOARD_PROVIDER_NAME: 'Example ID' }],
    [
      'OIDC_ISSUER',
      { OIDC_ISSUER: 'id.example.com', OIDC_AUDIENCE: 'a', OIDC_JWKS_URL: 'https://id.example.com/jwks', OIDC_DASHBOARD_CLIENT_ID: 'd' },
    ],
    [
      'OIDC_ISSUER',
      {
        OIDC_ISSUER: 'http://id.example.com',
        OIDC_AUDIENCE: 'a',
        OIDC_JWKS_URL: 'https://id.example.com/jwks',
        OIDC_DASHBOARD_CLIENT_ID: 'd',
      },
    ],
    [
      'OIDC_ISSUER',
      {
        OIDC_ISSUER: 'https://id.example.com/?tenant=1',
        OIDC_AUDIENCE: 'a',
        OIDC_JWKS_URL: 'https://id.example.com/jwks',
        OIDC_DASHBOARD_CLIENT_ID: 'd',
      },
    ],
    ['ACCESS_TOKEN_TTL_SECONDS', { ACCESS_TOKEN_TTL_SECONDS: '0' }],
    ['LIVE_POLL_INTERVAL_MS', { LIVE_POLL_INTERVAL_MS: '0' }],
    ['LIVE_POLL_INTERVAL_MS', { LIVE_POLL_INTERVAL_MS: '60001' }],
    ['LIVE_POLL_INTERVAL_MS', { LIVE_POLL_INTERVAL_MS: '1s' }],
    ['REGEX_STATEMENT_TIMEOUT_MS', { REGEX_STATEMENT_TIMEOUT_MS: '0' }],
    ['REGEX_STATEMENT_TIMEOUT_MS', { REGEX_STATEMENT_TIMEOUT_MS: '600001' }],
  ];
  for (const [variable, env] of BAD) {
    it(`names ${variable} when it is wrong (${JSON.stringify(env)})`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, variable);
      try {
        loadConfig(env);
      } catch (error) {
        expect((error as Error).message).not.to.include('\n');
      }
    });
  }
});
