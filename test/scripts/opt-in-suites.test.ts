// The suites that start components beyond the databases (a Galera cluster with network
// namespaces and nginx, a Chromium) run only when asked: a plain `npm test` on a machine that
// happens to have the packages, as root, starts none of them. Each is run here as `npm test`
// would run it, without the variable that asks, and must report its tests pending.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);

interface MochaJsonStats {
  stats: { tests: number; passes: number; pending: number; failures: number };
}

/** Mocha's JSON report of one suite file, run in a child process with `unset` removed from its environment. */
async function reportOf(file: string, unset: string): Promise<MochaJsonStats['stats']> {
  const env = { ...process.env };
  delete env[unset];
  const { stdout } = await run(
    'npx',
    ['mocha', '--no-config', '-n', 'import=tsx', '--reporter', 'json', '--timeout', '20000', '--exit', file],
    { env, maxBuffer: 16 * 1024 * 1024 },
  );
  return (JSON.parse(stdout) as MochaJsonStats).stats;
}

describe('suites that start more than the databases run only when asked', () => {
  for (const [file, variable] of [
    ['test/cluster/cluster.test.ts', 'REQUIRE_CLUSTER'],
    ['test/dashboard/sign-in.test.ts', 'REQUIRE_BROWSER'],
  ] as const) {
    it(`${file} without ${variable}: every test pending, none run`, async function () {
      this.timeout(60_000);
      const stats = await reportOf(file, variable);
      expect(stats.tests, 'tests found').to.be.greaterThan(0);
      expect(stats.passes + stats.failures, 'tests that ran').to.equal(0);
      expect(stats.pending, 'tests pending').to.equal(stats.tests);
    });
  }
});
