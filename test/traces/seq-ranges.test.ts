// The set of owed receive sequences, as ranges: sequences taken away one at a time, the window
// moving up, and the few ranges that cover the set for one read.
import { expect } from 'chai';
import { SeqRanges } from '../../src/traces/seq-ranges.js';

const r = (low: number, high: number) => ({ low: BigInt(low), high: BigInt(high) });

describe('sequence ranges', () => {
  it('joins a range that continues the last one, and refuses one that is not above', () => {
    const set = new SeqRanges();
    set.addAbove(r(1, 3));
    set.addAbove(r(4, 5));
    set.addAbove(r(8, 8));
    expect(set.list()).to.deep.equal([r(1, 5), r(8, 8)]);
    expect(() => set.addAbove(r(8, 9))).to.throw(/not above/);
  });

  const DELETES: Array<[string, { seq: number; want: Array<{ low: bigint; high: bigint }> }]> = [
    ['the low end', { seq: 10, want: [r(11, 14), r(20, 20)] }],
    ['the high end', { seq: 14, want: [r(10, 13), r(20, 20)] }],
    ['the middle, splitting the range', { seq: 12, want: [r(10, 11), r(13, 14), r(20, 20)] }],
    ['a range of one', { seq: 20, want: [r(10, 14)] }],
    ['a sequence not held', { seq: 17, want: [r(10, 14), r(20, 20)] }],
  ];
  for (const [name, { seq, want }] of DELETES) {
    it(`takes away ${name}`, () => {
      const set = new SeqRanges([r(20, 20), r(10, 14)]);
      set.delete(BigInt(seq));
      expect(set.list()).to.deep.equal(want);
      expect(set.has(BigInt(seq))).to.equal(false);
    });
  }

  it('drops everything at or below the horizon, cutting a range it falls in', () => {
    const set = new SeqRanges([r(1, 2), r(5, 9), r(12, 12)]);
    set.dropThrough(6n);
    expect(set.list()).to.deep.equal([r(7, 9), r(12, 12)]);
    expect([...set.newestFirst()]).to.deep.equal([r(12, 12), r(7, 9)]);
  });

  it('covers the set with at most a given number of ranges, joining across the smallest gaps', () => {
    const set = new SeqRanges([r(1, 1), r(3, 3), r(10, 10), r(12, 12), r(40, 41)]);
    expect(set.covering(5)).to.deep.equal(set.list());
    expect(set.covering(3)).to.deep.equal([r(1, 3), r(10, 12), r(40, 41)]);
    expect(set.covering(1)).to.deep.equal([r(1, 41)]);
  });
});
