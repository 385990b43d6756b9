// What the live view shows: the newest spans first, at most LIVE_ROW_LIMIT of them. Paused, the
// stream stays connected and new spans are held aside (and counted) instead of shown; resuming
// puts them on top, so nothing that arrived during the pause is lost from view (beyond the limit,
// the oldest go first, as they would have without the pause).
import type { LiveEvent } from './live-stream';

export const LIVE_ROW_LIMIT = 500;

export interface LiveList {
  /** Shown, newest first. */
  rows: LiveEvent[];
  /** Arrived while paused, newest first (at most LIVE_ROW_LIMIT). */
  held: LiveEvent[];
  /** How many arrived while paused (may exceed what `held` keeps). */
  heldCount: number;
  paused: boolean;
}

export const EMPTY_LIVE_LIST: LiveList = { rows: [], held: [], heldCount: 0, paused: false };

/** Events in receive order, put newest first on top of `list`, keeping at most `limit`. */
function prepend(list: LiveEvent[], events: LiveEvent[], limit: number): LiveEvent[] {
  return [...events.slice().reverse(), ...list].slice(0, limit);
}

export function receive(list: LiveList, events: LiveEvent[], limit = LIVE_ROW_LIMIT): LiveList {
  if (list.paused) return { ...list, held: prepend(list.held, events, limit), heldCount: list.heldCount + events.length };
  return { ...list, rows: prepend(list.rows, events, limit) };
}

export function pause(list: LiveList): LiveList {
  return { ...list, paused: true };
}

export function resume(list: LiveList, limit = LIVE_ROW_LIMIT): LiveList {
  return { rows: [...list.held, ...list.rows].slice(0, limit), held: [], heldCount: 0, paused: false };
}
