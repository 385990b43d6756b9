// `npm start` as a user runs it: a port already taken, a bad configuration or a database that
// cannot be used stops the start with one clean line on stderr and exit code 1 (no stack trace);
// `npm run migrate` stops the same way on such a database.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { testDatabases } from '../support/databases.js';
import { closedPort } from '../support/ports.js';

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, env: Record<string, string>): Promise<Exit> {
  // Only what the child needs: an inherited DATABASE_URL or PORT would change what is tested.
  const { PATH, HOME } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { PATH, HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function runMain(env: Record<string, string>): Promise<Exit> {
  return run('src/main.ts', env);
}

/** Exit code 1 and stderr one line holding every fragment; no stack frame on stderr or in the log on stdout. */
function expectOneLine({ code, stdout, stderr }: Exit, ...fragments: string[]): string {
  expect(code, stderr).to.equal(1);
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).to.have.length(1);
  for (const fragment of fragments) expect(lines[0]).to.include(fragment);
  // A stack frame on stderr, or escaped inside a JSON log line (Knex's "Acquire connection error").
  expect(stderr + stdout).not.to.match(/(\n|\\n)\s+at /);
  expect(stderr).not.to.match(/triggerUncaughtException|UnhandledPromiseRejection/);
  return lines[0];
}

describe('npm start', () => {
  let dataDir: string;
  let holder: net.Server;
  let port: number;

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-start-'));
    holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as net.AddressInfo).port;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops with one line naming the port and PORT, exit code 1, when the port is in use', async () => {
    const { code, stderr } = await runMain({
      PORT: String(port),
      HOST: '127.0.0.1',
      GRPC_PORT: 'off',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
    });
    expect(code).to.equal(1);
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).to.have.length(1);
    expect(lines[0]).to.include(`port ${port} is in use`).and.to.include('PORT');
    expect(stderr).not.to.match(/EADDRINUSE|\n\s+at /);
  });

  it('stops with one line naming the port and GRPC_PORT, exit code 1, when the gRPC port is in use', async () => {
    const { code, stderr } = await runMain({
      PORT: '0',
      HOST: '127.0.0.1',
      GRPC_PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
    });
    expect(code).to.equal(1);
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).to.have.length(1);
    expect(lines[0]).to.include(`gRPC port ${port} is in use`).and.to.include('GRPC_PORT');
    expect(stderr).not.to.match(/EADDRINUSE|\n\s+at /);
  });

  it('stops with one line naming the variable, exit code 1, on a bad configuration', async () => {
    const { code, stderr } = await runMain({ PORT: 'eighty', DATA_DIR: dataDir });
    expect(code).to.equal(1);
    expect(stderr.trim().split('\n')).to.deep.equal(['invalid configuration: PORT must be a whole number, got "eighty"']);
  });
});

// Throws under REQUIRE_MYSQL=1 without TEST_MYSQL_URL, as every MariaDB suite does.
const mysqlServerUrl = testDatabases().some((database) => database.name === 'mysql') ? process.env.TEST_MYSQL_URL : undefined;

describe('npm start and npm run migrate on a database they cannot use', () => {
  let dataDir: string;
  // The service's own settings; LOG_LEVEL stays at info, so Knex's warnings reach stdout.
  const env = (databaseUrl: string) => ({ PORT: '0', HOST: '127.0.0.1', GRPC_PORT: 'off', DATA_DIR: dataDir, DATABASE_URL: databaseUrl });

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-start-'));
  });

  afterEach(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('names host:port when nothing listens there (connection refused)', async () => {
    const port = await closedPort();
    const line = expectOneLine(
      await runMain(env(`mysql://spanledger:secret-word@127.0.0.1:${port}/spanledger`)),
      `127.0.0.1:${port}`,
      'connection refused',
      'DATABASE_URL',
    );
    expect(line).not.to.include('secret-word');
  });

  it('names the host when its name does not resolve', async () => {
    expectOneLine(
      await runMain(env('mysql://spanledger:secret-word@nonexistent.invalid:3306/spanledger')),
      `'nonexistent.invalid' cannot be resolved`,
      'DATABASE_URL',
    );
  });

  it('names the SQLite path and the reason when its folder cannot be made', async () => {
    // Under a regular file: no folder can be made there, even by root.
    const file = path.join(dataDir, 'a-file');
    fs.writeFileSync(file, '');
    const databasePath = path.join(file, 'sub', 'db.sqlite');
    expectOneLine(await runMain(env(`sqlite:${databasePath}`)), databasePath, 'ENOTDIR: not a directory', 'DATABASE_URL');
  });

  it('names the SQLite path when it is a folder, not a file', async () => {
    expectOneLine(await runMain(env(`sqlite:${dataDir}`)), `the SQLite file ${dataDir} cannot be opened (it is a folder)`);
  });

  it('names DATA_DIR when the default SQLite file cannot be made there', async () => {
    const file = path.join(dataDir, 'a-file');
    fs.writeFileSync(file, '');
    expectOneLine(
      await runMain({ PORT: '0', HOST: '127.0.0.1', GRPC_PORT: 'off', DATA_DIR: path.join(file, 'data') }),
      path.join(file, 'data', 'spanledger.sqlite'),
      'ENOTDIR',
      'DATA_DIR',
    );
  });

  it('npm run migrate: names the SQLite path and the reason, exit code 1', async () => {
    const file = path.join(dataDir, 'a-file');
    fs.writeFileSync(file, '');
    const databasePath = path.join(file, 'db.sqlite');
    expectOneLine(
      await run('scripts/migrate.ts', env(`sqlite:${databasePath}`)),
      databasePath,
      `its folder ${file} cannot be made (a file, not a folder, is there)`,
    );
  });

  (mysqlServerUrl ? describe : describe.skip)('on MariaDB (TEST_MYSQL_URL)', () => {
    const server = new URL(mysqlServerUrl ?? 'mysql://unset@127.0.0.1/mysql');
    const where = `${server.hostname}:${server.port || 3306}`;
    const urlOf = (changes: { database?: string; password?: string }) => {
      const url = new URL(server);
      if (changes.database) url.pathname = `/${changes.database}`;
      if (changes.password) url.password = changes.password;
      return url.toString();
    };

    it('names a missing database and the CREATE DATABASE statement that makes it', async () => {
      const database = `spanledger_missing_${randomBytes(6).toString('hex')}`;
      expectOneLine(
        await runMain(env(urlOf({ database }))),
        `database '${database}' does not exist on MariaDB at ${where}`,
        `CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
      );
    });

    it('names the user and the server, never the password, when the password is wrong', async () => {
      const password = `wrong-${randomBytes(6).toString('hex')}`;
      const line = expectOneLine(
        await runMain(env(urlOf({ password }))),
        `MariaDB at ${where} refused user '${decodeURIComponent(server.username)}'`,
        'password',
        'DATABASE_URL',
      );
      expect(line).not.to.include(password);
    });

    it('npm run migrate: names a missing database the same way, exit code 1', async () => {
      const database = `spanledger_missing_${randomBytes(6).toString('hex')}`;
      expectOneLine(await run('scripts/migrate.ts', env(urlOf({ database }))), `database '${database}' does not exist`, 'CREATE DATABASE');
    });
  });
});
