// The one offset computation of every list, without a database (table-driven).
import { expect } from 'chai';
import { pageWindow, slicePage } from '../../src/storage/paging.js';

const CASES: Array<[name: string, page: number, limit: number, offset: number | null]> = [
  ['the first page', 1, 20, 0],
  ['a later page', 3, 100, 200],
  ['a page past 2^53 - 1', 2 ** 53, 1, null],
  ['the last safe offset', Number.MAX_SAFE_INTEGER, 1, Number.MAX_SAFE_INTEGER - 1],
  ['an offset just below 2^53', 90_071_992_547_410, 100, 9_007_199_254_740_900],
  ['an offset past 2^53', 90_071_992_547_411, 100, null],
  ['2^63 - 1 (read as 2^63)', Number('9223372036854775807'), 1, null],
  ['2^63 × 100, which overflowed SQLite', Number('9223372036854775807'), 100, null],
  ['2^64', Number('18446744073709551616'), 37, null],
  ['1e23, which Knex read as an offset of 1', 1e23, 100, null],
];

describe('page window', () => {
  for (const [name, page, limit, offset] of CASES) {
    it(`${name}: page ${page}, limit ${limit} → offset ${offset}`, () => {
      expect(pageWindow(page, limit)).to.deep.equal({ limit, offset });
    });
  }

  it('slices a list in memory, and nothing past every row', () => {
    expect(slicePage(['a', 'b', 'c'], pageWindow(2, 2))).to.deep.equal(['c']);
    expect(slicePage(['a', 'b', 'c'], pageWindow(1e23, 2))).to.deep.equal([]);
  });
});
