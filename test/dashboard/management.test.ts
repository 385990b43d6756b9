// The management views in a real Chromium against the real service, on each database: an owner
// creates an organization, an application and a key; the key's secret is shown once with exporter
// settings that a real OpenTelemetry exporter uses as they are; rotating and deleting the key in
// the page stop that exporter. A member added by e-mail sees no owner-only action and can do what
// members may. API failures show the service's own message. Every view passes axe.
import { SpanKind } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect } from 'chai';
import { accessibilityViolations, openPage, screenshot, useBrowser } from '../support/dashboard.js';
import {
  createApplication,
  createKey,
  createOrganization,
  expectNoPageFailures,
  exporterFromPage,
  openApplication,
  signIn,
} from '../support/dashboard-pages.js';
import { expectExported, exportSpans, recordSpans } from '../support/otel.js';
import { onEachDatabase, type TestServer } from '../support/test-server.js';

let spanCounter = 0;

/** One fresh span, so that each export stores something new. */
async function oneSpan() {
  spanCounter += 1;
  const name = `ui export ${spanCounter}`;
  const spans = await recordSpans({ 'service.name': 'dashboard-key' }, (tracer) =>
    tracer.startSpan(name, { kind: SpanKind.INTERNAL }).end(),
  );
  return { name, spans };
}

async function storedNames(app: TestServer, appId: string): Promise<string[]> {
  const rows = await app.server.knex('spans').where({ application_id: appId }).select('span_name');
  return rows.map((row: { span_name: string }) => row.span_name).sort();
}

/** The role of the person with this e-mail in their (test's only) organization, or undefined once removed. */
async function membershipRole(app: TestServer, email: string): Promise<string | undefined> {
  const row = await app.server
    .knex('memberships')
    .join('users', 'users.id', 'memberships.user_id')
    .where('users.email', email)
    .whereNull('memberships.deleted_at')
    .first('memberships.role');
  return row?.role;
}

/** Waits, without a deadline of its own, until `check` holds (the test's timeout bounds it). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 100));
}

function expectRefused(result: ExportResult, status: number): void {
  expect(result.code, 'the exporter was refused').to.equal(ExportResultCode.FAILED);
  expect((result.error as Error & { code?: number }).code).to.equal(status);
}

onEachDatabase('dashboard management views', (app) => {
  const browser = useBrowser();

  it('lets an owner create an organization, application and key whose secret, shown once, configures a working exporter until rotated or deleted', async function () {
    this.timeout(120_000);
    const watch = await openPage(browser());
    const { page, context } = watch;
    const exporters: ProtoTraceExporter[] = [];
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app().url });
      await signIn(watch, app(), {
        subject: `ui-owner-${app().database}`,
        email: `owner-${app().database}@example.com`,
        name: 'Olivia Owner',
      });
      await page.getByRole('heading', { level: 1, name: 'Organizations' }).waitFor();
      expect(await accessibilityViolations(page), 'organizations view, empty').to.deep.equal([]);

      const orgId = await createOrganization(page, 'Acme Observability');
      // The owner's controls are there (the member test asserts they are absent for a member).
      await page.getByRole('button', { name: 'Delete organization' }).waitFor();
      await page.getByRole('form', { name: 'Add a member' }).waitFor();
      await page.getByRole('form', { name: 'Organization details' }).waitFor();
      await createApplication(page, 'Checkout service');
      const row = page.getByTestId('applications').getByRole('row').filter({ hasText: 'Checkout service' });
      expect(await row.innerText())
        .to.include('EU')
        .and.include('pro');
      expect(await row.getByRole('link', { name: 'Traces of Checkout service' }).getAttribute('href')).to.match(
        /^\/ui\/traces\?app=app_\w+$/,
      );
      await screenshot(page, `management-organization-owner-${app().database}`);
      expect(await accessibilityViolations(page), 'organization view (owner)').to.deep.equal([]);

      const appId = await openApplication(page, 'Checkout service');
      expect(await page.getByRole('link', { name: 'Live of Checkout service' }).getAttribute('href')).to.equal(`/ui/live?app=${appId}`);
      const first = await createKey(page, 'CI exporter', ['read:traces']);
      expect(first.apiKey).to.match(/^ak_/);
      expect(first.secret).to.match(/^as_/);
      expect(await page.getByTestId('api-keys').getByRole('row').filter({ hasText: first.apiKey }).innerText())
        .to.include('write:traces')
        .and.include('read:traces');

      // The copy button puts the secret on the clipboard.
      await page.getByRole('button', { name: 'Copy secret' }).click();
      await page.getByRole('status').filter({ hasText: 'Secret copied' }).waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(first.secret);

      // A real exporter configured by exactly the environment shown exports.
      const shown = await exporterFromPage(page);
      exporters.push(shown.exporter);
      expect(shown.env.OTEL_EXPORTER_OTLP_ENDPOINT).to.equal(app().url);
      expect(shown.env.OTEL_EXPORTER_OTLP_PROTOCOL).to.equal('http/protobuf');
      expect(shown.env.OTEL_EXPORTER_OTLP_HEADERS).to.equal(
        `Authorization=${encodeURIComponent(`Basic ${Buffer.from(`${first.apiKey}:${first.secret}`).toString('base64')}`)}`,
      );
      const sent = await oneSpan();
      expectExported(await exportSpans(shown.exporter, sent.spans));
      expect(await storedNames(app(), appId)).to.deep.equal([sent.name]);
      await screenshot(page, `management-application-new-key-${app().database}`);
      expect(await accessibilityViolations(page), 'application view with the secret panel').to.deep.equal([]);

      // Reloaded, the secret is nowhere: not in the page, not in storage.
      await page.reload();
      await page.getByTestId('api-keys').getByRole('row').filter({ hasText: first.apiKey }).waitFor();
      expect(await page.getByTestId('key-secret-panel').count()).to.equal(0);
      expect(await page.content()).not.to.include(first.secret);
      expect(await page.evaluate('JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage })')).not.to.include(
        first.secret,
      );
      await screenshot(page, `management-application-${app().database}`);
      expect(await accessibilityViolations(page), 'application view').to.deep.equal([]);

      // Rotate in the page: the old secret is refused, the new one shown (once) works.
      await page.getByRole('button', { name: 'Rotate secret of CI exporter' }).click();
      await page.getByRole('button', { name: 'Yes, rotate' }).click();
      await page.getByTestId('key-secret-panel').getByRole('heading', { name: 'New secret of “CI exporter”' }).waitFor();
      const rotatedSecret = await page.getByTestId('api-secret').innerText();
      expect(rotatedSecret).to.match(/^as_/).and.not.equal(first.secret);
      expectRefused(await exportSpans(shown.exporter, (await oneSpan()).spans), 401);
      const rotated = await exporterFromPage(page);
      exporters.push(rotated.exporter);
      expectExported(await exportSpans(rotated.exporter, (await oneSpan()).spans));

      // Delete in the page (after the in-page confirmation): the exporter is refused.
      await page.getByRole('button', { name: 'Delete CI exporter' }).click();
      await page.getByRole('button', { name: 'Yes, delete the key' }).click();
      await page.getByText('No API key yet.').waitFor();
      expect(await page.getByTestId('key-secret-panel').count(), 'the deleted key’s secret is hidden').to.equal(0);
      expectRefused(await exportSpans(rotated.exporter, (await oneSpan()).spans), 401);

      // Back on the organizations view: the organization, the role and the application.
      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Organizations' }).click();
      const listed = page.getByRole('row').filter({ hasText: 'Acme Observability' });
      await listed.waitFor();
      expect(await listed.innerText())
        .to.include('Owner')
        .and.include('Checkout service');
      expect(await listed.getByRole('link', { name: 'Acme Observability' }).getAttribute('href')).to.equal(`/ui/organizations/${orgId}`);
      await screenshot(page, `management-organizations-${app().database}`);
      expect(await accessibilityViolations(page), 'organizations view').to.deep.equal([]);
      await expectNoPageFailures(watch);
    } finally {
      for (const exporter of exporters) await exporter.shutdown();
      await context.close();
    }
  });

  it('shows a member added by e-mail the organization and its applications without owner-only actions, and lets them do what members may', async function () {
    this.timeout(120_000);
    const owner = await openPage(browser());
    const member = await openPage(browser());
    const memberEmail = `bob-${app().database}@example.com`;
    try {
      await signIn(owner, app(), {
        subject: `ui-owner2-${app().database}`,
        email: `owner2-${app().database}@example.com`,
        name: 'Oscar Owner',
      });
      await createOrganization(owner.page, 'Shared Org');
      await createApplication(owner.page, 'Owner app', 'US', 'free');
      const addForm = owner.page.getByRole('form', { name: 'Add a member' });
      await addForm.getByLabel('E-mail').fill(memberEmail);
      await addForm.getByRole('button', { name: 'Add member' }).click();
      const invited = owner.page.getByTestId('members').getByRole('row').filter({ hasText: memberEmail });
      await invited.filter({ hasText: 'Invited' }).waitFor();

      // The member signs in with their own link in a fresh browser context.
      await signIn(member, app(), { subject: `ui-bob-${app().database}`, email: memberEmail, name: 'Bob Member' });
      const listed = member.page.getByRole('row').filter({ hasText: 'Shared Org' });
      await listed.waitFor();
      expect(await listed.innerText())
        .to.include('Member')
        .and.include('Owner app');
      await listed.getByRole('link', { name: 'Shared Org' }).click();
      await member.page.getByTestId('members').getByRole('row').filter({ hasText: 'Oscar Owner' }).waitFor();
      await member.page.getByTestId('applications').getByRole('link', { name: 'Owner app', exact: true }).waitFor();
      expect(await member.page.getByTestId('members').getByRole('row').filter({ hasText: 'Bob Member' }).innerText()).to.include('Active');

      // No owner-only action is offered (the owner saw each of them).
      for (const name of ['Delete organization', 'Add member', 'Save organization', /^Remove /]) {
        expect(await member.page.getByRole('button', { name }).count(), `button ${String(name)}`).to.equal(0);
      }
      expect(await member.page.getByRole('combobox', { name: /^Role of / }).count(), 'role selects').to.equal(0);
      expect(await member.page.getByRole('form', { name: 'Add a member' }).count()).to.equal(0);
      expect(await member.page.getByRole('form', { name: 'Organization details' }).count()).to.equal(0);
      expect(await owner.page.getByRole('combobox', { name: /^Role of / }).count(), 'the owner has role selects').to.be.greaterThan(0);
      await screenshot(member.page, `management-organization-member-${app().database}`);
      expect(await accessibilityViolations(member.page), 'organization view (member)').to.deep.equal([]);

      // What a member may do works: create an application, rename it, create a key for it.
      await createApplication(member.page, 'Member app');
      await openApplication(member.page, 'Member app');
      const settings = member.page.getByRole('form', { name: 'Application settings' });
      await settings.getByLabel('Name').fill('Member app (renamed)');
      await settings.getByLabel('Retention (days)').fill('90');
      await settings.getByRole('button', { name: 'Save application' }).click();
      await member.page.getByRole('heading', { level: 1, name: 'Member app (renamed)' }).waitFor();
      const key = await createKey(member.page, 'member key', []);
      expect(key.secret).to.match(/^as_/);
      await screenshot(member.page, `management-application-member-${app().database}`);
      expect(await accessibilityViolations(member.page), 'application view (member)').to.deep.equal([]);
      const stored = await app().server.knex('applications').where({ name: 'Member app (renamed)' }).first();
      expect(stored?.retention_days).to.equal(90);
      // ... and edit the key: its name and permissions.
      await member.page.getByRole('button', { name: 'Edit member key' }).click();
      const edit = member.page.getByRole('form', { name: 'Edit member key' });
      await edit.getByLabel('Key name').fill('member reader');
      await edit.getByRole('checkbox', { name: /^write:traces/ }).uncheck();
      await edit.getByRole('checkbox', { name: /^read:traces/ }).check();
      await edit.getByRole('button', { name: 'Save key' }).click();
      const edited = member.page.getByTestId('api-keys').getByRole('row').filter({ hasText: 'member reader' });
      await edited.waitFor();
      expect(await edited.innerText())
        .to.include('read:traces')
        .and.not.include('write:traces');

      // The owner's controls work: Bob becomes an owner (and then sees the owner's actions), then is removed.
      await owner.page.reload();
      const bobRow = owner.page.getByTestId('members').getByRole('row').filter({ hasText: 'Bob Member' });
      await bobRow.filter({ hasText: 'Active' }).waitFor();
      await bobRow.getByRole('combobox', { name: 'Role of Bob Member' }).selectOption('owner');
      await eventually(async () => (await membershipRole(app(), memberEmail)) === 'owner');
      await member.page.goto(`${app().url}/ui/`);
      await member.page.getByRole('row').filter({ hasText: 'Shared Org' }).getByRole('link', { name: 'Shared Org' }).click();
      await member.page.getByRole('button', { name: 'Delete organization' }).waitFor();

      await bobRow.getByRole('button', { name: 'Remove Bob Member' }).click();
      await owner.page.getByRole('button', { name: 'Yes, remove' }).click();
      await owner.page.getByTestId('members').getByRole('row').filter({ hasText: 'Bob Member' }).waitFor({ state: 'detached' });
      expect(await membershipRole(app(), memberEmail)).to.equal(undefined);
      // It was Bob's only organization: his dashboard session ended with it (docs/dashboard.md, "Signing in").
      await member.page.reload();
      await member.page.getByRole('heading', { name: 'Sign in to spanledger' }).waitFor();

      await expectNoPageFailures(owner);
      await expectNoPageFailures(member);
    } finally {
      await owner.context.close();
      await member.context.close();
    }
  });

  it("shows an API failure with the service's message", async function () {
    this.timeout(120_000);
    const watch = await openPage(browser());
    const { page, context } = watch;
    try {
      await signIn(watch, app(), {
        subject: `ui-owner3-${app().database}`,
        email: `owner3-${app().database}@example.com`,
        name: 'Otto Owner',
      });
      await createOrganization(page, 'Errors Inc');
      await createApplication(page, 'Still here');

      // 409: the same person added twice.
      const addForm = page.getByRole('form', { name: 'Add a member' });
      for (let attempt = 0; attempt < 2; attempt += 1) {
        await addForm.getByLabel('E-mail').fill('twice@example.com');
        await addForm.getByRole('button', { name: 'Add member' }).click();
        if (attempt === 0) await page.getByTestId('members').getByRole('row').filter({ hasText: 'twice@example.com' }).waitFor();
      }
      await addForm
        .getByRole('alert')
        .filter({ hasText: 'The member was not added: User is already a member of this organization' })
        .waitFor();

      // 422: a tax id the document's pattern refuses, named by its field.
      const details = page.getByRole('form', { name: 'Organization details' });
      await details.getByLabel('Tax id').fill('DE<123>');
      await details.getByRole('button', { name: 'Save organization' }).click();
      const invalid = details.getByRole('alert').filter({ hasText: 'The organization was not saved: tax_id' });
      await invalid.waitFor();

      // Corrected, the same form saves, and the new name is shown.
      await details.getByLabel('Tax id').fill('DE-123');
      await details.getByLabel('Name').fill('Errors Incorporated');
      await details.getByRole('group', { name: 'Billing address' }).getByLabel('City').fill('Berlin');
      await details.getByRole('button', { name: 'Save organization' }).click();
      await page.getByRole('heading', { level: 1, name: 'Errors Incorporated' }).waitFor();
      await details.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      expect(await invalid.count(), 'the error is gone once saved').to.equal(0);
      const saved = await app().server.knex('organizations').where({ name: 'Errors Incorporated' }).first();
      expect(saved?.tax_id).to.equal('DE-123');
      expect(JSON.parse(saved?.billing_address).city).to.equal('Berlin');

      // 400: an organization with an application cannot be deleted; the page says why.
      await page.getByRole('button', { name: 'Delete organization' }).click();
      await page.getByRole('button', { name: 'Yes, delete the organization' }).click();
      await page.getByRole('alert').filter({ hasText: 'Organization still has active applications' }).waitFor();
      expect(page.url()).to.match(/\/ui\/organizations\/org_\w+$/);
      await screenshot(page, `management-errors-${app().database}`);
      expect(await accessibilityViolations(page), 'organization view with errors').to.deep.equal([]);
      await expectNoPageFailures(watch);
    } finally {
      await context.close();
    }
  });
});
