// One service instance of the cluster: `src/main.ts` as `npm start` runs it, on its own port,
// connected to one database node. Every instance shares one data folder, so they sign and check
// user tokens with the same key (on real machines: the same SIGNING_KEY_FILE, or OIDC).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './commands.js';
import { ManagedProcess } from './managed-process.js';

const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServiceInstanceOptions {
  index: number;
  port: number;
  databaseUrl: string;
  dataDir: string;
  logFile: string;
  /** More environment for the service (LOG_LEVEL, LIVE_POLL_INTERVAL_MS, ...). */
  env?: Record<string, string>;
}

export class ServiceInstance {
  private readonly process: ManagedProcess;

  constructor(readonly options: ServiceInstanceOptions) {
    this.process = new ManagedProcess(options.logFile);
  }

  get url(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  get name(): string {
    return `instance${this.options.index + 1}`;
  }

  get running(): boolean {
    return this.process.running;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Starts the process and waits until it answers /readyz. */
  async start(timeoutMs = 120_000): Promise<void> {
    const { port, databaseUrl, dataDir, logFile, env = {} } = this.options;
    // The same Node flags as `npm start` (package.json).
    this.process.start(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', 'src/main.ts'], {
      cwd: REPOSITORY,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        GRPC_PORT: 'off',
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        ...env,
      },
    });
    await waitFor(
      `${this.name} ready on ${this.url}`,
      async () => {
        if (!this.running) throw new Error(`${this.name} exited; see ${logFile}`);
        return (await fetch(`${this.url}/readyz`)).status === 200;
      },
      timeoutMs,
    );
  }

  /** SIGKILL: the process gone mid-request, as in a crash. */
  async kill(): Promise<void> {
    await this.process.stop('SIGKILL');
  }

  /** SIGTERM: the service's own clean shutdown (killed if it takes more than 15 s). */
  async stop(): Promise<void> {
    await this.process.stop('SIGTERM', 15_000);
  }
}
