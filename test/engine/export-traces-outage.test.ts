// POST /v1/traces while the database fails: the answer is 503 with Retry-After (never a 500,
// never a 200 for spans not stored), and once the database is back the exporter's own retry
// stores every span exactly once. The failures are real ones: SQLite runs out of room (its
// page limit), MariaDB becomes unreachable (a TCP relay in front of it is stopped), and either
// loses the spans table; and with every pooled connection held, the answer comes before an
// exporter's 10 s timeout.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { assertMatchesContract } from '../support/contract.js';
import { contractCheckingProxy, expectExported, exportSpans, recordSpans } from '../support/otel.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

/** A batch of spans with attributes big enough that storing them needs new database pages. */
function batch(count: number): Promise<ReadableSpan[]> {
  return recordSpans({ 'service.name': 'outage' }, (tracer) => {
    for (let index = 0; index < count; index += 1) {
      tracer.startSpan(`work ${index}`, { kind: SpanKind.INTERNAL, attributes: { 'vendor.cost': 0.01, payload: 'p'.repeat(2000) } }).end();
    }
  });
}

async function postProtobuf(url: string, caller: EngineCaller, spans: ReadableSpan[]) {
  const response = await fetch(new URL('/v1/traces', url), {
    method: 'POST',
    headers: { ...caller.headers, 'Content-Type': 'application/x-protobuf' },
    body: ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array,
  });
  const text = await response.text();
  const body = (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
  await assertMatchesContract('POST', '/v1/traces', { status: response.status, headers: response.headers, body, text });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
}

async function storedSpanIds(app: TestServer, appId: string): Promise<string[]> {
  const rows: Array<{ span_id: string }> = await app.server.knex('spans').where({ application_id: appId }).select('span_id');
  return rows.map((row) => row.span_id).sort();
}

function spanIds(spans: ReadableSpan[]): string[] {
  return spans.map((span) => span.spanContext().spanId).sort();
}

/** Exports with the real protobuf exporter, which retries 503s after Retry-After, while `during` runs. */
async function exportAcrossOutage(
  url: string,
  caller: EngineCaller,
  spans: ReadableSpan[],
  during: () => Promise<void>,
): Promise<number[]> {
  const proxy = await contractCheckingProxy(url);
  const exporter = new OTLPTraceExporter({ url: `${proxy.url}/v1/traces`, headers: caller.headers, timeoutMillis: 30_000 });
  try {
    const exported = exportSpans(exporter, spans);
    await during();
    expectExported(await exported);
    expect(proxy.violations).to.deep.equal([]);
    return proxy.statuses;
  } finally {
    await exporter.shutdown();
    await proxy.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

onEachDatabase('POST /v1/traces during a database outage', (app) => {
  it('answers 503 with Retry-After while the database cannot store, and a retry afterwards stores every span once', async function () {
    this.timeout(60_000);
    if (app().database === 'sqlite') await sqliteFull(app());
    else await mysqlUnreachable(app());
  });

  it('answers 503 with Retry-After before an exporter gives up (10 s) while every connection of the pool is held, and stores the spans once one is free', async function () {
    this.timeout(60_000);
    // One export first, of another application: the clock below times the pool's wait, not the
    // loading of the exporter's serializer and the service's OTLP decoder by a first request.
    expect((await postProtobuf(app().url, await engineCaller(app()), await batch(1))).status).to.equal(200);
    const caller = await engineCaller(app());
    const knex = app().server.knex;
    const { max } = knex.client.pool as { max: number };
    // The pool's every connection (SQLite's one, MariaDB's ten) in a transaction that waits.
    const held = await Promise.all(Array.from({ length: max }, () => knex.transaction()));
    let released = false;
    const release = async () => {
      if (!released) await Promise.all(held.map((transaction) => transaction.rollback()));
      released = true;
    };
    try {
      const waiting = await batch(3);
      const started = performance.now();
      const refused = await postProtobuf(app().url, caller, waiting);
      const waitedMs = performance.now() - started;
      expect(refused.status).to.equal(503);
      expect(Number(refused.retryAfter)).to.be.greaterThan(0);
      expect(waitedMs).to.be.lessThan(10_000);
    } finally {
      await release();
    }
    const spans = await batch(3);
    expect((await postProtobuf(app().url, caller, spans)).status).to.equal(200);
    expect(await storedSpanIds(app(), caller.appId)).to.deep.equal(spanIds(spans));
  });

  it('answers 503, not 500, when storing fails in an unexpected way (the spans table is gone)', async () => {
    const caller = await engineCaller(app());
    const knex = app().server.knex;
    await knex.schema.renameTable('spans', 'spans_away');
    try {
      const refused = await postProtobuf(app().url, caller, await batch(3));
      expect(refused.status).to.equal(503);
      expect(Number(refused.retryAfter)).to.be.greaterThan(0);
    } finally {
      await knex.schema.renameTable('spans_away', 'spans');
    }
    const spans = await batch(3);
    expect((await postProtobuf(app().url, caller, spans)).status).to.equal(200);
    expect(await storedSpanIds(app(), caller.appId)).to.deep.equal(spanIds(spans));
  });
});

/** SQLite's page limit set to the current size: every write that needs a new page fails (SQLITE_FULL). */
async function sqliteFull(app: TestServer): Promise<void> {
  const knex = app.server.knex;
  const caller = await engineCaller(app);
  const before = await batch(10);
  expect((await postProtobuf(app.url, caller, before)).status).to.equal(200);

  const [{ max_page_count: original }] = await knex.raw('PRAGMA max_page_count');
  const [{ page_count: pages }] = await knex.raw('PRAGMA page_count');
  await knex.raw(`PRAGMA max_page_count = ${Number(pages)}`);
  let restored = false;
  const restore = async () => {
    if (!restored) await knex.raw(`PRAGMA max_page_count = ${Number(original)}`);
    restored = true;
  };
  try {
    const during = await batch(40);
    const refused = await postProtobuf(app.url, caller, [...before, ...during]);
    expect(refused.status).to.equal(503);
    expect(Number(refused.retryAfter)).to.be.greaterThan(0);
    expect(refused.body.detail).to.be.a('string');
    expect(await storedSpanIds(app, caller.appId)).to.deep.equal(spanIds(before));

    const statuses = await exportAcrossOutage(app.url, caller, [...before, ...during], async () => {
      await sleep(500);
      await restore();
    });
    expect(statuses[0]).to.equal(503);
    expect(statuses.at(-1)).to.equal(200);
    expect(await storedSpanIds(app, caller.appId)).to.deep.equal(spanIds([...before, ...during]));
  } finally {
    await restore();
  }
}

/**
 * A second service instance reaching the suite's MariaDB database through a TCP relay (same
 * database, same signing key, so the suite's tokens work on it); stopping the relay is the outage.
 */
async function mysqlUnreachable(app: TestServer): Promise<void> {
  const target = new URL(app.config.databaseUrl as string);
  const relay = new TcpProxy(target.hostname, Number(target.port || 3306));
  await relay.start();
  const relayed = new URL(target);
  relayed.host = `127.0.0.1:${relay.port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-outage-'));
  let server: RunningServer | undefined;
  try {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      GRPC_PORT: 'off',
      DATA_DIR: dataDir,
      DATABASE_URL: relayed.toString(),
      MIGRATE_ON_START: 'false',
      SIGNING_KEY_FILE: app.config.auth.signingKeyFile,
      LOG_LEVEL: 'silent',
    });
    server = await startServer(config, createLogger('silent'));
    const caller = await engineCaller(app);
    const before = await batch(10);
    expect((await postProtobuf(server.url, caller, before)).status).to.equal(200);

    await relay.stop();
    const during = await batch(40);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      // The first attempt finds its pooled connections cut, the second cannot connect at all.
      const refused = await postProtobuf(server.url, caller, [...before, ...during]);
      expect(refused.status).to.equal(503);
      expect(Number(refused.retryAfter)).to.be.greaterThan(0);
    }
    expect(await storedSpanIds(app, caller.appId)).to.deep.equal(spanIds(before));

    const statuses = await exportAcrossOutage(server.url, caller, [...before, ...during], async () => {
      await sleep(500);
      await relay.start();
    });
    expect(statuses[0]).to.equal(503);
    expect(statuses.at(-1)).to.equal(200);
    expect(await storedSpanIds(app, caller.appId)).to.deep.equal(spanIds([...before, ...during]));
  } finally {
    await server?.close();
    await relay.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
