// Webhook deliveries end to end on every database: a real receiver on 127.0.0.1 (allowed through
// WEBHOOK_ALLOWED_HOSTS) gets signed events it verifies with the documented recipe; 500s, a
// receiver that never answers and a closed connection are retried on the schedule, under the same
// event id; refused destinations (a name resolving to loopback or to a private address) and
// redirects are failed attempts that reach nothing; a rotated secret signs beside the new one;
// emitEvent fans an event out to the subscribed, enabled endpoints. (Receivers that hold every
// delivery slot while requests go on: webhook-hanging-receivers.test.ts.)
import { expect } from 'chai';
import { emitEvent } from '../../src/storage/webhooks/webhook-deliveries.js';
import { writeTransaction } from '../../src/storage/transactions.js';
import { callerFor, createOrganization, dashboardUser, expectStatus, type Caller } from '../support/management.js';
import { onEachDatabase } from '../support/test-server.js';
import { FAST_WEBHOOKS, startReceiver, verify, waitForDeliveries, type Delivery, type Receiver } from '../support/webhook-receiver.js';

const finished = (deliveries: Delivery[], count = 1) =>
  deliveries.length === count && deliveries.every((delivery) => ['succeeded', 'failed'].includes(delivery.state));

/** Resolves one made-up name to a private address, and every other name (localhost among them) to loopback. */
const resolver = async (hostname: string) =>
  hostname === 'internal.example.test' ? [{ address: '10.0.0.5', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];

onEachDatabase(
  'webhook deliveries',
  (app) => {
    let receiver: Receiver;
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await receiver.close();
    });

    async function endpoint(
      url = receiver.url,
      extra: Record<string, unknown> = {},
    ): Promise<{ as: Caller; orgId: string; path: string; secret: string }> {
      const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
      const orgId = await createOrganization(as);
      const created = await as('POST', `/organizations/${orgId}/webhook-endpoints`, {
        json: { url, event_types: ['budget.threshold_crossed'], ...extra },
      });
      expectStatus(created, 201);
      return { as, orgId, path: `/organizations/${orgId}/webhook-endpoints/${created.body.id}`, secret: created.body.secret };
    }

    async function sendTest(as: Caller, path: string): Promise<string> {
      const sent = await as('POST', `${path}/test`);
      expectStatus(sent, 202);
      return sent.body.id;
    }

    it('delivers a test event signed, verified by the documented recipe, with the event id as webhook-id', async () => {
      const { as, orgId, path, secret } = await endpoint();
      const eventId = await sendTest(as, path);
      const [delivery] = await waitForDeliveries(as, path, (deliveries) => finished(deliveries));
      expect(delivery.state).to.equal('succeeded');
      expect(delivery.attempts).to.have.length(1);
      expect(delivery.attempts[0]).to.include({ status_code: 200, error: null });
      expect(delivery.next_attempt_at).to.equal(null);
      expect(receiver.requests).to.have.length(1);
      const [request] = receiver.requests;
      expect(request.headers['webhook-id']).to.equal(eventId);
      expect(request.headers['content-type']).to.equal('application/json');
      expect(verify(secret, request.headers, request.body)).to.equal(true);
      expect(verify(secret, request.headers, request.body + ' ')).to.equal(false);
      expect(JSON.parse(request.body)).to.deep.equal(delivery.event);
      expect(JSON.parse(request.body)).to.deep.include({ id: eventId, type: 'webhook.test', organization_id: orgId });
    });

    it('retries after 500s with the same id and body, and the receiver processes the event once', async () => {
      const { as, path, secret } = await endpoint();
      receiver.answers.push({ status: 500 }, { status: 500 });
      const eventId = await sendTest(as, path);
      const [delivery] = await waitForDeliveries(as, path, (deliveries) => finished(deliveries));
      expect(delivery.state).to.equal('succeeded');
      expect(delivery.attempts.map((attempt) => attempt.status_code)).to.deep.equal([500, 500, 200]);
      expect(delivery.attempts[0].error).to.match(/answered 500/);
      // About a second apart (the schedule's 1 s, ±20 %).
      const gap = Date.parse(delivery.attempts[1].at) - Date.parse(delivery.attempts[0].at);
      expect(gap).to.be.within(700, 4000);
      expect(receiver.requests.map((request) => request.headers['webhook-id'])).to.deep.equal([eventId, eventId, eventId]);
      expect(new Set(receiver.requests.map((request) => request.body)).size).to.equal(1);
      expect(receiver.requests.every((request) => verify(secret, request.headers, request.body))).to.equal(true);
      expect([...receiver.processed]).to.deep.equal([eventId]);
    });

    it('retries after a receiver that never answers and after a closed connection', async () => {
      const { as, path } = await endpoint();
      receiver.answers.push('hang', 'close');
      await sendTest(as, path);
      const [delivery] = await waitForDeliveries(as, path, (deliveries) => finished(deliveries));
      expect(delivery.state).to.equal('succeeded');
      expect(delivery.attempts.map((attempt) => attempt.status_code)).to.deep.equal([null, null, 200]);
      expect(delivery.attempts[0].error).to.match(/no answer within 1 s/);
      expect(delivery.attempts[0].duration_ms).to.be.within(900, 3000);
      expect(delivery.attempts[1].error).to.match(/connection failed/);
    });

    it('fails a delivery once the schedule is used up', async () => {
      const { as, path } = await endpoint();
      receiver.fallback = { status: 503 };
      await sendTest(as, path);
      const [delivery] = await waitForDeliveries(as, path, (deliveries) => finished(deliveries), 20_000);
      expect(delivery.state).to.equal('failed');
      expect(delivery.attempts.map((attempt) => attempt.status_code)).to.deep.equal([503, 503, 503, 503]);
      expect(delivery.next_attempt_at).to.equal(null);
    });

    it('does not follow a redirect, to loopback or anywhere', async () => {
      const target = await startReceiver();
      try {
        const { as, path } = await endpoint();
        receiver.fallback = { status: 302, location: target.url };
        await sendTest(as, path);
        const [delivery] = await waitForDeliveries(as, path, (deliveries) => deliveries[0]?.attempts.length >= 1);
        expect(delivery.attempts[0].status_code).to.equal(302);
        expect(delivery.attempts[0].error).to.match(/redirect \(302\) not followed/);
        expect(target.requests).to.deep.equal([]);
      } finally {
        await target.close();
      }
    });

    it('refuses at delivery a name that resolves to loopback or to a private address, and reaches nothing', async () => {
      // localhost is not on the allow list (127.0.0.1 is): the name is resolved, and refused.
      const { as, path } = await endpoint(`https://localhost:${receiver.port}/hook`);
      await sendTest(as, path);
      const [delivery] = await waitForDeliveries(as, path, (deliveries) => deliveries[0]?.attempts.length >= 1);
      expect(delivery.attempts[0]).to.include({ status_code: null });
      expect(delivery.attempts[0].error).to.match(/localhost resolves to .*loopback address/);
      const internal = await endpoint('https://internal.example.test/hook');
      await sendTest(internal.as, internal.path);
      const [refused] = await waitForDeliveries(internal.as, internal.path, (deliveries) => deliveries[0]?.attempts.length >= 1);
      expect(refused.attempts[0].error).to.match(/resolves to 10\.0\.0\.5, a private address/);
      expect(receiver.requests).to.deep.equal([]);
    });

    it('signs with the new and the previous secret after a rotation', async () => {
      const { as, path, secret: previous } = await endpoint();
      const rotated = await as('POST', `${path}/rotate-secret`);
      expectStatus(rotated, 200);
      const current = rotated.body.secret as string;
      expect(current).to.not.equal(previous);
      expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).to.be.within(23 * 3600_000, 24 * 3600_000 + 1000);
      await sendTest(as, path);
      await waitForDeliveries(as, path, (deliveries) => finished(deliveries));
      const [request] = receiver.requests;
      expect(String(request.headers['webhook-signature']).split(' ')).to.have.length(2);
      expect(verify(current, request.headers, request.body)).to.equal(true);
      expect(verify(previous, request.headers, request.body)).to.equal(true);
    });

    it('emitEvent writes one delivery per enabled endpoint subscribed to the type, in the caller transaction', async () => {
      const { as, orgId, path } = await endpoint();
      const disabled = await as('POST', `/organizations/${orgId}/webhook-endpoints`, {
        json: { url: receiver.url, event_types: ['budget.threshold_crossed'], enabled: false },
      });
      const testsOnly = await as('POST', `/organizations/${orgId}/webhook-endpoints`, {
        json: { url: receiver.url, event_types: ['webhook.test'] },
      });
      const data = {
        budget_id: 'bud_1',
        application_id: null,
        period: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' },
        amount: 100,
        currency: 'USD',
        threshold_percent: 80,
        spend: 80.5,
        crossed_at: '2026-11-20T00:00:00.000Z',
      };
      // A rolled-back caller leaves no event behind.
      await writeTransaction(app().server.knex, async (trx) => {
        await emitEvent(trx, { organizationId: orgId, type: 'budget.threshold_crossed', data });
        throw new Error('rolled back');
      }).catch(() => undefined);
      const emitted = await writeTransaction(app().server.knex, (trx) =>
        emitEvent(trx, { organizationId: orgId, type: 'budget.threshold_crossed', data }),
      );
      expect(emitted.deliveryIds).to.have.length(1);
      const [delivery] = await waitForDeliveries(as, path, (deliveries) => finished(deliveries));
      expect(delivery.event).to.deep.include({ id: emitted.envelope.id, type: 'budget.threshold_crossed', data });
      for (const other of [disabled, testsOnly]) {
        const listed = await as('GET', `/organizations/${orgId}/webhook-endpoints/${other.body.id}/deliveries`);
        expect(listed.body.data).to.deep.equal([]);
      }
      expect(receiver.requests.map((request) => request.headers['webhook-id'])).to.deep.equal([emitted.envelope.id]);
    });

    it('ends the pending deliveries of a deleted endpoint without another attempt', async () => {
      const { as, orgId, path } = await endpoint();
      receiver.fallback = { status: 500 };
      await sendTest(as, path);
      await waitForDeliveries(as, path, (deliveries) => deliveries[0]?.attempts.length >= 1);
      expectStatus(await as('DELETE', path), 204);
      const before = receiver.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(receiver.requests.length - before).to.be.at.most(1);
      const [row] = await app()
        .server.knex('webhook_deliveries')
        .where({ endpoint_id: path.split('/').pop() });
      expect(row.state).to.equal('failed');
      expect(orgId).to.be.a('string');
    });
  },
  FAST_WEBHOOKS,
  { webhookResolver: resolver },
);
