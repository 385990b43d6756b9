// The live stream's event ids: the high-water receive sequence, then the ranges of sequences at
// or below it that the client has not been sent and that may still commit (a transaction open
// when the event was written), so that a stream resumed from the id on any instance sends those
// spans once they commit, and nothing twice.
//
// Written `<high-water>` alone when no range is open (the only form issued before the ranges,
// still accepted as it was), else `<high-water>_<range>,<range>...`, newest range first; a range
// is `<d>` or `<d>.<n>`: the `n` sequences (1 when left out) ending `d` below the high-water
// mark, both in base 36. The client sends the id back unread.
import { type SeqRange, MAX_STORED_INTEGER } from '../storage/spans/span-store.js';

export type { SeqRange };

export interface EventPosition {
  highWater: bigint;
  /** Ranges not sent, disjoint and below or at highWater, newest (highest) first. */
  unsent: SeqRange[];
}

/**
 * Most ranges one id names. An id stays short enough for any header (at most
 * MAX_EVENT_ID_LENGTH characters); when more ranges are open, the oldest are left out.
 */
export const MAX_ID_RANGES = 64;
export const MAX_EVENT_ID_LENGTH = 19 + 1 + MAX_ID_RANGES * 28;

const PLAIN = /^[0-9]{1,19}$/;
const RANGE = /^([0-9a-z]{1,13})(?:\.([0-9a-z]{1,13}))?$/;

function base36(text: string): bigint {
  let value = 0n;
  for (const digit of text) value = value * 36n + BigInt(parseInt(digit, 36));
  return value;
}

/** The id of an event after which `unsent` (newest first) was still owed; only the newest MAX_ID_RANGES are named. */
export function formatEventId(highWater: bigint, unsent: Iterable<SeqRange>): string {
  const parts: string[] = [];
  for (const range of unsent) {
    if (parts.length === MAX_ID_RANGES) break;
    const below = (highWater - range.high).toString(36);
    const count = range.high - range.low + 1n;
    parts.push(count === 1n ? below : `${below}.${count.toString(36)}`);
  }
  return parts.length === 0 ? highWater.toString() : `${highWater}_${parts.join(',')}`;
}

/**
 * Reads a Last-Event-ID; undefined when it is not one this service issues. A plain sequence past
 * the stored range resumes after the highest possible one, as it always did.
 */
export function parseEventId(text: string): EventPosition | undefined {
  const [head = '', tail, ...rest] = text.split('_');
  if (!PLAIN.test(head) || rest.length > 0) return undefined;
  const highWater = BigInt(head);
  if (tail === undefined) return { highWater: highWater > MAX_STORED_INTEGER ? MAX_STORED_INTEGER : highWater, unsent: [] };
  const parts = tail.split(',');
  if (highWater > MAX_STORED_INTEGER || parts.length > MAX_ID_RANGES) return undefined;
  const unsent: SeqRange[] = [];
  for (const part of parts) {
    const match = RANGE.exec(part);
    if (!match) return undefined;
    const high = highWater - base36(match[1] as string);
    const count = match[2] === undefined ? 1n : base36(match[2]);
    const low = high - count + 1n;
    const previous = unsent[unsent.length - 1];
    // Sequences start at 1; ranges are disjoint and newest first, as formatEventId writes them.
    if (count < 1n || low < 1n || (previous !== undefined && high >= previous.low)) return undefined;
    unsent.push({ low, high });
  }
  return { highWater, unsent };
}
