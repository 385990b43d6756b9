// The ranges of spend roll-up rows a read asks for (src/storage/spend/spend-ranges.ts), table-driven.
import { expect } from 'chai';
import { dayStartNs, spendRanges } from '../../../src/storage/spend/spend-ranges.js';

const at = (iso: string): bigint => BigInt(Date.parse(iso)) * 1_000_000n;
type Want = Array<[width: 'hour' | 'day', from: string, to: string]>;

const CASES: Array<[name: string, { given: string[]; want: Want }]> = [
  [
    'a month and the month before: day rows only, joined',
    {
      given: ['2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z'],
      want: [['day', '2026-10-01T00:00:00Z', '2026-12-01T00:00:00Z']],
    },
  ],
  [
    'a custom window on ragged hours: hours at both ends of each window, the hours around its start joined',
    {
      given: ['2026-10-26T19:00:00Z', '2026-11-03T05:00:00Z', '2026-11-10T15:00:00Z'],
      want: [
        ['hour', '2026-10-26T19:00:00Z', '2026-10-27T00:00:00Z'],
        ['day', '2026-10-27T00:00:00Z', '2026-11-03T00:00:00Z'],
        ['hour', '2026-11-03T00:00:00Z', '2026-11-04T00:00:00Z'],
        ['day', '2026-11-04T00:00:00Z', '2026-11-10T00:00:00Z'],
        ['hour', '2026-11-10T00:00:00Z', '2026-11-10T15:00:00Z'],
      ],
    },
  ],
  [
    'windows inside a day, or across one midnight without a whole day: hours only',
    {
      given: ['2026-11-02T01:00:00Z', '2026-11-02T09:00:00Z', '2026-11-03T04:00:00Z'],
      want: [['hour', '2026-11-02T01:00:00Z', '2026-11-03T04:00:00Z']],
    },
  ],
  [
    'a window ending on a midnight, the next starting on it',
    {
      given: ['2026-11-01T22:00:00Z', '2026-11-03T00:00:00Z', '2026-11-04T03:00:00Z'],
      want: [
        ['hour', '2026-11-01T22:00:00Z', '2026-11-02T00:00:00Z'],
        ['day', '2026-11-02T00:00:00Z', '2026-11-04T00:00:00Z'],
        ['hour', '2026-11-04T00:00:00Z', '2026-11-04T03:00:00Z'],
      ],
    },
  ],
  [
    'before 1970: days floored',
    {
      given: ['1969-12-30T12:00:00Z', '1970-01-01T00:00:00Z'],
      want: [
        ['hour', '1969-12-30T12:00:00Z', '1969-12-31T00:00:00Z'],
        ['day', '1969-12-31T00:00:00Z', '1970-01-01T00:00:00Z'],
      ],
    },
  ],
  ['one boundary: nothing', { given: ['2026-11-01T00:00:00Z'], want: [] }],
];

describe('spendRanges', () => {
  for (const [name, { given, want }] of CASES)
    it(name, () => {
      expect(spendRanges(given.map(at))).to.deep.equal(
        want.map(([width, from, to]) => ({ widthS: width === 'hour' ? 3600 : 86_400, fromNs: at(from), toNs: at(to) })),
      );
    });

  it('floors a time to its UTC day, also before 1970', () => {
    expect(dayStartNs(at('2026-11-02T05:00:00Z'))).to.equal(at('2026-11-02T00:00:00Z'));
    expect(dayStartNs(at('2026-11-02T00:00:00Z'))).to.equal(at('2026-11-02T00:00:00Z'));
    expect(dayStartNs(at('1969-12-31T05:00:00Z'))).to.equal(at('1969-12-31T00:00:00Z'));
  });
});
