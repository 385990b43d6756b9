// SQLite's `REGEXP` operator, which SQLite leaves to the application: `X REGEXP Y` calls
// regexp(Y, X), registered on every connection as RE2 (the re2js package), which runs in time
// linear in the text. Compiled patterns are kept in a small LRU. better-sqlite3 cannot interrupt
// a statement, so the function itself keeps the time limit: a statement runs synchronously, and
// every regexp call of one statement happens before the microtask queued at its first call runs,
// so the time since that first call is the time the statement has spent on its regex conditions.
import { RE2JS } from 're2js';
import { RegexTimeLimitExceeded } from './regex-time-limit.js';

/** The part of a better-sqlite3 connection this module uses. */
export interface FunctionRegistry {
  function(name: string, options: { deterministic: boolean }, implementation: (pattern: unknown, text: unknown) => number | null): unknown;
}

const CACHED_PATTERNS = 256;

/** Compiled patterns, least recently used first. */
class PatternCache {
  private readonly patterns = new Map<string, RE2JS>();

  get(pattern: string): RE2JS {
    let compiled = this.patterns.get(pattern);
    if (compiled) this.patterns.delete(pattern);
    else compiled = RE2JS.compile(pattern);
    this.patterns.set(pattern, compiled);
    if (this.patterns.size > CACHED_PATTERNS) this.patterns.delete(this.patterns.keys().next().value as string);
    return compiled;
  }
}

/** Registers regexp(pattern, text): 1 when RE2 finds the pattern in the text, 0 when not, NULL for a NULL text. */
export function registerRegexp(connection: FunctionRegistry, limitMs: number): void {
  const cache = new PatternCache();
  let statementStart: number | undefined;
  connection.function('regexp', { deterministic: true }, (pattern, text) => {
    if (text === null || text === undefined || pattern === null || pattern === undefined) return null;
    const now = performance.now();
    if (statementStart === undefined) {
      statementStart = now;
      queueMicrotask(() => {
        statementStart = undefined;
      });
    } else if (now - statementStart > limitMs) throw new RegexTimeLimitExceeded(limitMs);
    return cache.get(String(pattern)).test(String(text)) ? 1 : 0;
  });
}
