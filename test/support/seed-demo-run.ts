// Runs `npm run seed:demo` (scripts/seed-demo.ts) as a user does, in a child process with only
// the environment given: an inherited PORT or SPANLEDGER_* would change what is tested.
import { spawn } from 'node:child_process';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runSeed(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { PATH, HOME } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/seed-demo.ts', ...args], {
    env: { PATH, HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
