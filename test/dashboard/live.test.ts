// The live view in a real Chromium against the real service (short LIVE_POLL_INTERVAL_MS): a span
// sent by a real OpenTelemetry exporter appears within seconds, linking to its trace; paused, a
// new span is held (and counted) instead of shown, and resuming shows it; after the connection
// drops, the view reconnects with Last-Event-ID and shows the span sent meanwhile, once; leaving
// the view closes the stream. The page is served through a TCP relay that sees every stream
// connection open and close, as the server does.
import net from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { accessibilityViolations, openPage, screenshot, signInLink, useBrowser } from '../support/dashboard.js';
import { createApiKey, keyToken, ownerWithApplication, type DashboardUser } from '../support/management.js';
import { expectExported, exportSpans, recordSpans } from '../support/otel.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { onEachDatabase } from '../support/test-server.js';

const POLL_INTERVAL_MS = 100;

/**
 * A TCP relay to the service that knows which of its connections carry a live stream (their
 * request line is `GET /traces/live/stream`); stop() cuts every connection and refuses new ones
 * until start().
 */
class StreamWatchingRelay {
  private readonly streams = new Set<net.Socket>();
  private readonly proxy: TcpProxy;

  constructor(targetPort: number) {
    this.proxy = new TcpProxy('127.0.0.1', targetPort, (client) => {
      client.on('data', (chunk: Buffer) => {
        if (chunk.toString('latin1').includes('GET /traces/live/stream ')) this.streams.add(client);
      });
      client.on('close', () => this.streams.delete(client));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.proxy.port}`;
  }

  /** Stream connections open now. */
  get openStreams(): number {
    return this.streams.size;
  }

  start(): Promise<void> {
    return this.proxy.start();
  }

  stop(): Promise<void> {
    return this.proxy.stop();
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function row(page: Page, spanName: string) {
  return page.locator('table.live-spans tbody tr').filter({ has: page.getByRole('link', { name: spanName, exact: true }) });
}

onEachDatabase(
  'dashboard live view',
  (app) => {
    const browser = useBrowser();
    let user: DashboardUser;
    let appId: string;
    let exporter: OTLPTraceExporter;
    let relay: StreamWatchingRelay;

    before(async function () {
      this.timeout(30_000);
      let as;
      ({ user, as, appId } = await ownerWithApplication(app(), 'Liv Live'));
      const key = await createApiKey(as, appId, ['write:traces', 'read:traces']);
      const token = await keyToken(app(), key.apiKey, key.secret);
      exporter = new OTLPTraceExporter({
        url: `${app().url}/v1/traces`,
        headers: { Authorization: `Bearer ${token}`, 'X-Vendor-App-Id': appId },
        timeoutMillis: 10_000,
      });
      relay = new StreamWatchingRelay(Number(new URL(app().url).port));
      await relay.start();
    });

    after(async () => {
      await exporter?.shutdown();
      await relay?.stop();
    });

    /** Sends one new span (now) with a real exporter; answers its trace id. */
    async function sendSpan(name: string): Promise<string> {
      const spans = await recordSpans({ 'service.name': 'live-test' }, (tracer) => {
        tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: { 'vendor.cost': 0.001 } }).end();
      });
      expectExported(await exportSpans(exporter, spans));
      return spans[0].spanContext().traceId;
    }

    it('shows new spans as they arrive, holds them while paused, resumes without losing one, and closes the stream when left', async function () {
      this.timeout(60_000);
      const { page, context, pageErrors, cspViolations, dialogs } = await openPage(browser());
      const streamRequests: Array<Record<string, string>> = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/traces/live/stream')) streamRequests.push(request.headers());
      });
      try {
        const link = new URL(await signInLink(app(), { subject: user.subject, email: user.email, name: user.name }));
        await page.goto(`${relay.url}${link.pathname}${link.hash}`);
        await page.getByTestId('user-name').filter({ hasText: user.name }).waitFor();
        await page.goto(`${relay.url}/ui/live?app=${appId}`);
        const status = page.getByTestId('live-status');
        await page.locator('[data-testid="live-status"][data-state="connected"]').waitFor();
        expect(relay.openStreams).to.equal(1);
        expect(streamRequests[0]['x-vendor-app-id']).to.equal(appId);
        expect(streamRequests[0].authorization).to.match(/^Bearer /);
        expect(streamRequests[0]['last-event-id']).to.equal(undefined);

        // A new span appears, linking to its trace; its name is text, not markup.
        const hostile = 'live <img src=x onerror=alert(1)> first';
        const firstTrace = await sendSpan(hostile);
        await row(page, hostile).waitFor({ timeout: 5000 });
        expect(await row(page, hostile).getByRole('link').getAttribute('href')).to.equal(`/ui/traces/${firstTrace}?app=${appId}`);
        expect(await page.locator('table.live-spans img').count()).to.equal(0);

        // Paused: the next span arrives (and is counted) but is not shown.
        await page.getByRole('button', { name: 'Pause' }).click();
        await page.locator('[data-testid="live-status"][data-paused="true"]').waitFor();
        await sendSpan('live-while-paused');
        await status.filter({ hasText: '1 new span arrived while paused' }).waitFor({ timeout: 5000 });
        await page.waitForTimeout(POLL_INTERVAL_MS * 5);
        expect(await row(page, 'live-while-paused').count()).to.equal(0);
        expect(await page.locator('table.live-spans tbody tr').count()).to.equal(1);
        await screenshot(page, `live-paused-${app().database}`);
        expect(await accessibilityViolations(page), 'live view, paused').to.deep.equal([]);

        // Resumed: it is shown, newest first.
        await page.getByRole('button', { name: 'Resume' }).click();
        await row(page, 'live-while-paused').waitFor();
        expect(await page.locator('table.live-spans tbody tr a').allTextContents()).to.deep.equal(['live-while-paused', hostile]);
        expect(await status.textContent()).to.equal('Connected');

        // The connection drops; a span sent meanwhile arrives after the reconnection (Last-Event-ID), once.
        await relay.stop();
        await page.locator('[data-testid="live-status"][data-state="reconnecting"]').waitFor({ timeout: 5000 });
        await sendSpan('live-during-drop');
        await relay.start();
        await row(page, 'live-during-drop').waitFor({ timeout: 15_000 });
        await page.locator('[data-testid="live-status"][data-state="connected"]').waitFor();
        const resumed = streamRequests[streamRequests.length - 1];
        expect(resumed['last-event-id'], 'the reconnection resumes after the last event seen').to.match(/^[0-9][0-9a-z_.,]*$/);
        await sendSpan('live-after-drop');
        await row(page, 'live-after-drop').waitFor({ timeout: 5000 });
        expect(await page.locator('table.live-spans tbody tr a').allTextContents()).to.deep.equal([
          'live-after-drop',
          'live-during-drop',
          'live-while-paused',
          hostile,
        ]);
        await screenshot(page, `live-${app().database}`);
        expect(await accessibilityViolations(page), 'live view').to.deep.equal([]);
        expect(relay.openStreams).to.equal(1);

        // Leaving the view (in the page, no reload) closes the stream, and no other one opens.
        const requestsBefore = streamRequests.length;
        await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Metrics' }).click();
        await page.getByRole('heading', { name: 'Metrics', level: 1 }).waitFor();
        await until(() => relay.openStreams === 0, 'the stream connection closes');
        await page.waitForTimeout(1500);
        expect(relay.openStreams).to.equal(0);
        expect(streamRequests.length).to.equal(requestsBefore);

        expect(pageErrors).to.deep.equal([]);
        expect(cspViolations).to.deep.equal([]);
        expect(dialogs).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  },
  { LIVE_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS) },
);
