// The README's first run, executed as written: its block (between the first-run markers) is
// parsed into the commands of two terminals, run from a fresh data folder with `npm start` on a
// port other than 8080 and the second terminal told nothing of it, and the sign-in link the
// second prints opened in Chromium ends on the demo trace list, signed in as the demo's owner.
// The README's two pictures (docs/images/) are taken here, so they show the dashboard as it is.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '../../scripts/lib/free-port.js';
import { accessibilityViolations, openPage, useBrowser } from '../support/dashboard.js';

const IMAGES = path.resolve('docs/images');

/** The shell commands of the README's first-run block, comments and blank lines left out. */
export function firstRunCommands(readme: string): string[] {
  const block = /<!-- first-run:begin -->\n```sh\n([\s\S]*?)```\n<!-- first-run:end -->/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no first-run block between its markers');
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Runs one command as a shell in the repository would, in its own process group (so all of npm's children stop with it). */
function shell(command: string, env: Record<string, string>): { child: ChildProcess; output: () => { stdout: string; stderr: string } } {
  const { PATH, HOME } = process.env;
  const child = spawn('sh', ['-c', command], { env: { PATH, HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, output: () => ({ stdout, stderr }) };
}

function until(test: () => boolean, child: ChildProcess, what: string, timeoutMs: number, output: () => unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (test()) return done(resolve);
      if (child.exitCode !== null)
        done(() => reject(new Error(`${what}: the command ended (${child.exitCode}): ${JSON.stringify(output())}`)));
    }, 100);
    const limit = setTimeout(
      () => done(() => reject(new Error(`${what}: not within ${timeoutMs} ms: ${JSON.stringify(output())}`))),
      timeoutMs,
    );
    function done(then: () => void) {
      clearInterval(timer);
      clearTimeout(limit);
      then();
    }
  });
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  await closed;
}

describe("the README's first run", () => {
  const browser = useBrowser();

  it('starts, seeds and signs in as printed, on a port of its own, and ends on the demo trace list', async function () {
    this.timeout(240_000);
    const commands = firstRunCommands(fs.readFileSync('README.md', 'utf8'));
    expect(commands).to.deep.equal(['npm install && npm start', 'npm run seed:demo']);
    // The tree is installed already: terminal 1 runs what follows `npm install &&`.
    const [installAndStart, seed] = commands as [string, string];
    const start = installAndStart.replace(/^npm install && /, '');

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-first-run-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // Only the data folder is shared with terminal 2 (in the README, the repository's data/).
    // GRPC_PORT=off: the default 4317 may be taken on a shared machine.
    const terminal1 = shell(start, { DATA_DIR: dataDir, PORT: String(port), GRPC_PORT: 'off', LOG_LEVEL: 'warn' });
    const watch = await openPage(browser());
    try {
      await until(() => terminal1.output().stderr.includes('First call:'), terminal1.child, 'npm start', 120_000, terminal1.output);
      expect(terminal1.output().stderr).to.include(`listening on ${url} `);
      expect(terminal1.output().stderr).not.to.include(':8080');

      const terminal2 = shell(seed, { DATA_DIR: dataDir });
      await until(() => terminal2.child.exitCode !== null, terminal2.child, seed, 180_000, terminal2.output);
      const { stdout, stderr } = terminal2.output();
      expect(terminal2.child.exitCode, stderr).to.equal(0);
      // Progress to a pipe is whole lines, not one line redrawn.
      expect(stderr).not.to.include('\r');
      expect(stderr).to.match(/^sent \d+ \/ \d+ spans$/m);
      const link = /^\s*(http:\/\/\S+\/ui\/sign-in#link=\S+)$/m.exec(stdout)?.[1];
      expect(link, stdout).to.be.a('string');
      expect(new URL(link as string).origin).to.equal(url);

      const { page } = watch;
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(link as string);
      await page.getByTestId('user-name').filter({ hasText: 'Demo User' }).waitFor();
      // The link lands on the demo application's traces, with no click.
      await page.getByRole('heading', { level: 1, name: 'Traces' }).waitFor();
      expect(new URL(page.url()).pathname).to.equal('/ui/traces');
      await page
        .getByTestId('traces-count')
        .filter({ hasText: /^Traces 1–20 of (\d{3}|\d{1,3}(,\d{3})+)\b/ })
        .waitFor();
      expect(await page.locator('table.traces-table tbody tr').count()).to.equal(20);
      expect(await accessibilityViolations(page), 'the demo trace list').to.deep.equal([]);
      fs.mkdirSync(IMAGES, { recursive: true });
      await page.screenshot({ path: path.join(IMAGES, 'traces.png') });

      // The waterfall of a checkout: four services, a database and two outside APIs.
      await page.getByRole('link', { name: 'POST /api/checkout' }).first().click();
      await page.locator('li.wf-row').nth(6).waitFor();
      await page.screenshot({ path: path.join(IMAGES, 'waterfall.png') });
      for (const name of ['traces.png', 'waterfall.png']) expect(fs.statSync(path.join(IMAGES, name)).size, name).to.be.below(400_000);
      expect(watch.pageErrors).to.deep.equal([]);
      expect(watch.cspViolations).to.deep.equal([]);
    } finally {
      await watch.context.close();
      await stopGroup(terminal1.child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
