// Runs the system commands the cluster is built with (ip, nft, mariadb-install-db, mariadb):
// each one waited for, its failure an error carrying what it printed.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Debian puts ip, nft and the MariaDB server tools in /usr/sbin, which a non-login PATH may lack.
export const SYSTEM_PATH = `${process.env.PATH ?? ''}:/usr/sbin:/usr/bin:/sbin`;

export async function command(file: string, args: string[], input?: string): Promise<string> {
  try {
    const child = run(file, args, { env: { ...process.env, PATH: SYSTEM_PATH }, maxBuffer: 16 * 1024 * 1024 });
    if (input !== undefined) {
      child.child.stdin?.end(input);
    }
    const { stdout } = await child;
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${(stderr || stdout || String(error)).trim()}`);
  }
}

/** Like command(), for cleaning up: a failure (the thing is gone already) is ignored. */
export async function tryCommand(file: string, args: string[]): Promise<void> {
  await command(file, args).catch(() => undefined);
}

/** Polls `check` every `everyMs` until it returns true; past `timeoutMs`, throws `what` timed out. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
