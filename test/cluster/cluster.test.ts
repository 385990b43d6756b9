// The cluster suite (issue 16): three MariaDB Galera nodes, three service instances and nginx on
// this machine (scripts/lib/cluster/), with real OTLP exporters sending through nginx while a
// database node is killed, a service instance is killed, and a node is cut off from its peers;
// the live stream through nginx across a node failure; concurrent management writes through
// different instances. Afterwards every acknowledged span is stored exactly once on every node,
// trace summaries equal a recomputation, usage counts what is stored, and no client got a 500.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { call } from '../support/contract.js';
import { useCluster, type ClusterHarness } from '../support/cluster.js';
import { ExportLoad } from '../support/export-load.js';
import { LiveStreamClient } from '../support/live-stream-client.js';
import { contractCheckingProxy, type CheckingProxy } from '../support/otel.js';
import { expectFoldedFiguresMatchSummaries, expectSummariesMatchSpans } from '../support/summary-check.js';

interface ClusterApplication {
  appId: string;
  ownerToken: string;
  /** Basic credentials of a key holding write:traces and read:traces. */
  ingestHeaders: Record<string, string>;
  /** A bearer token of that key, with X-Vendor-App-Id, for the engine's reads. */
  readHeaders: Record<string, string>;
}

async function newApplication(harness: ClusterHarness, name: string): Promise<ClusterApplication> {
  const url = harness.cluster.url;
  const ownerToken = await harness.userToken(`${name}-owner`);
  const organization = await call(url, 'POST', '/organizations', { token: ownerToken, json: { name } });
  expect(organization.status, organization.text).to.equal(201);
  const application = await call(url, 'POST', '/applications', {
    token: ownerToken,
    json: { organization_id: organization.body.id, name, region: 'EU' },
  });
  expect(application.status, application.text).to.equal(201);
  const appId: string = application.body.id;
  const key = await call(url, 'POST', '/api-keys', {
    token: ownerToken,
    json: { app_id: appId, name: 'load', permissions: ['write:traces', 'read:traces'] },
  });
  expect(key.status, key.text).to.equal(201);
  const token = await call(url, 'POST', '/auth/token', {
    json: { grant_type: 'client_credentials', client_id: key.body.api_key, client_secret: key.body.api_secret },
  });
  expect(token.status, token.text).to.equal(200);
  return {
    appId,
    ownerToken,
    ingestHeaders: { Authorization: `Basic ${Buffer.from(`${key.body.api_key}:${key.body.api_secret}`).toString('base64')}` },
    readHeaders: { Authorization: `Bearer ${token.body.access_token}`, 'X-Vendor-App-Id': appId },
  };
}

async function storedSpanKeys(knex: Knex, appId: string): Promise<string[]> {
  const rows: Array<{ trace_id: string; span_id: string }> = await knex('spans')
    .where({ application_id: appId })
    .select('trace_id', 'span_id');
  return rows.map((row) => `${row.trace_id}/${row.span_id}`);
}

/** The receive sequences of some spans, ascending (for failure messages). */
async function missedSeqs(knex: Knex, appId: string, keys: string[]): Promise<string[]> {
  const wanted = new Set(keys);
  const rows: Array<{ trace_id: string; span_id: string; seq: string | number }> = await knex('spans')
    .where({ application_id: appId })
    .select('trace_id', 'span_id', 'seq');
  return rows
    .filter((row) => wanted.has(`${row.trace_id}/${row.span_id}`))
    .map((row) => BigInt(row.seq))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map(String);
}

/**
 * On every node: each acknowledged span stored once, nothing stored that was not sent, the same
 * spans on all nodes, summaries equal to a recomputation, their folded figures (folded by every
 * instance in the background) equal to them, usage equal to what is stored.
 */
async function expectStoredExactlyOnce(harness: ClusterHarness, load: ExportLoad, appId: string): Promise<void> {
  let first: string[] | undefined;
  for (const index of harness.cluster.nodes.keys()) {
    const knex = harness.database(index);
    const stored = await storedSpanKeys(knex, appId);
    expect(new Set(stored).size, `duplicates on node ${index + 1}`).to.equal(stored.length);
    const storedSet = new Set(stored);
    const missing = [...load.acknowledged].filter((key) => !storedSet.has(key));
    expect(missing, `acknowledged spans missing on node ${index + 1}`).to.deep.equal([]);
    const unsent = stored.filter((key) => !load.acknowledged.has(key) && !load.failed.has(key));
    expect(unsent, `spans never sent, on node ${index + 1}`).to.deep.equal([]);
    if (first) expect([...stored].sort(), `node ${index + 1} differs from node 1`).to.deep.equal(first);
    else first = [...stored].sort();
    await expectSummariesMatchSpans(knex, appId);
    await expectFoldedFiguresMatchSummaries(knex, appId);
    const [{ accepted }] = await knex('usage_hourly').where({ application_id: appId }).sum({ accepted: 'spans_accepted' });
    expect(Number(accepted), `usage on node ${index + 1}`).to.equal(stored.length);
  }
}

/** Neither nginx nor any instance behind it answered 500 to anything since `fromLine` of nginx's log. */
async function expectNo500(harness: ClusterHarness, fromLine: number, proxy?: CheckingProxy): Promise<void> {
  const failing = (await harness.accessLog(fromLine)).filter(
    (line) => / 500 upstream=/.test(line) || /upstream_status=.*\b500\b/.test(line),
  );
  expect(failing).to.deep.equal([]);
  if (proxy) {
    expect(proxy.statuses.filter((status) => status >= 500 && status !== 503)).to.deep.equal([]);
    expect(proxy.violations).to.deep.equal([]);
  }
}

describe('a cluster: three Galera nodes, three instances, nginx', function () {
  this.timeout(300_000);
  const harness = useCluster();
  let logMark = 0;
  beforeEach(async () => {
    logMark = (await harness().accessLog()).length;
  });

  /**
   * Real exporters send through nginx (behind a contract-checking relay) while `disruption` runs,
   * from 60 acknowledged spans on to 60 more after it; then every acknowledged span must be stored
   * exactly once on every node, with exact summaries and usage, and no answer may be a 500.
   */
  async function exportAcross(name: string, disruption: (load: ExportLoad, app: ClusterApplication) => Promise<void>): Promise<void> {
    const app = await newApplication(harness(), name);
    const proxy = await contractCheckingProxy(harness().cluster.url);
    const load = new ExportLoad({ url: proxy.url, headers: app.ingestHeaders });
    try {
      await load.untilAcknowledged(60);
      await disruption(load, app);
      await load.untilAcknowledged(load.acknowledged.size + 60);
    } finally {
      await load.stop();
      await proxy.close();
    }
    expect(load.failures).to.deep.equal([]);
    await expectStoredExactlyOnce(harness(), load, app.appId);
    await expectNo500(harness(), logMark, proxy);
  }

  it('stores every acknowledged span exactly once while a database node is killed (kill -9) and restarted', async () => {
    await exportAcross('node-loss', async (load) => {
      await harness().cluster.killNode(1);
      await load.untilAcknowledged(load.acknowledged.size + 120);
      await harness().cluster.restartNode(1);
    });
  });

  it('stores every acknowledged span exactly once while a service instance is killed and started again', async () => {
    await exportAcross('instance-loss', async (load) => {
      await harness().cluster.instance(2).kill();
      await load.untilAcknowledged(load.acknowledged.size + 120);
      await harness().cluster.instance(2).start();
    });
  });

  it('a node cut off from its peers refuses writes (503) while the other two go on; after it rejoins nothing acknowledged is lost', async () => {
    const cutNode = harness().cluster.node(2);
    const cutInstance = harness().cluster.instance(2);
    await exportAcross('partition', async (load, app) => {
      await harness().cluster.cutOffNode(2);
      try {
        const deadline = Date.now() + 30_000;
        while ((await cutNode.status('wsrep_cluster_status')) === 'Primary' && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await cutNode.status('wsrep_cluster_status')).to.equal('non-Primary');
        // Straight to the cut-off node's instance: its writes are refused as unavailable, not failed.
        const write = await call(cutInstance.url, 'POST', '/organizations', { token: app.ownerToken, json: { name: 'refused' } });
        expect(write.status, write.text).to.equal(503);
        expect(write.headers.get('retry-after')).to.match(/^\d+$/);
        const exported = await call(cutInstance.url, 'POST', '/v1/traces', { headers: app.ingestHeaders, json: { resourceSpans: [] } });
        expect(exported.status, exported.text).to.equal(503);
        // Through nginx, the other two instances go on.
        await load.untilAcknowledged(load.acknowledged.size + 120);
      } finally {
        // Also when a check failed: the suite's other tests need the whole cluster back.
        await harness().cluster.reconnectNode(2);
      }
    });
  });

  it('the live stream through nginx, on each instance, delivers every span sent through any instance once, across a node failure', async () => {
    const app = await newApplication(harness(), 'live');
    const clients = await LiveStreamClient.onEachUpstream(
      `${harness().cluster.url}/traces/live/stream`,
      app.readHeaders,
      harness().cluster.instances.length,
    );
    const load = new ExportLoad({ url: harness().cluster.url, headers: app.ingestHeaders, workers: 2 });
    try {
      await load.untilAcknowledged(60);
      // Each client holds a Last-Event-ID before the failure (one that has seen nothing yet
      // would rightly start afresh after reconnecting: the document's "without Last-Event-ID").
      const before = [...load.acknowledged];
      for (const client of clients) await client.until((seen) => before.every((key) => seen.has(key)), 30_000);
      await harness().cluster.killNode(0);
      await load.untilAcknowledged(load.acknowledged.size + 90);
      await harness().cluster.restartNode(0);
      await load.untilAcknowledged(load.acknowledged.size + 60);
      await load.stop();
      for (const client of clients)
        await client.until((seen) => [...load.acknowledged].every((key) => seen.has(key)), 30_000).catch(() => undefined);
    } finally {
      await load.stop();
      for (const client of clients) await client.close();
    }
    expect(load.failures).to.deep.equal([]);
    for (const client of clients) {
      expect(client.repeated, `${client.firstUpstream}: spans sent twice`).to.deep.equal([]);
      const missed = [...load.acknowledged].filter((key) => !client.seen.has(key));
      const seqs = missed.length === 0 ? [] : await missedSeqs(harness().database(1), app.appId, missed);
      expect(
        missed,
        `${client.firstUpstream}: acknowledged spans not delivered (seqs ${seqs[0]}..${seqs[seqs.length - 1]}; first ids ${client.firstIds.join(', ')}; reconnections: ${client.reconnections.join(', ')})`,
      ).to.deep.equal([]);
    }
    await expectNo500(harness(), logMark);
  });

  it('keeps its invariants under concurrent management writes through different instances (an owner always left, no key of a deleted application)', async () => {
    const [one, two, three] = harness().cluster.instances.map((instance) => instance.url) as [string, string, string];
    for (let round = 0; round < 8; round += 1) {
      // Two owners demote each other at once, through different instances and nodes.
      const alice = await harness().userToken(`alice-${round}`);
      const bob = await harness().userToken(`bob-${round}`);
      const organization = await call(one, 'POST', '/organizations', { token: alice, json: { name: `pair ${round}` } });
      expect(organization.status, organization.text).to.equal(201);
      const orgId: string = organization.body.id;
      expect((await call(two, 'GET', '/organizations', { token: bob })).status).to.equal(200);
      const added = await call(one, 'POST', `/organizations/${orgId}/members`, {
        token: alice,
        json: { email: `bob-${round}@example.com`, role: 'owner' },
      });
      expect(added.status, added.text).to.equal(201);
      const members = await call(one, 'GET', `/organizations/${orgId}/members`, { token: alice });
      const idOf = (email: string) =>
        (members.body.data as Array<{ user_id: string; email: string }>).find((member) => member.email === email)?.user_id as string;
      const [first, second] = await Promise.all([
        call(one, 'PATCH', `/organizations/${orgId}/members/${idOf(`bob-${round}@example.com`)}`, {
          token: alice,
          json: { role: 'member' },
        }),
        call(two, 'PATCH', `/organizations/${orgId}/members/${idOf(`alice-${round}@example.com`)}`, {
          token: bob,
          json: { role: 'member' },
        }),
      ]);
      // One demotion wins; the other is refused (the last owner, or no longer an owner).
      expect([first.status, second.status].sort().join(' '), `${first.text} ${second.text}`).to.be.oneOf(['200 403', '200 409']);
      const owners: Array<{ user_id: string }> = await harness()
        .database(2)('memberships')
        .where({ organization_id: orgId, role: 'owner' })
        .whereNull('deleted_at')
        .select('user_id');
      expect(owners.length, `owners of ${orgId} after round ${round}`).to.be.at.least(1);
      const creator = owners.some((owner) => owner.user_id === idOf(`alice-${round}@example.com`)) ? alice : bob;

      // Keys made for an application while it is deleted, through the other instances.
      const application = await call(one, 'POST', '/applications', {
        token: creator,
        json: { organization_id: orgId, name: `doomed ${round}`, region: 'EU' },
      });
      expect(application.status, application.text).to.equal(201);
      const appId: string = application.body.id;
      const answers = await Promise.all([
        call(two, 'POST', '/api-keys', { token: creator, json: { app_id: appId, name: 'racer', permissions: ['read:traces'] } }),
        call(three, 'POST', '/api-keys', { token: creator, json: { app_id: appId, name: 'racer', permissions: ['read:traces'] } }),
        call(one, 'DELETE', `/applications/${appId}`, { token: creator }),
        call(two, 'POST', '/api-keys', { token: creator, json: { app_id: appId, name: 'racer', permissions: ['read:traces'] } }),
      ]);
      for (const answer of answers) expect(answer.status, answer.text).to.be.oneOf([200, 201, 403, 404, 503]);
      for (const index of harness().cluster.nodes.keys()) {
        const orphans = await harness()
          .database(index)('api_keys as k')
          .join('applications as a', 'a.id', 'k.application_id')
          .where('k.application_id', appId)
          .whereNull('k.deleted_at')
          .whereNotNull('a.deleted_at')
          .count({ count: '*' });
        expect(Number(orphans[0]?.count), `live keys of deleted application ${appId} on node ${index + 1}`).to.equal(0);
      }
    }
    await expectNo500(harness(), logMark);
  });
});
