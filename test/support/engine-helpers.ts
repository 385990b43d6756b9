// Helpers for engine tests: RFC 3339 strings from exact nanoseconds, JSON parsing that keeps
// 19-digit *_unix_nano integers exact (as strings), and a relative closeness check.
import type { Knex } from 'knex';
import type { components } from '../../src/generated/engine.js';
import { SPAN_TABLES } from '../../src/storage/page-compression.js';

export type EngineSchemas = components['schemas'];

/** A response body as parseExact reads it: every `*_unix_nano` integer as its exact digits. */
export type ExactNanos<T> =
  T extends Array<infer Item>
    ? Array<ExactNanos<Item>>
    : T extends object
      ? { [K in keyof T]: K extends `${string}_unix_nano` ? string : ExactNanos<T[K]> }
      : T;

/** The 200 body of each engine read, typed from the engine document, as parseExact reads it. */
export interface EngineReadBodies {
  '/engine/query': ExactNanos<EngineSchemas['SpanQueryResponse']>;
  '/traces': ExactNanos<EngineSchemas['TraceListResponse']>;
  '/engine/metrics': EngineSchemas['TraceMetrics'];
  '/traces/live': ExactNanos<EngineSchemas['LiveSpanListResponse']>;
}
export type EngineReadPath = keyof EngineReadBodies;

/** `1763800000123456789n` → `2025-11-22T08:26:40.123456789Z`. */
export function nanosToRfc3339(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** JSON.parse, with every `*_unix_nano` integer read as its exact digits (a string). */
export function parseExact<T>(text: string): ExactNanos<T> {
  return JSON.parse(text.replace(/"([A-Za-z_]*_unix_nano)":(-?\d+)/g, '"$1":"$2"')) as ExactNanos<T>;
}

/** The 200 body of an engine read (`path`), typed from the document. */
export function parseEngineRead<P extends EngineReadPath>(_path: P, text: string): EngineReadBodies[P] {
  return parseExact<unknown>(text) as EngineReadBodies[P];
}

/** |actual − expected| within `relative` of the larger magnitude (or of `scale`, for values near 0). */
export function isClose(actual: number, expected: number, relative = 1e-9, scale = 0): boolean {
  return Math.abs(actual - expected) <= relative * Math.max(Math.abs(actual), Math.abs(expected), scale, 1e-300);
}

/**
 * `actual` deep-equals `expected`, numbers within `relative` (isClose): two answers summed in
 * another order differ in their last bits (docs/analytics.md). Throws naming the first path.
 */
export function expectDeepClose(actual: unknown, expected: unknown, where: string, relative = 1e-9, path = '$'): void {
  if (typeof actual === 'number' && typeof expected === 'number') {
    if (!isClose(actual, expected, relative, relative)) throw new Error(`${where}: ${path} is ${actual}, expected ${expected}`);
    return;
  }
  if (actual === null || expected === null || typeof actual !== 'object' || typeof expected !== 'object') {
    if (actual !== expected) throw new Error(`${where}: ${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    return;
  }
  if (Array.isArray(actual) !== Array.isArray(expected)) throw new Error(`${where}: ${path} is not of the expected kind`);
  const [a, e] = [actual as Record<string, unknown>, expected as Record<string, unknown>];
  const keys = [Object.keys(a).sort(), Object.keys(e).sort()];
  if (keys[0].join() !== keys[1].join()) throw new Error(`${where}: ${path} has keys ${keys[0].join()}, expected ${keys[1].join()}`);
  for (const key of keys[0]) expectDeepClose(a[key], e[key], where, relative, `${path}.${key}`);
}

export async function clearSpans(knex: Knex, applicationId: string): Promise<void> {
  // The spans and every table derived from them.
  for (const table of SPAN_TABLES) await knex(table).where('application_id', applicationId).del();
  // Nothing purged any more: the roll-ups may answer every window again.
  await knex('applications').where('id', applicationId).update({ spans_purged_before: null });
}
