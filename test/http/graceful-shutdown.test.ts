// SIGTERM handling (RunningServer.close): stop accepting, let in-flight requests finish, then
// close the database pool.
import http from 'node:http';
import { expect } from 'chai';
import { seedUser } from '../support/accounts.js';
import { testDatabases } from '../support/databases.js';
import { startTestServer } from '../support/test-server.js';

function postSlowly(
  url: URL,
  token: string,
  body: string,
  pauseMs: number,
): { sent: Promise<void>; response: Promise<{ status: number; text: string }> } {
  let markSent: () => void = () => {};
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.write(body.slice(0, 5));
    markSent();
    setTimeout(() => request.end(body.slice(5)), pauseMs);
  });
  return { sent, response };
}

describe('graceful shutdown', () => {
  it('finishes a request that is in flight, then refuses new connections and closes the pool', async () => {
    const [sqlite] = testDatabases();
    const app = await startTestServer(sqlite!);
    try {
      const { token } = await seedUser(app, 'shutdown');
      const inFlight = postSlowly(new URL('/organizations', app.url), token, JSON.stringify({ name: 'Finishing' }), 300);
      await inFlight.sent;
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closed = app.server.close();
      const { status, text } = await inFlight.response;
      expect(status, 'the in-flight request got its answer').to.equal(201);
      expect((JSON.parse(text) as { id: string }).id, 'the organization it created').to.match(/^org_/);
      await closed;
      const refused = await fetch(new URL('/healthz', app.url)).then(
        () => false,
        () => true,
      );
      expect(refused, 'new connections are refused after close').to.equal(true);
      const poolClosed = await app.server.knex.raw('select 1').then(
        () => false,
        () => true,
      );
      expect(poolClosed, 'the database pool is closed').to.equal(true);
    } finally {
      await app.stop().catch(() => undefined);
    }
  });
});
