// Webhook endpoints through HTTP on every database: create (the secret answered once), list, get,
// update, rotate and delete; the 422s of a URL no webhook may go to (not https, credentials,
// loopback, private and link-local literal addresses, IPv4-mapped forms); who may read and change
// them (members read, owners change, API keys by their permissions, another organization 404);
// and the audit events of every change, never with a secret.
import { expect } from 'chai';
import { onEachDatabase } from '../support/test-server.js';
import {
  callerFor,
  createApiKey,
  createApplication,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  type Caller,
} from '../support/management.js';

const HOOK = { url: 'https://hooks.example.com/spanledger', event_types: ['budget.threshold_crossed'] };

onEachDatabase(
  'webhook endpoints',
  (app) => {
    async function owner(): Promise<{ as: Caller; orgId: string; path: string }> {
      const as = callerFor(app(), (await dashboardUser(app(), 'Owner')).token);
      const orgId = await createOrganization(as);
      return { as, orgId, path: `/organizations/${orgId}/webhook-endpoints` };
    }

    it('creates an endpoint with its secret shown once, gets, lists, changes, rotates and deletes it', async () => {
      const { as, orgId, path } = await owner();
      const created = await as('POST', path, {
        json: { ...HOOK, description: 'finance', event_types: ['budget.threshold_crossed', 'budget.threshold_crossed'] },
      });
      expectStatus(created, 201);
      expect(created.body.id).to.match(/^whe_[A-Za-z0-9]{20}$/);
      expect(created.body.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(created.body).to.deep.include({
        organization_id: orgId,
        url: HOOK.url,
        description: 'finance',
        event_types: ['budget.threshold_crossed'],
        enabled: true,
        previous_secret_expires_at: null,
      });
      const { secret, ...shown } = created.body;
      const endpointPath = `${path}/${created.body.id}`;
      const got = await as('GET', endpointPath);
      expect(got.body).to.deep.equal(shown);
      expect(got.text).to.not.include(secret);
      const listed = await as('GET', path);
      expect(listed.body).to.deep.include({ data: [shown], next_cursor: null });

      const changed = await as('PATCH', endpointPath, { json: { enabled: false, description: null, event_types: ['webhook.test'] } });
      expectStatus(changed, 200);
      expect(changed.body).to.deep.include({ enabled: false, description: null, event_types: ['webhook.test'], url: HOOK.url });
      expectStatus(await as('PATCH', endpointPath, { json: {} }), 422);

      const rotated = await as('POST', `${endpointPath}/rotate-secret`);
      expectStatus(rotated, 200);
      expect(rotated.body.secret)
        .to.match(/^whsec_/)
        .and.not.equal(secret);
      expect(rotated.body.previous_secret_expires_at).to.be.a('string');
      expect((await as('GET', endpointPath)).body.previous_secret_expires_at).to.equal(rotated.body.previous_secret_expires_at);

      const events = await as('GET', `/organizations/${orgId}/audit-events`, { query: { resource_type: 'webhook_endpoint' } });
      expectStatus(events, 200);
      expect(events.body.data.map((event: { operation_id: string }) => event.operation_id)).to.deep.equal([
        'rotateWebhookEndpointSecret',
        'updateWebhookEndpoint',
        'createWebhookEndpoint',
      ]);
      expect(events.text).to.not.include(secret).and.not.include(rotated.body.secret);

      expectStatus(await as('DELETE', endpointPath), 204);
      for (const [method, suffix] of [
        ['GET', ''],
        ['PATCH', ''],
        ['DELETE', ''],
        ['POST', '/rotate-secret'],
        ['POST', '/test'],
        ['GET', '/deliveries'],
      ] as const) {
        expectStatus(await as(method, `${endpointPath}${suffix}`, method === 'PATCH' ? { json: { enabled: true } } : {}), 404);
      }
      expect((await as('GET', path)).body.data).to.deep.equal([]);
    });

    describe('refuses a URL no webhook may go to with a 422 at ["body", "url"]', () => {
      const CASES: Array<[string, RegExp]> = [
        ['http://hooks.example.com/x', /https/],
        ['https://user:secret@hooks.example.com/', /credentials/],
        ['https://127.0.0.2/', /loopback/],
        ['https://[::1]/', /loopback/],
        ['https://[::ffff:127.0.0.1]/', /loopback/],
        // 127.0.0.2 as one number (127.0.0.1 is allowed in this suite).
        ['https://2130706434/', /loopback/],
        ['https://10.1.2.3/', /private/],
        ['https://172.16.5.4/', /private/],
        ['https://192.168.1.1/', /private/],
        ['https://169.254.169.254/latest/meta-data/', /link-local/],
        ['https://[fe80::1]/', /link-local/],
        ['https://[fd00::1]/', /private/],
        ['https://100.64.0.1/', /CGNAT/],
        ['https://0.0.0.0/', /unspecified/],
        ['mailto:ops@example.com', /https/],
        ['/relative', /absolute/],
      ];
      for (const [url, message] of CASES) {
        it(url, async () => {
          const { as, path } = await owner();
          const response = await as('POST', path, { json: { ...HOOK, url } });
          expectStatus(response, 422);
          const issue = response.body.detail.find((entry: { loc: unknown[] }) => JSON.stringify(entry.loc) === '["body","url"]');
          expect(issue?.msg, response.text).to.match(message);
          expect((await as('GET', path)).body.data).to.deep.equal([]);
        });
      }

      it('on update too, and an unknown event type, no event types and an unknown field', async () => {
        const { as, path } = await owner();
        const created = await as('POST', path, { json: HOOK });
        const changed = await as('PATCH', `${path}/${created.body.id}`, { json: { url: 'https://10.0.0.1/' } });
        expectStatus(changed, 422);
        expect(changed.body.detail[0].loc).to.deep.equal(['body', 'url']);
        expect((await as('GET', `${path}/${created.body.id}`)).body.url).to.equal(HOOK.url);
        for (const [json, loc] of [
          [{ ...HOOK, event_types: ['budget.exceeded'] }, ['body', 'event_types', 0]],
          [{ ...HOOK, event_types: [] }, ['body', 'event_types']],
          [{ ...HOOK, secret: 'whsec_mine' }, ['body', 'secret']],
        ] as const) {
          const refused = await as('POST', path, { json });
          expectStatus(refused, 422);
          expect(refused.body.detail.map((entry: { loc: unknown[] }) => entry.loc)).to.deep.include(loc);
        }
      });

      it('accepts http:// for a host the operator allows', async () => {
        const { as, path } = await owner();
        expectStatus(await as('POST', path, { json: { ...HOOK, url: 'http://127.0.0.1:9/hook' } }), 201);
      });
    });

    it('lets members read and not change, API keys by their permissions, and nobody reach another organization', async () => {
      const { as, orgId, path } = await owner();
      const created = await as('POST', path, { json: HOOK });
      const endpointPath = `${path}/${created.body.id}`;
      const memberUser = await dashboardUser(app(), 'Member');
      expectStatus(await as('POST', `/organizations/${orgId}/members`, { json: { email: memberUser.email } }), 201);
      const member = callerFor(app(), memberUser.token);
      expectStatus(await member('GET', path), 200);
      expectStatus(await member('GET', endpointPath), 200);
      expectStatus(await member('GET', `${endpointPath}/deliveries`), 200);
      expectStatus(await member('POST', path, { json: HOOK }), 403);
      expectStatus(await member('PATCH', endpointPath, { json: { enabled: false } }), 403);
      expectStatus(await member('POST', `${endpointPath}/rotate-secret`), 403);
      expectStatus(await member('POST', `${endpointPath}/test`), 403);
      expectStatus(await member('DELETE', endpointPath), 403);

      const appId = await createApplication(as, orgId);
      const reader = await createApiKey(as, appId, ['read:organizations']);
      const asReader = callerFor(app(), await keyToken(app(), reader.apiKey, reader.secret));
      expectStatus(await asReader('GET', endpointPath), 200);
      expectStatus(await asReader('POST', path, { json: HOOK }), 403);
      const writer = await createApiKey(as, appId, ['update:organizations']);
      const asWriter = callerFor(app(), await keyToken(app(), writer.apiKey, writer.secret));
      expectStatus(await asWriter('POST', `${endpointPath}/test`), 202);

      const stranger = await owner();
      for (const caller of [stranger.as, member]) {
        expectStatus(await caller('GET', `${stranger.path}/${created.body.id}`), 404);
      }
      expectStatus(await stranger.as('GET', endpointPath), 404);
      expectStatus(await stranger.as('POST', `${endpointPath}/rotate-secret`), 404);
      expectStatus(await stranger.as('GET', `${endpointPath}/deliveries`), 404);
    });
  },
  { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_DELIVERY_INTERVAL_SECONDS: '0' },
);
