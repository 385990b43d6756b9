// What `npm start` prints is what a new user copies: the sign-in link command it shows, run as
// shown (with the DATA_DIR the service got, and --url when the port was picked at start), prints
// a link that signs in at that very service; and with a PORT of its own, the commands a second
// terminal runs without that PORT find the service through the URL it wrote into the data folder.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freePort } from '../../scripts/lib/free-port.js';

const run = promisify(execFile);

/** The `npm run --silent sign-in-link …` command of the hint, as argv after `sign-in-link --`, and its env assignments. */
function parseHintCommand(line: string): { env: Record<string, string>; args: string[] } {
  const command = /sign in as yourself: (.*)\)$/.exec(line)?.[1];
  if (!command) throw new Error(`no sign-in command in: ${line}`);
  const words = command.split(' ');
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, value] = (words.shift() as string).split('=');
    env[name] = value;
  }
  expect(words.slice(0, 5)).to.deep.equal(['npm', 'run', '--silent', 'sign-in-link', '--']);
  return { env, args: words.slice(5) };
}

/** Starts `src/main.ts` as `npm start` does, with only the environment given; resolves with its hint once printed. */
function start(env: Record<string, string>): { child: ReturnType<typeof spawn>; hint: Promise<string> } {
  const { PATH, HOME } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH, HOME, GRPC_PORT: 'off', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const hint = new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/First call:.*\n/.test(stderr)) resolve(stderr);
    });
    child.on('close', () => reject(new Error(`the service stopped: ${stderr}`)));
  });
  return { child, hint };
}

/** Waits for a child to end after SIGTERM, so that its data folder can go. */
function stop(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.kill('SIGTERM');
  return closed;
}

describe('npm start hint', () => {
  it('writes its URL into the data folder, where sign-in-link and seed:demo run without PORT find it; the hint names no other port', async function () {
    this.timeout(60_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-port-'));
    const port = await freePort();
    const { child, hint } = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
    try {
      const printed = await hint;
      const url = `http://127.0.0.1:${port}`;
      expect(printed).to.include(`listening on ${url} `);
      expect(fs.readFileSync(path.join(dataDir, 'service-url'), 'utf8')).to.equal(`${url}\n`);
      // Every printed address is this one, and no command needs --url: the second terminal finds it.
      expect(
        printed.match(/http:\/\/[^\s/)]+/g)?.every((address) => address === url),
        printed,
      ).to.equal(true);
      expect(printed).not.to.include('--url');
      const demo = printed.split('\n').find((line) => line.includes('Demo data:')) as string;
      expect(demo).to.include(`DATA_DIR=${dataDir} npm run seed:demo `);

      const { PATH, HOME } = process.env;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/sign-in-link.ts', '--sub', 'demo'], {
        env: { PATH, HOME, DATA_DIR: dataDir },
      });
      expect(new URL(stdout.trim()).origin).to.equal(url);
      // seed:demo, without PORT either, fills a demo application there (one trace) and links to it.
      const seeded = await run(process.execPath, ['--import', 'tsx', 'scripts/seed-demo.ts', '--traces', '1'], {
        env: { PATH, HOME, DATA_DIR: dataDir },
      });
      expect(seeded.stdout).to.include(`at ${url}`);
      expect(seeded.stdout).to.match(new RegExp(`^  ${url.replace(/[.]/g, '\\.')}/ui/sign-in#link=`, 'm'));
    } finally {
      await stop(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('prints a sign-in link command that works as printed, with a non-default DATA_DIR and a picked port', async function () {
    this.timeout(60_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-hint-'));
    const { PATH, HOME } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH, HOME, PORT: '0', HOST: '127.0.0.1', GRPC_PORT: 'off', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const hint = await new Promise<string>((resolve, reject) => {
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (/Dashboard:.*\n/.test(stderr)) resolve(stderr);
        });
        child.on('close', () => reject(new Error(`the service stopped: ${stderr}`)));
      });
      const url = /listening on (http:\/\/[^ ]+)/.exec(hint)?.[1] as string;
      const line = hint.split('\n').find((text) => text.includes('Dashboard:')) as string;
      expect(line).to.include(`${url}/ui/`);
      const { env, args } = parseHintCommand(line);
      expect(env).to.deep.equal({ DATA_DIR: dataDir });
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/sign-in-link.ts', ...args], {
        env: { PATH, HOME, ...env },
      });
      const link = new URL(stdout.trim());
      expect(link.origin).to.equal(url);
      const response = await fetch(`${url}/ui/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ link: link.hash.replace('#link=', '') }),
      });
      expect(response.status).to.equal(200);
    } finally {
      child.kill('SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
