// Timestamps are stored as epoch milliseconds and shown as RFC 3339 UTC with milliseconds. The
// time bounds of requests are read in src/request/time-window.ts.

export function toIso(epochMs: number | string | null): string | null {
  return epochMs === null ? null : new Date(Number(epochMs)).toISOString();
}

export function toIsoRequired(epochMs: number | string): string {
  return new Date(Number(epochMs)).toISOString();
}

/** A time stored in Unix nanoseconds (a span time, a re-pricing window) as RFC 3339 UTC: milliseconds, or nanoseconds when finer digits are set. */
export function nanosToIso(ns: bigint): string {
  const millis = ns / 1_000_000n - (ns % 1_000_000n < 0n ? 1n : 0n);
  const below = ns - millis * 1_000_000n;
  const iso = new Date(Number(millis)).toISOString();
  return below === 0n ? iso : `${iso.slice(0, -1)}${below.toString().padStart(6, '0')}Z`;
}
