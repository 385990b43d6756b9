// Timestamps are stored as epoch milliseconds and shown as RFC 3339 UTC with milliseconds. The
// time bounds of requests are read in src/request/time-window.ts.

export function toIso(epochMs: number | string | null): string | null {
  return epochMs === null ? null : new Date(Number(epochMs)).toISOString();
}

export function toIsoRequired(epochMs: number | string): string {
  return new Date(Number(epochMs)).toISOString();
}
