// Budget periods and thresholds without a database: UTC days and calendar months at their
// boundaries (leap years, year ends), the period before, and which thresholds a spend reaches.
import { expect } from 'chai';
import {
  percentOf,
  periodAt,
  periodBefore,
  thresholdsReached,
  type BudgetPeriodKind,
} from '../../../src/storage/budgets/budget-periods.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => Date.parse(text);

describe('budget periods', () => {
  // [name, kind, instant, the period's first day, the next period's first day, the previous period's first day]
  const CASES: Array<[string, BudgetPeriodKind, string, string, string, string]> = [
    ['a day, mid-day', 'day', '2026-11-23T09:14:58.123Z', '2026-11-23', '2026-11-24', '2026-11-22'],
    ['a day, at midnight exactly (the new day)', 'day', '2026-11-24T00:00:00.000Z', '2026-11-24', '2026-11-25', '2026-11-23'],
    ['a day, the last millisecond of a year', 'day', '2026-12-31T23:59:59.999Z', '2026-12-31', '2027-01-01', '2026-12-30'],
    ['a month, mid-month', 'month', '2026-11-23T09:14:58.000Z', '2026-11-01', '2026-12-01', '2026-10-01'],
    ['a month, at the 1st 00:00 exactly', 'month', '2026-12-01T00:00:00.000Z', '2026-12-01', '2027-01-01', '2026-11-01'],
    [
      'a month, January (the one before is the previous year’s December)',
      'month',
      '2027-01-15T12:00:00.000Z',
      '2027-01-01',
      '2027-02-01',
      '2026-12-01',
    ],
    ['a month, March of a leap year (February has 29 days)', 'month', '2028-03-01T00:30:00.000Z', '2028-03-01', '2028-04-01', '2028-02-01'],
  ];
  const midnight = (day: string) => `${day}T00:00:00.000Z`;
  for (const [name, kind, when, start, end, previousStart] of CASES) {
    it(name, () => {
      const period = periodAt(kind, at(when));
      expect([iso(period.startMs), iso(period.endMs)]).to.deep.equal([midnight(start), midnight(end)]);
      const previous = periodBefore(kind, period);
      expect([iso(previous.startMs), iso(previous.endMs)]).to.deep.equal([midnight(previousStart), midnight(start)]);
    });
  }
});

describe('budget thresholds reached', () => {
  const CASES: Array<[string, { spend: number; amount: number; thresholds: number[]; want: number[] }]> = [
    ['none below the first', { spend: 249.99, amount: 500, thresholds: [50, 80, 100], want: [] }],
    ['exactly the threshold reaches it', { spend: 250, amount: 500, thresholds: [50, 80, 100], want: [50] }],
    ['several at once, ascending', { spend: 500, amount: 500, thresholds: [50, 80, 100], want: [50, 80, 100] }],
    ['beyond 100 %', { spend: 1000, amount: 500, thresholds: [100, 150, 200, 1000], want: [100, 150, 200] }],
    // 0.1 + 0.2 summed as costs are: the amount to the last digits counts as reached.
    ['a sum of costs a rounding short of the amount', { spend: 0.1 + 0.2 - 1e-17, amount: 0.3, thresholds: [100], want: [100] }],
    ['a spend clearly short of the amount', { spend: 0.2999, amount: 0.3, thresholds: [100], want: [] }],
    ['no spend', { spend: 0, amount: 0.01, thresholds: [1], want: [] }],
  ];
  for (const [name, { spend, amount, thresholds, want }] of CASES) {
    it(name, () => {
      expect(thresholdsReached(spend, amount, thresholds)).to.deep.equal(want);
    });
  }

  it('answers the percent of the amount', () => {
    expect(percentOf(412.5, 500)).to.equal(82.5);
    expect(percentOf(0, 500)).to.equal(0);
  });
});
