// The one offset computation of every list and the statements of a page, without a database
// (table-driven).
import { expect } from 'chai';
import { countQuery, pageWindow, readPage, slicePage, windowQuery, type PageWindow } from '../../src/storage/paging.js';
import { forEachDialect, sqlCases, type SqlCase } from '../support/sql-cases.js';

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

// The statements every list sends: its window as a limit and an offset (none on the first page),
// and its total.
const WINDOWS: Array<SqlCase<PageWindow & { offset: number }>> = [
  [
    'the first page: a limit only',
    { limit: 20, offset: 0 },
    {
      sqlite: { sql: 'select `id` from `applications` order by `id` asc limit ?', bindings: [20] },
      mysql: { sql: 'select `id` from `applications` order by `id` asc limit ?', bindings: [20] },
    },
  ],
  [
    'the last safe offset',
    { limit: 1, offset: Number.MAX_SAFE_INTEGER - 1 },
    {
      sqlite: { sql: 'select `id` from `applications` order by `id` asc limit ? offset ?', bindings: [1, Number.MAX_SAFE_INTEGER - 1] },
      mysql: { sql: 'select `id` from `applications` order by `id` asc limit ? offset ?', bindings: [1, Number.MAX_SAFE_INTEGER - 1] },
    },
  ],
];

const TOTALS: Array<SqlCase<string>> = [
  [
    'COUNT(*) as total',
    'applications',
    {
      sqlite: { sql: 'select count(*) as `total` from `applications` where `deleted_at` is null', bindings: [] },
      mysql: { sql: 'select count(*) as `total` from `applications` where `deleted_at` is null', bindings: [] },
    },
  ],
];

describe('page statements: SQL and bindings per dialect', () => {
  describe('the window', () => sqlCases(WINDOWS, (knex, window) => windowQuery(knex('applications').select('id').orderBy('id'), window)));
  describe('the total', () => sqlCases(TOTALS, (knex, table) => countQuery(knex(table).whereNull('deleted_at'))));

  forEachDialect((knex) => {
    it('reads nothing past every row a table can hold, without asking the database (it has no connection here)', async () => {
      expect(await readPage(knex('applications'), pageWindow(2 ** 53, 1))).to.deep.equal([]);
      expect(await readPage(knex('applications'), pageWindow(3, 10), 20)).to.deep.equal([]);
    });
  });
});
