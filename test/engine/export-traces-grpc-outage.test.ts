// OTLP/gRPC during a real database outage or overload: UNAVAILABLE with google.rpc.RetryInfo
// (never a non-retryable status, never OK for spans not stored), and a client retrying
// UNAVAILABLE, as the gRPC retry policy and the Collector do, stores every span exactly once when
// the database is back. Outage: SQLite runs out of room (its page limit); MariaDB becomes
// unreachable (a TCP relay in front of it is stopped), as in the OTLP/HTTP outage test.
// Overload: every connection of the service's MariaDB pool is busy past its acquire timeout;
// SQLite's write lock is held by another connection past the busy timeout.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { status as Status } from '@grpc/grpc-js';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { grpcCallCount, rawExport, retryDelaySeconds, untilMoreCalls } from '../support/grpc.js';
import { recordSpans } from '../support/otel.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

/** Spans with attributes big enough that storing them needs new database pages. */
function batch(count: number): Promise<ReadableSpan[]> {
  return recordSpans({ 'service.name': 'grpc-outage' }, (tracer) => {
    for (let index = 0; index < count; index += 1)
      tracer.startSpan(`work ${index}`, { attributes: { 'vendor.cost': 0.01, payload: 'p'.repeat(2000) } }).end();
  });
}

const body = (spans: ReadableSpan[]) => ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array;
const spanIds = (spans: ReadableSpan[]) => spans.map((span) => span.spanContext().spanId).sort();

async function storedSpanIds(app: TestServer, appId: string): Promise<string[]> {
  const rows: Array<{ span_id: string }> = await app.server.knex('spans').where({ application_id: appId }).select('span_id');
  return rows.map((row) => row.span_id).sort();
}

interface Service {
  url: string;
  grpcAddress: string;
}

/** Refused with UNAVAILABLE and a retry delay; then a retrying client gets through once `recover` has run. */
async function refusedThenRetried(
  service: Service,
  caller: EngineCaller,
  spans: ReadableSpan[],
  recover: () => Promise<void>,
): Promise<void> {
  const refused = await rawExport(service.grpcAddress, body(spans), caller.headers);
  expect(refused.error?.code, refused.error?.details).to.equal(Status.UNAVAILABLE);
  expect(retryDelaySeconds(refused.error as NonNullable<typeof refused.error>)).to.be.greaterThan(0);
  const refusals = await grpcCallCount(service.url, 'UNAVAILABLE');
  const retried = rawExport(service.grpcAddress, body(spans), caller.headers, { retryUnavailable: true });
  await untilMoreCalls(service.url, 'UNAVAILABLE', refusals);
  await recover();
  const { error } = await retried;
  expect(error).to.equal(null);
}

onEachDatabase(
  'OTLP/gRPC during a database outage or overload',
  (app) => {
    it('answers UNAVAILABLE with RetryInfo while the database cannot store, and a retry afterwards stores every span once', async function () {
      this.timeout(90_000);
      if (app().database === 'sqlite') await sqliteFull(app());
      else await mysqlUnreachable(app());
    });

    it('answers UNAVAILABLE with RetryInfo while the database is overloaded, and a retry afterwards stores every span once', async function () {
      this.timeout(90_000);
      const caller = await engineCaller(app());
      const spans = await batch(20);
      const release = app().database === 'sqlite' ? sqliteWriteLockHeld(app()) : await mysqlPoolExhausted(app());
      let released = false;
      const recover = async () => {
        if (!released) await release();
        released = true;
      };
      try {
        await refusedThenRetried({ url: app().url, grpcAddress: app().grpcAddress as string }, caller, spans, recover);
      } finally {
        await recover();
      }
      expect(await storedSpanIds(app(), caller.appId)).to.deep.equal(spanIds(spans));
    });
  },
  { GRPC_PORT: '0' },
);

/** Another connection holds SQLite's write lock: the service's writes wait out busy_timeout, then fail SQLITE_BUSY. */
function sqliteWriteLockHeld(app: TestServer): () => Promise<void> {
  const other = new Database((app.config.databaseUrl as string).replace(/^sqlite:(\/\/)?/, ''));
  other.exec('BEGIN IMMEDIATE');
  return async () => {
    other.exec('ROLLBACK');
    other.close();
  };
}

/** Every connection of the service's MariaDB pool taken by a transaction of the test: the next acquire times out. */
async function mysqlPoolExhausted(app: TestServer): Promise<() => Promise<void>> {
  const knex = app.server.knex;
  const size = (knex.client as { pool: { max: number } }).pool.max;
  const held = await Promise.all(Array.from({ length: size }, () => knex.transaction()));
  return async () => {
    await Promise.all(held.map((trx) => trx.rollback()));
  };
}

async function sqliteFull(app: TestServer): Promise<void> {
  const knex = app.server.knex;
  const caller = await engineCaller(app);
  const before = await batch(10);
  expect((await rawExport(app.grpcAddress as string, body(before), caller.headers)).error).to.equal(null);
  const [{ max_page_count: original }] = await knex.raw('PRAGMA max_page_count');
  const [{ page_count: pages }] = await knex.raw('PRAGMA page_count');
  await knex.raw(`PRAGMA max_page_count = ${Number(pages)}`);
  let restored = false;
  const restore = async () => {
    if (!restored) await knex.raw(`PRAGMA max_page_count = ${Number(original)}`);
    restored = true;
  };
  try {
    const during = [...before, ...(await batch(40))];
    await refusedThenRetried({ url: app.url, grpcAddress: app.grpcAddress as string }, caller, during, async () => {
      expect(await storedSpanIds(app, caller.appId)).to.deep.equal(spanIds(before));
      await restore();
    });
    expect(await storedSpanIds(app, caller.appId)).to.deep.equal(spanIds(during));
  } finally {
    await restore();
  }
}

/** A second instance reaching the suite's MariaDB database through a relay; stopping the relay is the outage. */
async function mysqlUnreachable(app: TestServer): Promise<void> {
  const target = new URL(app.config.databaseUrl as string);
  const relay = new TcpProxy(target.hostname, Number(target.port || 3306));
  await relay.start();
  const relayed = new URL(target);
  relayed.host = `127.0.0.1:${relay.port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-grpc-outage-'));
  let server: RunningServer | undefined;
  try {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      GRPC_PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: relayed.toString(),
      MIGRATE_ON_START: 'false',
      SIGNING_KEY_FILE: app.config.auth.signingKeyFile,
      LOG_LEVEL: 'silent',
    });
    server = await startServer(config, createLogger('silent'));
    const service = { url: server.url, grpcAddress: `127.0.0.1:${server.grpcPort}` };
    const caller = await engineCaller(app);
    const before = await batch(10);
    expect((await rawExport(service.grpcAddress, body(before), caller.headers)).error).to.equal(null);

    await relay.stop();
    const during = [...before, ...(await batch(40))];
    await refusedThenRetried(service, caller, during, async () => {
      expect(await storedSpanIds(app, caller.appId)).to.deep.equal(spanIds(before));
      await relay.start();
    });
    expect(await storedSpanIds(app, caller.appId)).to.deep.equal(spanIds(during));
  } finally {
    await server?.close();
    await relay.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
