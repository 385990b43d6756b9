// What a live stream sends next, found by polling the receive sequence in storage (so spans
// committed through any instance reach every stream).
//
// A receive sequence is taken at insert, not at commit: a span can commit after spans with
// higher sequences were already sent. So besides the spans above the high-water mark, each poll
// re-checks a trailing window (horizon, high-water] for spans that committed late, and sends
// each of them once. The horizon moves up to a high-water mark once `graceMs` have passed since
// it was seen: a transaction still open that long is taken to have rolled back.
//
// A client that reconnects reaches a new feed, perhaps on another instance, which knows only the
// Last-Event-ID. So each event id names, besides the high-water mark, the sequences below it that
// were not sent and that no other application's span holds (live-event-id.ts): the ones an open
// transaction of this application may still commit. The resumed feed checks those (`carried`)
// for the grace period and sends each span of theirs once it commits; everything else at or below
// the high-water mark the client has had.
import type { LiveReads, StoredSpan } from '../storage/spans/span-store.js';
import { formatEventId, MAX_ID_RANGES, type EventPosition, type SeqRange } from './live-event-id.js';
import { SeqRanges } from './seq-ranges.js';

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export interface FeedOptions {
  /** How long a sequence below the high-water mark may still commit and be sent. */
  graceMs: number;
  /** Most new spans one poll reads. */
  batchSize: number;
  now?: () => number;
}

export interface FeedEvent {
  /** The SSE event id: the high-water mark and what is still owed below it, after this span. */
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
  /** Sequences in (horizon, highWater] not sent that held no other application's span when passed. */
  private readonly unsent = new SeqRanges();
  /** What the Last-Event-ID said was owed below the starting point; checked until `carriedUntil`. */
  private readonly carried: SeqRanges;
  private readonly carriedUntil: number;
  /** High-water marks and when they were reached, oldest first. */
  private readonly marks: Array<{ at: number; seq: bigint }> = [];
  private readonly now: () => number;

  private constructor(
    private readonly reads: LiveReads,
    start: bigint,
    carried: SeqRange[],
    private readonly options: FeedOptions,
  ) {
    this.horizon = start;
    this.highWater = start;
    this.now = options.now ?? Date.now;
    this.carried = new SeqRanges(carried);
    // Nothing says how long ago the ranges were owed: they get a whole grace period again.
    this.carriedUntil = this.now() + options.graceMs;
  }

  /**
   * Starts after the position of the last event seen when given (resuming), otherwise after the
   * latest span stored now: the stream carries the spans received after it opened.
   */
  static async open(reads: LiveReads, resumeAfter: EventPosition | undefined, options: FeedOptions): Promise<LiveSpanFeed> {
    if (resumeAfter) return new LiveSpanFeed(reads, resumeAfter.highWater, resumeAfter.unsent, options);
    return new LiveSpanFeed(reads, BigInt(await reads.latestSeq()), [], options);
  }

  /** True when the last poll filled a whole batch: more may be waiting, poll again at once. */
  behind = false;

  /** One poll: the events to send now, in order. */
  async next(): Promise<FeedEvent[]> {
    const events: FeedEvent[] = [];
    const sendLate = (span: StoredSpan) => {
      this.unsent.delete(BigInt(span.seq));
      this.carried.delete(BigInt(span.seq));
      events.push({ id: this.eventId(), span });
    };
    if (this.carried.size > 0 && this.now() >= this.carriedUntil) this.carried.clear();
    if (this.carried.size > 0) {
      for (const span of await this.reads.spansInRanges(this.carried.covering(MAX_ID_RANGES)))
        if (this.carried.has(BigInt(span.seq))) sendLate(span);
    }
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
          this.sent.add(span.seq);
          sendLate(span);
        }
        missing -= late.length;
        if (seqs.length < MAX_WINDOW_SCAN) break;
        from = seqs[seqs.length - 1] as string;
      }
    }
    const fresh = await this.reads.spansAfter(this.highWater.toString(), this.options.batchSize);
    // Read after the fresh spans, so a span of this application that commits in between is owed,
    // not taken for another's.
    const unclaimed =
      fresh.length > 0 ? await this.reads.unclaimedBetween(this.highWater.toString(), (fresh[fresh.length - 1] as StoredSpan).seq) : [];
    let next = 0;
    for (const span of fresh) {
      const seq = BigInt(span.seq);
      for (; next < unclaimed.length && (unclaimed[next] as SeqRange).low < seq; next += 1) {
        const range = unclaimed[next] as SeqRange;
        const low = max(range.low, this.highWater + 1n);
        const high = min(range.high, seq - 1n);
        if (low <= high) this.unsent.addAbove({ low, high });
        if (range.high > seq) break;
      }
      this.sent.add(span.seq);
      this.highWater = seq;
      events.push({ id: this.eventId(), span });
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
    this.unsent.dropThrough(horizon);
  }

  private *owed(): Generator<SeqRange> {
    yield* this.unsent.newestFirst();
    yield* this.carried.newestFirst();
  }

  private eventId(): string {
    return formatEventId(this.highWater, this.owed());
  }
}
