// The arithmetic of trace metrics, without a database: PERCENTILE_CONT positions in whole
// numbers, interpolation, and the zero answer.
import { expect } from 'chai';
import { percentileAt, traceMetrics } from '../../src/traces/trace-metrics.js';

describe('trace metrics arithmetic', () => {
  const values = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110];
  const valueAt = (rank: number) => values[rank] as number;
  const CASES: Array<[percent: number, count: number, want: number]> = [
    [50, 11, 60],
    [90, 11, 100], // 0.9 × 10 is exactly 9 here (a double product would say 9.000000000000002)
    [95, 11, 105],
    [99, 11, 109],
    [50, 2, 15],
    [99, 1, 10],
    [90, 4, 37],
  ];
  for (const [percent, count, want] of CASES) {
    it(`p${percent} of the first ${count} values is ${want}`, () =>
      expect(percentileAt(percent, count, valueAt)).to.be.closeTo(want, 1e-12));
  }

  it('interpolates above 1e8 without losing digits', () => {
    const big = [470_562_540, 999_999_999.5];
    expect(percentileAt(50, 2, (rank) => big[rank] as number)).to.equal(735_281_269.75);
  });

  it('answers zeros with no trace', () => {
    const zero = { mean: 0, median: 0, p50: 0, p90: 0, p95: 0, p99: 0, min: 0, max: 0, stddev: 0 };
    const empty = { mean: 0, stddev: 0, min: 0, max: 0, byRank: new Map<number, number>() };
    expect(traceMetrics({ count: 0, figures: { duration: empty, cost: empty, spans: empty } })).to.deep.equal({
      trace_count: 0,
      duration: zero,
      cost: zero,
      spans_per_trace: zero,
    });
  });
});
