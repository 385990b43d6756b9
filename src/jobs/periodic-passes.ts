// A background job's schedule: one pass every interval (0: none), the next interval counted from
// the end of a pass, passes never overlapping, and a stop that waits for the pass in flight. Every
// job of this folder (README.md) extends it with its pass.
export abstract class PeriodicPasses {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<number> | undefined;
  private stopRequested = false;

  constructor(private readonly intervalSeconds: number) {}

  /** One pass of the job; resolves with what it reports (spans purged, batches written). */
  protected abstract pass(): Promise<number>;

  /** Whether stop() was called: a pass checks it between its batches. */
  protected get stopped(): boolean {
    return this.stopRequested;
  }

  /** Schedules the next pass one interval from now. */
  start(): void {
    if (this.intervalSeconds === 0 || this.stopRequested) return;
    this.timer = setTimeout(() => void this.tick(), this.intervalSeconds * 1000);
    // A pending pass must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  /** One pass; resolves with what it reports. A pass asked for while one runs starts after it. */
  runOnce(): Promise<number> {
    const pass = (this.current ?? Promise.resolve(0)).catch(() => 0).then(() => this.pass());
    this.current = pass;
    return pass;
  }

  /** Stops scheduling and waits for the pass in flight (which ends after its current batch). */
  async stop(): Promise<void> {
    this.stopRequested = true;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
  }

  private async tick(): Promise<void> {
    // The pass logged its failure; the next interval tries again (a database outage passes).
    await this.runOnce().catch(() => undefined);
    this.start();
  }
}
