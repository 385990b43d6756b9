// retention_days through the management API: the configured default when absent (shown as its
// value), an explicit value at creation, PATCH changing only what it sends, and the bounds (422).
import { expect } from 'chai';
import { onEachDatabase } from '../support/test-server.js';
import {
  callerFor,
  createApiKey,
  createOrganization,
  dashboardUser,
  expectStatus,
  keyToken,
  ownerWithApplication,
} from '../support/management.js';

function retentionSuite(defaultDays: number, env: Record<string, string>): void {
  onEachDatabase(
    `application retention (default ${defaultDays} days)`,
    (app) => {
      it('shows the configured default when none was given, and the value given at creation', async () => {
        const as = callerFor(app(), (await dashboardUser(app())).token);
        const orgId = await createOrganization(as);
        const plain = await as('POST', '/applications', { json: { organization_id: orgId, name: 'Plain', region: 'US' } });
        expectStatus(plain, 201);
        expect(plain.body.retention_days).to.equal(defaultDays);
        const kept = await as('POST', '/applications', {
          json: { organization_id: orgId, name: 'Kept', region: 'EU', retention_days: 400 },
        });
        expectStatus(kept, 201);
        expect(kept.body).to.include({ name: 'Kept', retention_days: 400 });
        expect((await as('GET', `/applications/${plain.body.id}`)).body.retention_days).to.equal(defaultDays);
        expect((await as('GET', `/applications/${kept.body.id}`)).body).to.deep.equal(kept.body);
        const listed = await as('GET', '/applications', { query: { organization_id: orgId } });
        expect(listed.body.data.map((application: { retention_days: number }) => application.retention_days)).to.deep.equal([
          defaultDays,
          400,
        ]);
      });

      it('changes only the fields a PATCH sends; a rename answers as before', async () => {
        const { as, appId } = await ownerWithApplication(app());
        const changed = await as('PATCH', `/applications/${appId}`, { json: { retention_days: 7 } });
        expectStatus(changed, 200);
        expect(changed.body).to.have.all.keys('id', 'name', 'retention_days', 'updated_at');
        expect(changed.body).to.include({ id: appId, name: 'Checkout', retention_days: 7 });
        const renamed = await as('PATCH', `/applications/${appId}`, { json: { name: 'Checkout (prod)' } });
        expect(renamed.body).to.have.all.keys('id', 'name', 'updated_at');
        const read = await as('GET', `/applications/${appId}`);
        expect(read.body).to.include({ name: 'Checkout (prod)', retention_days: 7, region: 'EU', pricing_plan: 'free' });
        const both = await as('PATCH', `/applications/${appId}`, { json: { name: 'Both', retention_days: 3650 } });
        expect(both.body).to.include({ name: 'Both', retention_days: 3650 });
        expect((await as('GET', `/applications/${appId}`)).body).to.include({ name: 'Both', retention_days: 3650 });
        // An API key holding update:applications may change it too.
        const key = await createApiKey(as, appId, ['update:applications']);
        const asKey = callerFor(app(), await keyToken(app(), key.apiKey, key.secret));
        expectStatus(await asKey('PATCH', `/applications/${appId}`, { json: { retention_days: 1 } }), 200);
        expect((await as('GET', `/applications/${appId}`)).body.retention_days).to.equal(1);
      });

      const OUT_OF_BOUNDS: Array<[string, unknown, string]> = [
        ['zero', 0, 'greater_than_equal'],
        ['negative', -1, 'greater_than_equal'],
        ['above 3650', 3651, 'less_than_equal'],
        ['a fraction', 7.5, 'int_parsing'],
        ['a string', '30', 'int_parsing'],
        ['null', null, 'int_parsing'],
      ];
      for (const [what, value, type] of OUT_OF_BOUNDS) {
        it(`refuses retention_days ${what} at creation and in a PATCH (422)`, async () => {
          const { as, orgId, appId } = await ownerWithApplication(app());
          const created = await as('POST', '/applications', {
            json: { organization_id: orgId, name: 'Bad', region: 'EU', retention_days: value },
          });
          expectStatus(created, 422);
          expect(created.body.detail.map((issue: { loc: unknown[]; type: string }) => [issue.loc, issue.type])).to.deep.equal([
            [['body', 'retention_days'], type],
          ]);
          const patched = await as('PATCH', `/applications/${appId}`, { json: { retention_days: value } });
          expectStatus(patched, 422);
          expect(patched.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).to.deep.equal([['body', 'retention_days']]);
          expect((await as('GET', `/applications/${appId}`)).body.retention_days).to.equal(defaultDays);
        });
      }

      it('refuses an empty PATCH (422)', async () => {
        const { as, appId } = await ownerWithApplication(app());
        expectStatus(await as('PATCH', `/applications/${appId}`, { json: {} }), 422);
      });
    },
    env,
  );
}

retentionSuite(30, {});
retentionSuite(90, { RETENTION_DEFAULT_DAYS: '90' });
