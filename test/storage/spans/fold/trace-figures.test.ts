// The fine bins of the folded trace figures (src/storage/spans/fold/trace-figures.ts): the whole
// numbers a span or error count can be below 100 each have a bin of their own, so that the fold
// files them without rows; the groups a read sums them into never share a number with the
// groups of larger counts.
import { expect } from 'chai';
import {
  binOf,
  figureGroupOf,
  figureNumber,
  FIRST_SHARED_WHOLE_BIN,
  isSoleValueBin,
  TRACE_FIGURES,
} from '../../../../src/storage/spans/fold/trace-figures.js';

describe('trace figure bins', () => {
  const wholeNumbers = Array.from({ length: 100 }, (_, value) => value);

  it('gives each whole number from 0 to 99 a bin of its own, all below the first bin whole numbers share', () => {
    const bins = wholeNumbers.map(binOf);
    expect(new Set(bins).size).to.equal(100);
    expect(Math.max(...bins)).to.be.below(FIRST_SHARED_WHOLE_BIN);
    expect(binOf(100)).to.equal(FIRST_SHARED_WHOLE_BIN);
  });

  it('knows a bin holds one value for the span and error counts only, below 100', () => {
    for (const figure of TRACE_FIGURES) {
      const whole = figure === 'spans_count' || figure === 'error_count';
      expect(isSoleValueBin(figureNumber(figure), binOf(99)), figure).to.equal(whole);
      expect(isSoleValueBin(figureNumber(figure), binOf(100)), figure).to.equal(false);
    }
  });

  it('numbers the groups of a count apart: sole-value bins never meet the five-bin groups of larger counts', () => {
    const figure = figureNumber('spans_count');
    const small = new Set(wholeNumbers.map((value) => figureGroupOf(figure, binOf(value), 5)));
    const large = [100, 101, 1_000, 123_456, 2 ** 31, 2 ** 53, 2 ** 63].map((value) => figureGroupOf(figure, binOf(value), 5));
    expect(small.size).to.equal(100);
    expect(large.filter((group) => small.has(group))).to.deep.equal([]);
    expect(figureGroupOf(figureNumber('duration_ms'), binOf(99), 5)).to.equal(Math.trunc(binOf(99) / 5));
  });
});
