// Shared by the benchmarks: runs the service (src/main.ts) as a child process on free HTTP and
// gRPC ports against the given database, and waits until it is ready; exchanges a seeded API key
// (seed-accounts.ts) for a token at the service.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Permission } from '../../src/permissions.js';
import { freePort } from './free-port.js';
import { seedApiKey } from './seed-accounts.js';

/** Progress and errors go to stderr, so that stdout holds only the results. */
export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** The URL of database `name` on the server of `serverUrl` (same credentials, other path). */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startService(dbUrl: string, dataDir: string): Promise<{ url: string; grpcPort: number; child: ChildProcess }> {
  const port = await freePort();
  const grpcPort = await freePort();
  // BENCH_PROFILE_DIR: write a V8 CPU profile of the service there when it stops.
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  // BENCH_GC_TRACE_DIR: write V8's trace of every collection (--trace-gc-nvp: pause, survivors,
  // promoted bytes) there, one file per service, named by its HTTP port.
  const gcTraceDir = process.env.BENCH_GC_TRACE_DIR;
  const gcTrace = gcTraceDir ? ['--trace-gc-nvp'] : [];
  // The same Node flags as `npm start` (package.json): the benchmarks measure the service as it runs.
  const child = spawn(process.execPath, [...profile, ...gcTrace, '--max-semi-space-size=64', '--import', 'tsx', 'src/main.ts'], {
    // A free gRPC port rather than 4317, which a service running beside may hold.
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: dbUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      GRPC_PORT: String(grpcPort),
    },
    stdio: ['ignore', gcTraceDir ? fs.openSync(path.join(gcTraceDir, `gc-${port}.log`), 'w') : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 120; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      // Ready only once the gRPC port listens too.
      if ((await fetch(`${url}/readyz`)).status === 200) return { url, grpcPort, child };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the service did not become ready');
}

/** A new API key of the application, holding `permissions`, exchanged for a token at the service. */
export async function apiKeyToken(knex: Knex, serviceUrl: string, applicationId: string, permissions: Permission[]): Promise<string> {
  const { apiKey, secret } = await seedApiKey(knex, applicationId, permissions, { name: 'bench' });
  const response = await fetch(`${serviceUrl}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: apiKey, client_secret: secret }),
  });
  if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
