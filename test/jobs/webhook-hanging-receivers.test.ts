// Receivers that never answer take up every delivery slot of the instance, and ingestion and
// queries go on: the deliverer runs off the request path, on its own connections and timeout. No
// timing is asserted: while every slot is held (each delivery still `delivering`, its 30 s
// timeout not reached), an export is stored and read back and the management API answers.
import { expect } from 'chai';
import { engineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { callerFor, createOrganization, dashboardUser, expectStatus } from '../support/management.js';
import { onEachDatabase } from '../support/test-server.js';
import { startReceiver, waitForDeliveries, type Receiver } from '../support/webhook-receiver.js';

const CONCURRENCY = 4;

onEachDatabase(
  'webhook receivers that never answer',
  (app) => {
    let receiver: Receiver;
    beforeEach(async () => {
      receiver = await startReceiver('hang');
    });
    afterEach(async () => {
      await receiver.close();
    });

    it('hold every delivery slot while exports are stored and read back and the management API answers', async () => {
      const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
      const orgId = await createOrganization(as);
      const paths: string[] = [];
      for (let index = 0; index < CONCURRENCY + 2; index += 1) {
        const created = await as('POST', `/organizations/${orgId}/webhook-endpoints`, {
          json: { url: receiver.url, event_types: ['budget.threshold_crossed'] },
        });
        expectStatus(created, 201);
        const path = `/organizations/${orgId}/webhook-endpoints/${created.body.id}`;
        expectStatus(await as('POST', `${path}/test`), 202);
        paths.push(path);
      }
      // Every slot taken by a receiver that never answers; the rest wait their turn.
      for (const path of paths.slice(0, CONCURRENCY))
        await waitForDeliveries(as, path, (deliveries) => deliveries[0]?.state === 'delivering');
      expect(receiver.requests).to.have.length(CONCURRENCY);

      const caller = await engineCaller(app());
      const traceId = '5b8efff798038103d269b633813fc60c';
      const exported = await call(app().url, 'POST', '/v1/traces', {
        headers: caller.headers,
        json: {
          resourceSpans: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId,
                      spanId: 'eee19b7ec3c1b174',
                      name: 'work',
                      kind: 1,
                      startTimeUnixNano: '1795355100000000000',
                      endTimeUnixNano: '1795355100001000000',
                    },
                  ],
                },
              ],
            },
          ],
        },
      });
      expect(exported.status, exported.text).to.equal(200);
      const read = await call(app().url, 'GET', `/traces/${traceId}`, { headers: caller.headers });
      expect(read.status, read.text).to.equal(200);
      expectStatus(await as('GET', `/organizations/${orgId}`), 200);

      // The slots were held the whole time: no delivery has ended, no other one has started.
      for (const path of paths.slice(0, CONCURRENCY)) {
        const deliveries = await as('GET', `${path}/deliveries`);
        expect(deliveries.body.data[0].state).to.equal('delivering');
      }
      expect(receiver.requests).to.have.length(CONCURRENCY);
    });
  },
  {
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_TIMEOUT_SECONDS: '30',
    WEBHOOK_DELIVERY_INTERVAL_SECONDS: '1',
    WEBHOOK_DELIVERY_CONCURRENCY: String(CONCURRENCY),
  },
);
