// A set of receive sequences kept as disjoint ranges in ascending order: what a live stream still
// owes its client below the high-water mark. Ranges are added above every one held, and taken
// away one sequence at a time (a span sent) or from below (the late-commit window moving up).
import type { SeqRange } from './live-event-id.js';

export class SeqRanges {
  private readonly ranges: SeqRange[] = [];

  constructor(ranges: Iterable<SeqRange> = []) {
    for (const range of [...ranges].sort((a, b) => (a.low < b.low ? -1 : 1))) this.addAbove(range);
  }

  get size(): number {
    return this.ranges.length;
  }

  /** Adds a range above every one held. */
  addAbove(range: SeqRange): void {
    const last = this.ranges[this.ranges.length - 1];
    if (last && last.high >= range.low) throw new Error(`sequence range ${range.low}..${range.high} is not above ${last.high}`);
    if (last && last.high + 1n === range.low) last.high = range.high;
    else this.ranges.push({ ...range });
  }

  has(seq: bigint): boolean {
    const index = this.indexOf(seq);
    return index >= 0;
  }

  delete(seq: bigint): void {
    const index = this.indexOf(seq);
    if (index < 0) return;
    const range = this.ranges[index] as SeqRange;
    if (range.low === range.high) this.ranges.splice(index, 1);
    else if (seq === range.low) range.low += 1n;
    else if (seq === range.high) range.high -= 1n;
    else this.ranges.splice(index, 1, { low: range.low, high: seq - 1n }, { low: seq + 1n, high: range.high });
  }

  /** Forgets every sequence at or below `seq`. */
  dropThrough(seq: bigint): void {
    let drop = 0;
    while (drop < this.ranges.length && (this.ranges[drop] as SeqRange).high <= seq) drop += 1;
    this.ranges.splice(0, drop);
    const first = this.ranges[0];
    if (first && first.low <= seq) first.low = seq + 1n;
  }

  clear(): void {
    this.ranges.length = 0;
  }

  /** The ranges, highest first. */
  *newestFirst(): Generator<SeqRange> {
    for (let index = this.ranges.length - 1; index >= 0; index -= 1) yield this.ranges[index] as SeqRange;
  }

  /**
   * At most `limit` ranges, lowest first, that cover every sequence held (and perhaps some
   * between): neighbours across the smallest gaps are joined, so a read stays one short statement.
   */
  covering(limit: number): SeqRange[] {
    const ranges = this.list();
    while (ranges.length > limit) {
      let join = 0;
      for (let index = 1; index < ranges.length - 1; index += 1) {
        const gap = (ranges[index + 1] as SeqRange).low - (ranges[index] as SeqRange).high;
        if (gap < (ranges[join + 1] as SeqRange).low - (ranges[join] as SeqRange).high) join = index;
      }
      const [first, second] = ranges.splice(join, 2) as [SeqRange, SeqRange];
      ranges.splice(join, 0, { low: first.low, high: second.high });
    }
    return ranges;
  }

  /** The ranges, lowest first (copies). */
  list(): SeqRange[] {
    return this.ranges.map((range) => ({ ...range }));
  }

  private indexOf(seq: bigint): number {
    let low = 0;
    let high = this.ranges.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const range = this.ranges[middle] as SeqRange;
      if (seq < range.low) high = middle - 1;
      else if (seq > range.high) low = middle + 1;
      else return middle;
    }
    return -1;
  }
}
