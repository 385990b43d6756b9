// Helpers for engine tests: RFC 3339 strings from exact nanoseconds, JSON parsing that keeps
// 19-digit *_unix_nano integers exact (as strings), and a relative closeness check.
import type { Knex } from 'knex';

/** `1763800000123456789n` → `2025-11-22T08:26:40.123456789Z`. */
export function nanosToRfc3339(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** JSON.parse, with every `*_unix_nano` integer read as its exact digits (a string). */
export function parseExact<T = any>(text: string): T {
  return JSON.parse(text.replace(/"([A-Za-z_]*_unix_nano)":(-?\d+)/g, '"$1":"$2"')) as T;
}

/** |actual − expected| within `relative` of the larger magnitude (or of `scale`, for values near 0). */
export function isClose(actual: number, expected: number, relative = 1e-9, scale = 0): boolean {
  return Math.abs(actual - expected) <= relative * Math.max(Math.abs(actual), Math.abs(expected), scale, 1e-300);
}

export async function clearSpans(knex: Knex, applicationId: string): Promise<void> {
  await knex('spans').where('application_id', applicationId).del();
  await knex('traces').where('application_id', applicationId).del();
}
