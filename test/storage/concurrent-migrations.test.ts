// Several instances starting at the same moment on one fresh database (MIGRATE_ON_START, the
// default): one applies the migrations under Knex's lock, the others wait for it, and all come
// up; every migration ran once, in one batch. A lock left set by a crashed migration stops a start
// after MIGRATION_LOCK_WAIT_SECONDS with one line naming the lock table and the command that
// clears it, and `npm run migrate -- --unlock` clears it. The instances are real processes
// (`src/main.ts`), as a deployment starts them.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { knexSettings } from '../../src/storage/database.js';
import { migrateToLatest, migratorConfig } from '../../src/storage/migrations/index.js';
import { ensureMigrationTables, MIGRATION_LOCK_TABLE } from '../../src/storage/migrations/migration-lock.js';
import { testDatabases } from '../support/databases.js';

const INSTANCES = 3;

interface Instance {
  child: ChildProcess;
  /** Resolves with the address it listens on, or rejects with what it printed when it exits first. */
  listening: Promise<string>;
  exited: Promise<{ code: number | null; stderr: string }>;
}

function startInstance(env: Record<string, string>): Instance {
  const { PATH, HOME } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH, HOME, PORT: '0', HOST: '127.0.0.1', GRPC_PORT: 'off', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  const listening = new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /spanledger is listening on (\S+)/.exec(stderr)?.[1];
      if (url) resolve(url);
    });
    void exited.then(({ code }) => reject(new Error(`instance exited (${code}) before listening: ${stderr}`)));
  });
  listening.catch(() => undefined);
  return { child, listening, exited };
}

function runMigrateScript(env: Record<string, string>, args: string[]): Promise<{ code: number | null; output: string }> {
  const { PATH, HOME } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts', ...args], {
    env: { PATH, HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

async function stopAll(instances: Instance[]): Promise<void> {
  for (const instance of instances) if (instance.child.exitCode === null) instance.child.kill('SIGTERM');
  await Promise.all(instances.map((instance) => instance.exited));
}

for (const database of testDatabases()) {
  describe(`migrations at the start of several instances [${database.name}]`, function () {
    this.timeout(120_000);
    let dataDir: string;
    let url: string;
    let drop: () => Promise<void>;
    let knex: Knex;

    beforeEach(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-concurrent-migrations-'));
      ({ url, drop } = await database.create(dataDir));
      knex = knexFactory(knexSettings(url, dataDir));
    });

    afterEach(async () => {
      await knex.destroy();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    /** Each instance's own data folder (its signing key), all on the one database. */
    const instanceEnv = (index: number, extra: Record<string, string> = {}) => {
      const own = path.join(dataDir, `instance-${index}`);
      fs.mkdirSync(own, { recursive: true });
      return { DATABASE_URL: url, DATA_DIR: own, ...extra };
    };

    it(`${INSTANCES} instances started at the same moment on a fresh database all come up, and the migrations ran once`, async () => {
      const instances = Array.from({ length: INSTANCES }, (_, index) => startInstance(instanceEnv(index)));
      try {
        const urls = await Promise.all(instances.map((instance) => instance.listening));
        for (const address of urls) expect((await fetch(new URL('/readyz', address))).status, address).to.equal(200);
        const applied = (await knex('knex_migrations').select('name', 'batch')) as Array<{ name: string; batch: number }>;
        const names = (await migratorConfig.migrationSource!.getMigrations([])).map((migration) => String(migration));
        expect(applied.map((row) => row.name).sort()).to.deep.equal([...names].sort());
        expect(new Set(applied.map((row) => Number(row.batch)))).to.deep.equal(new Set([1]));
        expect(await knex(MIGRATION_LOCK_TABLE).select('is_locked')).to.deep.equal([{ is_locked: 0 }]);
      } finally {
        await stopAll(instances);
      }
    });

    it('a start waits while another instance holds the lock, and goes on once it is released', async () => {
      await ensureMigrationTables(knex);
      await knex(MIGRATION_LOCK_TABLE).update({ is_locked: 1 });
      let waited = false;
      const migrating = migrateToLatest(knex, { lockWaitMs: 30_000, pollMs: 100, onWait: () => (waited = true) });
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(waited).to.equal(true);
      const [{ count }] = (await knex('knex_migrations').count({ count: '*' })) as Array<{ count: number | string }>;
      expect(Number(count)).to.equal(0);
      await knex(MIGRATION_LOCK_TABLE).update({ is_locked: 0 });
      await migrating;
      const [pending] = (await knex.migrate.list(migratorConfig)).slice(1) as [unknown[]];
      expect(pending).to.deep.equal([]);
    });

    it('a lock a crashed migration left: the start stops with one line after the wait, and --unlock clears it', async () => {
      await ensureMigrationTables(knex);
      await knex(MIGRATION_LOCK_TABLE).update({ is_locked: 1 });
      const stopped = startInstance(instanceEnv(0, { MIGRATION_LOCK_WAIT_SECONDS: '1' }));
      const { code, stderr } = await stopped.exited;
      expect(code).to.equal(1);
      const lines = stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines, stderr).to.have.length(1);
      expect(lines[0]).to.include(`table ${MIGRATION_LOCK_TABLE}`).and.include('npm run migrate -- --unlock');
      expect(lines[0]).to.match(/^migrations did not run within 1 s: another instance holds the migration lock/);

      const unlocked = await runMigrateScript(instanceEnv(1), ['--unlock']);
      expect(unlocked, unlocked.output).to.include({ code: 0 });
      expect(unlocked.output).to.include(`migration lock cleared (${MIGRATION_LOCK_TABLE})`);
      const migrated = await runMigrateScript(instanceEnv(1), []);
      expect(migrated.output).to.include('migrations are current');
      const started = startInstance(instanceEnv(2, { MIGRATION_LOCK_WAIT_SECONDS: '1' }));
      try {
        const address = await started.listening;
        expect((await fetch(new URL('/readyz', address))).status).to.equal(200);
      } finally {
        await stopAll([started]);
      }
    });
  });
}
