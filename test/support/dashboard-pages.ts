// Driving the dashboard's views as a user does, for the browser tests: sign in with a link, create
// an organization, an application and a key in the management views, and build the exporter the
// page's settings describe (real OpenTelemetry SDK, configured by those environment variables only).
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signInLink, type PageWatch } from './dashboard.js';
import { withOtlpEnvironment } from './otel.js';
import type { TestServer } from './test-server.js';

/** The `export NAME=value` lines the page shows, read as a shell would (single quotes removed). */
export function parseExports(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n').filter((row) => row.trim())) {
    const match = /^export (\w+)=(?:'([^']*)'|(\S+))$/.exec(line.trim());
    if (!match) throw new Error(`not an export line: ${line}`);
    env[match[1]] = match[2] ?? match[3];
  }
  return env;
}

/** A protobuf exporter configured by the environment the page shows, and nothing else. */
export async function exporterFromPage(page: Page): Promise<{ env: Record<string, string>; exporter: ProtoTraceExporter }> {
  const env = parseExports(await page.getByTestId('exporter-environment').innerText());
  return { env, exporter: withOtlpEnvironment(env, () => new ProtoTraceExporter()) };
}

export async function signIn(watch: PageWatch, app: TestServer, user: { subject: string; email: string; name: string }): Promise<void> {
  await watch.page.goto(await signInLink(app, user));
  await watch.page.getByTestId('user-name').filter({ hasText: user.name }).waitFor();
}
export async function createOrganization(page: Page, name: string): Promise<string> {
  const form = page.getByRole('form', { name: 'Create an organization' });
  await form.getByLabel('Name').fill(name);
  await form.getByRole('button', { name: 'Create organization' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  return /\/ui\/organizations\/(org_\w+)$/.exec(page.url())?.[1] ?? expect.fail(`not an organization page: ${page.url()}`);
}

export async function createApplication(page: Page, name: string, region = 'EU', plan = 'pro'): Promise<void> {
  const form = page.getByRole('form', { name: 'Create an application' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Region').selectOption(region);
  await form.getByLabel('Pricing plan').selectOption(plan);
  await form.getByRole('button', { name: 'Create application' }).click();
  await page.getByTestId('applications').getByRole('link', { name, exact: true }).waitFor();
}

export async function openApplication(page: Page, name: string): Promise<string> {
  await page.getByTestId('applications').getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  return /\/ui\/applications\/(app_\w+)$/.exec(page.url())?.[1] ?? expect.fail(`not an application page: ${page.url()}`);
}

export async function createKey(page: Page, name: string, extraPermissions: string[]): Promise<{ apiKey: string; secret: string }> {
  const form = page.getByRole('form', { name: 'Create an API key' });
  await form.getByLabel('Key name').fill(name);
  for (const permission of extraPermissions) await form.getByRole('checkbox', { name: new RegExp(`^${permission}`) }).check();
  await form.getByRole('button', { name: 'Create API key' }).click();
  const panel = page.getByTestId('key-secret-panel');
  await panel.waitFor();
  return { apiKey: await panel.getByTestId('api-key').innerText(), secret: await panel.getByTestId('api-secret').innerText() };
}

export async function expectNoPageFailures(watch: PageWatch): Promise<void> {
  expect(watch.pageErrors, 'page errors').to.deep.equal([]);
  expect(watch.dialogs, 'dialogs').to.deep.equal([]);
  expect(watch.cspViolations, 'CSP violations').to.deep.equal([]);
}
