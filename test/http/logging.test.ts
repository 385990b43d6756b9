// What the service writes to its log, read back from a captured logger on every database:
// a client leaving a live stream is not an error, a real failure still is.
import { expect } from 'chai';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { testDatabases } from '../support/databases.js';
import { captureLogs, LEVEL, type CapturedLogs } from '../support/log-capture.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const WINDOW = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };

/** Waits for a condition on the log; the bound is generous, the wait ends as soon as it holds. */
async function logged(logs: CapturedLogs, predicate: (raw: string[]) => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate(logs.raw())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for a log line; log so far:\n${logs.raw().join('\n').slice(0, 4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const database of testDatabases()) {
  describe(`logging [${database.name}]`, function () {
    let app: TestServer & { stop(): Promise<void> };
    let logs: CapturedLogs;
    let caller: EngineCaller;

    before(async () => {
      logs = captureLogs('debug');
      app = await startTestServer(database, {}, { logger: logs.logger });
      caller = await engineCaller(app);
    });
    after(async () => {
      await app?.stop();
    });

    const errorLines = () => logs.lines().filter((line) => line.level >= LEVEL.error);

    it('logs a client leaving a live stream at debug, not as an error', async () => {
      const controller = new AbortController();
      const response = await fetch(`${app.url}/traces/live/stream`, { headers: caller.headers, signal: controller.signal });
      expect(response.status).to.equal(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read(); // the first heartbeat: the stream is open
      const before = logs.raw().length;
      controller.abort();
      await reader.read().catch(() => undefined);
      // Koa reports the aborted response as ERR_STREAM_PREMATURE_CLOSE, whatever level it logs it at.
      await logged(logs, (raw) => raw.slice(before).some((line) => line.includes('ERR_STREAM_PREMATURE_CLOSE')));
      const disconnect = logs.lines().slice(before).filter((line) => JSON.stringify(line).includes('ERR_STREAM_PREMATURE_CLOSE'));
      expect(disconnect.map((line) => line.level)).to.deep.equal([LEVEL.debug]);
      expect(errorLines(), JSON.stringify(errorLines()).slice(0, 2000)).to.deep.equal([]);
    });

    it('still logs a real failure at error level', async () => {
      const knex = app.server.knex;
      await knex.schema.renameTable('spans', 'spans_away');
      try {
        // A 500 is declared by no operation, so this call skips the contract check.
        const url = `${app.url}/engine/query?${new URLSearchParams(WINDOW)}`;
        const response = await fetch(url, { method: 'POST', headers: { ...caller.headers, 'content-type': 'application/json' }, body: '{}' });
        expect(response.status).to.equal(500);
      } finally {
        await knex.schema.renameTable('spans_away', 'spans');
      }
      expect(errorLines().map((line) => line.msg)).to.deep.equal(['unhandled error']);
    });
  });
}
