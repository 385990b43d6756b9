// SQLite's regexp() (src/storage/sql/sqlite-regexp.ts), called as SQLite calls it, without a
// database: RE2's answer, NULL for NULL, and the time limit kept across the calls of one
// synchronous statement and reset once it has returned.
import { expect } from 'chai';
import { registerRegexp, type FunctionRegistry } from '../../../src/storage/sql/sqlite-regexp.js';
import { RegexTimeLimitExceeded } from '../../../src/storage/sql/regex-time-limit.js';

type Regexp = (pattern: unknown, text: unknown) => number | null;

function registered(limitMs: number): { regexp: Regexp; deterministic: boolean } {
  let found: { regexp: Regexp; deterministic: boolean } | undefined;
  const registry: FunctionRegistry = {
    function(name, options, implementation) {
      expect(name).to.equal('regexp');
      found = { regexp: implementation, deterministic: options.deterministic };
      return registry;
    },
  };
  registerRegexp(registry, limitMs);
  if (!found) throw new Error('nothing registered');
  return found;
}

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('SQLite regexp()', () => {
  it('answers as RE2: an unanchored, case-sensitive search; NULL for NULL', () => {
    const { regexp, deterministic } = registered(1000);
    expect(deterministic).to.equal(true);
    expect(regexp('b.', 'abc')).to.equal(1);
    expect(regexp('B', 'abc')).to.equal(0);
    expect(regexp('c$', 'abc\n')).to.equal(0);
    expect(regexp('^.$', '😀')).to.equal(1);
    expect(regexp('a', null)).to.equal(null);
  });

  it('throws past the limit within one statement, and starts afresh with the next one', async () => {
    const { regexp } = registered(20);
    expect(regexp('a', 'a')).to.equal(1);
    busyFor(30);
    expect(() => regexp('a', 'a')).to.throw(RegexTimeLimitExceeded, 'limit of 20 ms');
    await Promise.resolve();
    expect(regexp('a', 'a')).to.equal(1);
  });
});
