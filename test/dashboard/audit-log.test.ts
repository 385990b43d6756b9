// The organization view's audit log in a real Chromium against the real service, on each
// database: an owner sees the organization's changes newest first, with who and what changed,
// reads older ones with "Load more" until none is left, narrows them to one kind of resource,
// and a member of the same organization is not shown the log at all. The view passes axe.
import { expect } from 'chai';
import { insertAuditEvent } from '../../src/storage/audit/audit-events.js';
import { seedOrganization, seedUser } from '../support/accounts.js';
import { call } from '../support/contract.js';
import { accessibilityViolations, openPage, screenshot, useBrowser } from '../support/dashboard.js';
import { expectNoPageFailures, signIn } from '../support/dashboard-pages.js';
import { expectStatus } from '../support/management.js';
import { onEachDatabase } from '../support/test-server.js';

const OLDER_EVENTS = 23;

onEachDatabase('dashboard audit log', (app) => {
  const browser = useBrowser();

  it("shows an owner the organization's changes newest first, page by page and by resource, and a member nothing", async function () {
    this.timeout(120_000);
    const owner = await seedUser(app(), 'Olga');
    const member = await seedUser(app(), 'Mark');
    const orgId = await seedOrganization(app().server.knex, [
      [owner.userId, 'owner'],
      [member.userId, 'member'],
    ]);
    // Older events first (a day ago, one a minute), then three changes through the API: the newest.
    const dayAgo = Date.now() - 86_400_000;
    for (let index = 0; index < OLDER_EVENTS; index += 1) {
      await insertAuditEvent(app().server.knex, {
        occurredAt: dayAgo + index * 60_000,
        organizationId: orgId,
        actorType: 'user',
        actorId: owner.userId,
        operationId: 'updateOrganization',
        resourceType: 'organization',
        resourceId: orgId,
        requestId: `old-${index}`,
        callerAddress: '127.0.0.1',
        outcome: 'success',
        before: { tax_id: `T${index}` },
        after: { tax_id: `T${index + 1}` },
      });
    }
    expectStatus(await call(app().url, 'PATCH', `/organizations/${orgId}`, { token: owner.token, json: { name: 'Audited Org' } }), 200);
    expectStatus(
      await call(app().url, 'POST', '/applications', {
        token: owner.token,
        json: { organization_id: orgId, name: 'Audited app', region: 'EU' },
      }),
      201,
    );

    const watch = await openPage(browser());
    const memberWatch = await openPage(browser());
    try {
      const { page } = watch;
      await signIn(watch, app(), { subject: owner.subject, email: `${owner.subject}@example.com`, name: 'Olga' });
      await page.goto(`${app().url}/ui/organizations/${orgId}`);
      await page.getByRole('heading', { level: 2, name: 'Audit log' }).waitFor();
      const table = page.getByTestId('audit-log');
      await table.waitFor();
      const rows = table.getByRole('row');
      // Header plus the first page of 20.
      expect(await rows.count()).to.equal(21);
      const newest = await rows.nth(1).innerText();
      expect(newest).to.include('createApplication').and.include('application').and.include('you').and.include('name: Audited app');
      expect(await rows.nth(2).innerText())
        .to.include('updateOrganization')
        .and.include('→ Audited Org');
      expect(await accessibilityViolations(page), 'organization view with the audit log').to.deep.equal([]);
      await screenshot(page, `audit-log-${app().database}`);

      await page.getByRole('button', { name: 'Load more' }).click();
      await expectRows(() => rows.count(), 1 + OLDER_EVENTS + 2);
      expect(await page.getByRole('button', { name: 'Load more' }).count(), 'nothing left to load').to.equal(0);
      // The oldest is last.
      expect(await rows.last().innerText()).to.include('tax_id: T0 → T1');

      await page.getByRole('form', { name: 'Filter the audit log' }).getByLabel('Show').selectOption('application');
      await expectRows(() => rows.count(), 2);
      expect(await rows.nth(1).innerText()).to.include('createApplication');
      await expectNoPageFailures(watch);

      // A member sees the organization, not its audit log (the service would answer 403).
      await signIn(memberWatch, app(), { subject: member.subject, email: `${member.subject}@example.com`, name: 'Mark' });
      await memberWatch.page.goto(`${app().url}/ui/organizations/${orgId}`);
      await memberWatch.page.getByRole('heading', { level: 2, name: 'Members' }).waitFor();
      expect(await memberWatch.page.getByRole('heading', { name: 'Audit log' }).count()).to.equal(0);
      expect(await memberWatch.page.getByTestId('audit-log').count()).to.equal(0);
      await expectNoPageFailures(memberWatch);
    } finally {
      await watch.context.close();
      await memberWatch.context.close();
    }
  });
});

/** Waits until the table has `count` rows (the test's timeout bounds it). */
async function expectRows(rows: () => Promise<number>, count: number): Promise<void> {
  while ((await rows()) !== count) await new Promise((resolve) => setTimeout(resolve, 100));
}
