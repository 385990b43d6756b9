// What `npm start` prints is what a new user copies: the sign-in link command it shows, run as
// shown (with the DATA_DIR the service got, and --url when the port was picked at start), prints
// a link that signs in at that very service.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);

/** The `npm run --silent sign-in-link …` command of the hint, as argv after `sign-in-link --`, and its env assignments. */
function parseHintCommand(line: string): { env: Record<string, string>; args: string[] } {
  const command = /sign in with a one-time link: (.*)\)$/.exec(line)?.[1];
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

describe('npm start hint', () => {
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
