// `npm start` as a user runs it: a port already taken stops the start with one clean line on
// stderr and exit code 1, like a configuration error (no stack trace).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';

interface Exit {
  code: number | null;
  stderr: string;
}

function runMain(env: Record<string, string>): Promise<Exit> {
  // Only what the child needs: an inherited DATABASE_URL or PORT would change what is tested.
  const { PATH, HOME } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { PATH, HOME, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
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
    const { code, stderr } = await runMain({ PORT: String(port), HOST: '127.0.0.1', GRPC_PORT: 'off', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(code).to.equal(1);
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).to.have.length(1);
    expect(lines[0]).to.include(`port ${port} is in use`).and.to.include('PORT');
    expect(stderr).not.to.match(/EADDRINUSE|\n\s+at /);
  });

  it('stops with one line naming the port and GRPC_PORT, exit code 1, when the gRPC port is in use', async () => {
    const { code, stderr } = await runMain({ PORT: '0', HOST: '127.0.0.1', GRPC_PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
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
