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
  const CASES: Array<[string, { kind: BudgetPeriodKind; at: string; want: [string, string]; before: [string, string] }]> = [
    [
      'a day, mid-day',
      {
        kind: 'day',
        at: '2026-11-23T09:14:58.123Z',
        want: ['2026-11-23T00:00:00.000Z', '2026-11-24T00:00:00.000Z'],
        before: ['2026-11-22T00:00:00.000Z', '2026-11-23T00:00:00.000Z'],
      },
    ],
    [
      'a day, at midnight exactly (the new day)',
      {
        kind: 'day',
        at: '2026-11-24T00:00:00.000Z',
        want: ['2026-11-24T00:00:00.000Z', '2026-11-25T00:00:00.000Z'],
        before: ['2026-11-23T00:00:00.000Z', '2026-11-24T00:00:00.000Z'],
      },
    ],
    [
      'a day, the last millisecond of a year',
      {
        kind: 'day',
        at: '2026-12-31T23:59:59.999Z',
        want: ['2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
        before: ['2026-12-30T00:00:00.000Z', '2026-12-31T00:00:00.000Z'],
      },
    ],
    [
      'a month, mid-month',
      {
        kind: 'month',
        at: '2026-11-23T09:14:58.000Z',
        want: ['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
        before: ['2026-10-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'],
      },
    ],
    [
      'a month, at the 1st 00:00 exactly',
      {
        kind: 'month',
        at: '2026-12-01T00:00:00.000Z',
        want: ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
        before: ['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
      },
    ],
    [
      'a month, January (the one before is the previous year’s December)',
      {
        kind: 'month',
        at: '2027-01-15T12:00:00.000Z',
        want: ['2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
        before: ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      },
    ],
    [
      'a month, March of a leap year (February has 29 days)',
      {
        kind: 'month',
        at: '2028-03-01T00:30:00.000Z',
        want: ['2028-03-01T00:00:00.000Z', '2028-04-01T00:00:00.000Z'],
        before: ['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
      },
    ],
  ];
  for (const [name, { kind, at: when, want, before }] of CASES) {
    it(name, () => {
      const period = periodAt(kind, at(when));
      expect([iso(period.startMs), iso(period.endMs)]).to.deep.equal(want);
      const previous = periodBefore(kind, period);
      expect([iso(previous.startMs), iso(previous.endMs)]).to.deep.equal(before);
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
