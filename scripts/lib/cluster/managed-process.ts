// A child process of the cluster (a database node, a service instance, nginx): started with its
// output appended to a log file, asked to stop with a signal and killed if it has not exited
// within a grace period, so that tearing the cluster down never hangs.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export class ManagedProcess {
  private child: ChildProcess | undefined;

  constructor(private readonly logFile: string) {}

  /** The process id while it runs (for its CPU time, scripts/lib/process-cpu.ts). */
  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(file: string, args: string[], options: Omit<SpawnOptions, 'stdio'> = {}): void {
    if (this.running) throw new Error(`${file} is running already`);
    const log = openSync(this.logFile, 'a');
    this.child = spawn(file, args, { ...options, stdio: ['ignore', log, log] });
    closeSync(log);
  }

  /** Sends `signal` and waits for the exit; past `graceMs`, SIGKILL. */
  async stop(signal: NodeJS.Signals, graceMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
