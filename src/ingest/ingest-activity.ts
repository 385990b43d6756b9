// Whether this process is storing spans now, or was a moment ago: background work that can wait
// (the trace fold, src/storage/spans/fold/README.md) gives way to ingestion while it
// is, so that a burst of spans is stored at the writer's own pace and folded after it.

/** How long after its last store ingestion still counts as busy: the gap between one sender's requests. */
export const QUIET_AFTER_MS = 250;

export class IngestActivity {
  private storing = 0;
  private lastStoreEnded = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Runs one store of spans, counted as activity while it runs and QUIET_AFTER_MS after. */
  async during<T>(store: () => Promise<T>): Promise<T> {
    this.storing += 1;
    try {
      return await store();
    } finally {
      this.storing -= 1;
      this.lastStoreEnded = this.now();
    }
  }

  /** Whether a store runs, or one ended less than QUIET_AFTER_MS ago. */
  busy(): boolean {
    return this.storing > 0 || this.now() - this.lastStoreEnded < QUIET_AFTER_MS;
  }
}
