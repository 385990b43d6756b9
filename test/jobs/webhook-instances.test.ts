// Webhook deliveries across processes on every database: a delivery stored before a stop is sent
// by the service started next on the same database, mid-backoff included; two instances on one
// database deliver every event exactly once to a fast receiver (each delivery claimed by one).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { testDatabases } from '../support/databases.js';
import { callerFor, createOrganization, dashboardUser, expectStatus, type Caller } from '../support/management.js';
import type { TestServer } from '../support/test-server.js';
import { FAST_WEBHOOKS, startReceiver, verify, waitForDeliveries } from '../support/webhook-receiver.js';

for (const database of testDatabases()) {
  describe(`webhook deliveries across instances [${database.name}]`, function () {
    let dataDir: string;
    let drop: () => Promise<void>;
    let config: Config;
    const running: RunningServer[] = [];

    beforeEach(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-test-'));
      const created = await database.create(dataDir);
      drop = created.drop;
      config = loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        GRPC_PORT: 'off',
        DATA_DIR: dataDir,
        DATABASE_URL: created.url,
        LOG_LEVEL: 'silent',
        TRACE_FOLD_INTERVAL_SECONDS: '0',
        ...FAST_WEBHOOKS,
      });
    });
    afterEach(async () => {
      for (const server of running.splice(0)) await server.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    async function start(env: Partial<Config['webhooks']> = {}): Promise<TestServer> {
      const server = await startServer({ ...config, webhooks: { ...config.webhooks, ...env } }, createLogger('silent'));
      running.push(server);
      return { url: server.url, server, config, database: database.name, grpcAddress: undefined };
    }

    async function stop(app: TestServer): Promise<void> {
      running.splice(running.indexOf(app.server), 1);
      await app.server.close();
    }

    async function endpoint(app: TestServer, url: string): Promise<{ as: Caller; path: string; secret: string; token: string }> {
      const { token } = await dashboardUser(app, 'Owner');
      const as = callerFor(app, token);
      const orgId = await createOrganization(as);
      const created = await as('POST', `/organizations/${orgId}/webhook-endpoints`, { json: { url, event_types: ['webhook.test'] } });
      expectStatus(created, 201);
      return { as, path: `/organizations/${orgId}/webhook-endpoints/${created.body.id}`, secret: created.body.secret, token };
    }

    it('a delivery stored before a stop, mid-backoff, is sent by the next start on the same database', async () => {
      const receiver = await startReceiver();
      try {
        // A longer backoff than the restart takes: the retry is due only after the first process is gone.
        const first = await start({ retryScheduleSeconds: [3] });
        const { path: endpointPath, token, secret } = await endpoint(first, receiver.url);
        receiver.answers.push({ status: 500 });
        const sent = await callerFor(first, token)('POST', `${endpointPath}/test`);
        expectStatus(sent, 202);
        await waitForDeliveries(callerFor(first, token), endpointPath, (deliveries) => deliveries[0]?.attempts.length === 1);
        await stop(first);
        // Deliverer off while stored: nothing is held in memory to carry the event over.
        const offline = await start({ intervalSeconds: 0 });
        expectStatus(await callerFor(offline, token)('POST', `${endpointPath}/test`), 202);
        await stop(offline);
        const second = await start({ retryScheduleSeconds: [3] });
        const deliveries = await waitForDeliveries(
          callerFor(second, token),
          endpointPath,
          (found) => found.length === 2 && found.every((delivery) => delivery.state === 'succeeded'),
        );
        const retried = deliveries.find((delivery) => delivery.event.id === sent.body.id);
        expect(retried?.attempts.map((attempt) => attempt.status_code)).to.deep.equal([500, 200]);
        expect(receiver.processed.size).to.equal(2);
        expect(receiver.requests.every((request) => verify(secret, request.headers, request.body))).to.equal(true);
      } finally {
        await receiver.close();
      }
    });

    it('two instances on one database deliver each event exactly once', async () => {
      const receiver = await startReceiver();
      try {
        // Stored while neither delivers, so that both instances then race for every delivery.
        const a = await start({ intervalSeconds: 0 });
        const { path: endpointPath, token } = await endpoint(a, receiver.url);
        const as = callerFor(a, token);
        const ids: string[] = [];
        for (let i = 0; i < 30; i += 1) {
          const sent = await as('POST', `${endpointPath}/test`);
          expectStatus(sent, 202);
          ids.push(sent.body.id);
        }
        await stop(a);
        const [first, second] = [await start(), await start()];
        await Promise.all([first.server.webhookDeliverer.runOnce(), second.server.webhookDeliverer.runOnce()]);
        const deliveries = await waitForDeliveries(callerFor(first, token), endpointPath, (found) =>
          found.every((delivery) => delivery.state === 'succeeded'),
        );
        expect(deliveries).to.have.length(30);
        expect(deliveries.every((delivery) => delivery.attempts.length === 1)).to.equal(true);
        const received = receiver.requests.map((request) => String(request.headers['webhook-id']));
        expect(received.slice().sort()).to.deep.equal(ids.slice().sort());
      } finally {
        await receiver.close();
      }
    });
  });
}
