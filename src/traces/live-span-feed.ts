// What a live stream sends next, found by polling the receive sequence in storage (so spans
// committed through any instance reach every stream).
//
// A receive sequence is taken at insert, not at commit: a span can commit after spans with
// higher sequences were already sent. So besides the spans above the high-water mark, each poll
// re-checks a trailing window (horizon, high-water] for spans that committed late, and sends
// each of them once. The horizon moves up to a high-water mark once `graceMs` have passed since
// it was seen: a transaction still open that long is taken to have rolled back. Event ids never
// go down (a late span carries the current high-water mark), so a client that resumes with
// Last-Event-ID is sent nothing twice.
import type { StoredSpan } from '../storage/spans/stored-span.js';
import { MAX_STORED_INTEGER } from '../storage/spans/time-bounds.js';

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export interface FeedReads {
  latestSeq(): Promise<string>;
  /** Sequences in (after, upTo], ascending. */
  seqsBetween(after: string, upTo: string, limit: number): Promise<string[]>;
  countBetween(after: string, upTo: string): Promise<number>;
  spansBySeq(seqs: string[]): Promise<StoredSpan[]>;
  /** Spans above `after`, ascending, at most `limit`. */
  spansAfter(after: string, limit: number): Promise<StoredSpan[]>;
}

export interface FeedOptions {
  /** How long a sequence below the high-water mark may still commit and be sent. */
  graceMs: number;
  /** Most new spans one poll reads. */
  batchSize: number;
  now?: () => number;
}

export interface FeedEvent {
  /** The SSE event id: the span's sequence, or the high-water mark for a late span. */
  id: string;
  span: StoredSpan;
}

// The chunk of the late-commit scan; in practice the window holds only grace-period traffic.
export const MAX_WINDOW_SCAN = 100_000;

export class LiveSpanFeed {
  private horizon: bigint;
  private highWater: bigint;
  /** Sequences in (horizon, highWater] that were sent. */
  private readonly sent = new Set<string>();
  /** High-water marks and when they were reached, oldest first. */
  private readonly marks: Array<{ at: number; seq: bigint }> = [];
  private readonly now: () => number;

  private constructor(
    private readonly reads: FeedReads,
    start: bigint,
    private readonly options: FeedOptions,
  ) {
    this.horizon = start;
    this.highWater = start;
    this.now = options.now ?? Date.now;
  }

  /**
   * Starts after `lastEventId` when given (resuming), otherwise after the latest span stored
   * now: the stream carries the spans received after it opened.
   */
  static async open(reads: FeedReads, lastEventId: string | undefined, options: FeedOptions): Promise<LiveSpanFeed> {
    // No sequence is above the BIGINT range: an id past it resumes after the highest possible one.
    const start = lastEventId !== undefined ? min(BigInt(lastEventId), MAX_STORED_INTEGER) : BigInt(await reads.latestSeq());
    return new LiveSpanFeed(reads, start, options);
  }

  /** True when the last poll filled a whole batch: more may be waiting, poll again at once. */
  behind = false;

  /** One poll: the events to send now, in order. */
  async next(): Promise<FeedEvent[]> {
    const events: FeedEvent[] = [];
    if (this.highWater > this.horizon) {
      const after = this.horizon.toString();
      const upTo = this.highWater.toString();
      let missing = (await this.reads.countBetween(after, upTo)) - this.sent.size;
      // The window is read in chunks of MAX_WINDOW_SCAN sequences until every late span is
      // found: reading only the first chunk missed late spans behind a chunk of sent ones (with
      // more than MAX_WINDOW_SCAN spans received within the grace period) until the horizon
      // passed them, a stream silently short of spans.
      let from = after;
      while (missing > 0) {
        const seqs = await this.reads.seqsBetween(from, upTo, MAX_WINDOW_SCAN);
        const late = seqs.filter((seq) => !this.sent.has(seq));
        for (const span of await this.reads.spansBySeq(late)) {
          events.push({ id: upTo, span });
          this.sent.add(span.seq);
        }
        missing -= late.length;
        if (seqs.length < MAX_WINDOW_SCAN) break;
        from = seqs[seqs.length - 1] as string;
      }
    }
    const fresh = await this.reads.spansAfter(this.highWater.toString(), this.options.batchSize);
    for (const span of fresh) {
      events.push({ id: span.seq, span });
      this.sent.add(span.seq);
      this.highWater = BigInt(span.seq);
    }
    this.behind = fresh.length >= this.options.batchSize;
    this.advanceHorizon();
    return events;
  }

  private advanceHorizon(): void {
    const now = this.now();
    const last = this.marks[this.marks.length - 1];
    if (!last || last.seq !== this.highWater) this.marks.push({ at: now, seq: this.highWater });
    let horizon = this.horizon;
    while (this.marks.length > 0 && (this.marks[0] as { at: number }).at <= now - this.options.graceMs) {
      const mark = this.marks.shift() as { seq: bigint };
      if (mark.seq > horizon) horizon = mark.seq;
    }
    if (horizon === this.horizon) return;
    this.horizon = horizon;
    for (const seq of this.sent) if (BigInt(seq) <= horizon) this.sent.delete(seq);
  }
}
