// What the dashboard tests need: the built dashboard (built once per test run, as `npm start`
// does), Chromium driven by playwright-core, one-time sign-in links, and screenshots kept as
// test artifacts. Chromium comes from Debian's packages (.ci/run installs it); the browser suites
// run when REQUIRE_BROWSER=1 asks for them (CI), and then a missing Chromium fails them.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { buildUi } from '../../scripts/lib/build-ui.js';
import type { TestServer } from './test-server.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve('test-artifacts/screenshots');

let built: Promise<unknown> | undefined;

/** Builds the dashboard into dist/ui, once per test run. */
export function ensureUiBuilt(): Promise<unknown> {
  built ??= buildUi();
  return built;
}

/** A one-time sign-in link for a local user, as `npm run sign-in-link` prints it. */
export async function signInLink(
  app: TestServer,
  user: { subject: string; email?: string; name?: string },
  ttlSeconds = 600,
): Promise<string> {
  return `${app.url}/ui/sign-in#link=${await app.server.tokens.signSignInLink(user, ttlSeconds)}`;
}

/**
 * Declares a browser for the enclosing suite: launched before its tests, closed after. Only when
 * asked with REQUIRE_BROWSER=1 (`npm run test:browser`, CI), where a missing Chromium fails the
 * suite; a plain `npm test` starts no browser.
 */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async function () {
    this.timeout(120_000);
    if (process.env.REQUIRE_BROWSER !== '1') this.skip();
    if (!fs.existsSync(CHROMIUM_PATH))
      throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM_PATH}: the dashboard suites cannot run`);
    await ensureUiBuilt();
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      // Chromium as root needs --no-sandbox; the rest keep it off the network this machine does not have.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    });
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not running');
    return browser;
  };
}

/** What a page did that a test must see: script errors, dialogs, CSP violations. */
export interface PageWatch {
  page: Page;
  context: BrowserContext;
  pageErrors: string[];
  dialogs: string[];
  cspViolations: string[];
  consoleErrors: string[];
}

/** A page in a new context: a desktop window unless `options` say otherwise (a phone's viewport, a time zone, a colour scheme). */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<PageWatch> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...options });
  const page = await context.newPage();
  const watch: PageWatch = { page, context, pageErrors: [], dialogs: [], cspViolations: [], consoleErrors: [] };
  page.on('pageerror', (error) => watch.pageErrors.push(error.message));
  page.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors.push(message.text());
  });
  await page.exposeFunction('__reportCspViolation', (text: string) => watch.cspViolations.push(text));
  // Runs in the page (a string: this file is compiled without the DOM's types).
  await page.addInitScript(
    `document.addEventListener('securitypolicyviolation', (event) => window.__reportCspViolation(event.violatedDirective + ' ' + event.blockedURI))`,
  );
  return watch;
}

/** Saves a screenshot of the page as a test artifact (test-artifacts/screenshots/<name>.png). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/**
 * Runs axe-core (WCAG 2.1 A and AA rules) on the page as it is now and returns the serious and
 * critical violations. axe is evaluated through the DevTools protocol, which the page's CSP does
 * not govern, so the page keeps its real policy.
 */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const result = (await page.evaluate(`${source}
    axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))`)) as AxeViolation[];
  return result.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
