// The live stream's event ids, table-driven: what each position is written as, that every id
// written reads back as its position, and which Last-Event-ID values are refused.
import { expect } from 'chai';
import { formatEventId, MAX_EVENT_ID_LENGTH, MAX_ID_RANGES, parseEventId, type SeqRange } from '../../src/traces/live-event-id.js';
import { MAX_STORED_INTEGER } from '../../src/storage/spans/time-bounds.js';

const r = (low: number | bigint, high: number | bigint): SeqRange => ({ low: BigInt(low), high: BigInt(high) });

const WRITTEN: Array<[string, { highWater: bigint; unsent: SeqRange[]; want: string }]> = [
  ['nothing owed: the plain sequence, as ids always were', { highWater: 1042n, unsent: [], want: '1042' }],
  ['one sequence owed, one below', { highWater: 1042n, unsent: [r(1041, 1041)], want: '1042_1' }],
  [
    'runs newest first, distances and lengths in base 36',
    { highWater: 1042n, unsent: [r(1040, 1041), r(1000, 1035)], want: '1042_1.2,7.10' },
  ],
  [
    'the largest sequence',
    { highWater: MAX_STORED_INTEGER, unsent: [r(1, 1)], want: `${MAX_STORED_INTEGER}_${(MAX_STORED_INTEGER - 1n).toString(36)}` },
  ],
];

const REFUSED: Array<[string, string]> = [
  ['not a number', 'abc'],
  ['twenty digits', '1'.repeat(20)],
  ['an empty list of runs', '10_'],
  ['a run below sequence 1', '10_9.2'],
  ['a run of no sequence', '10_1.0'],
  ['runs out of order', '10_5,1'],
  ['overlapping runs', '10_1.3,2'],
  ['upper case', '10_A'],
  ['a second separator', '10_1_2'],
  ['runs above the stored range', `${MAX_STORED_INTEGER + 1n}_1`],
  ['more runs than an id names', `1000_${Array.from({ length: MAX_ID_RANGES + 1 }, (_, index) => String(index * 2 + 1)).join(',')}`],
];

describe('live event ids', () => {
  for (const [name, { highWater, unsent, want }] of WRITTEN) {
    it(`writes ${name}, and reads it back`, () => {
      expect(formatEventId(highWater, unsent)).to.equal(want);
      expect(parseEventId(want)).to.deep.equal({ highWater, unsent });
    });
  }

  it('names only the newest MAX_ID_RANGES runs, within MAX_EVENT_ID_LENGTH', () => {
    const runs = Array.from({ length: MAX_ID_RANGES + 10 }, (_, index) =>
      r(MAX_STORED_INTEGER - BigInt(3 * index) - 2n, MAX_STORED_INTEGER - BigInt(3 * index) - 1n),
    );
    const id = formatEventId(MAX_STORED_INTEGER, runs);
    expect(parseEventId(id)?.unsent).to.deep.equal(runs.slice(0, MAX_ID_RANGES));
    const widest = formatEventId(
      MAX_STORED_INTEGER,
      Array.from({ length: MAX_ID_RANGES }, (_, index) => r(BigInt(index + 1), BigInt(index + 1))).reverse(),
    );
    expect(widest.length).to.be.at.most(MAX_EVENT_ID_LENGTH);
  });

  it('reads a plain sequence past the stored range as the largest one (resuming after everything)', () => {
    expect(parseEventId('9'.repeat(19))).to.deep.equal({ highWater: MAX_STORED_INTEGER, unsent: [] });
  });

  for (const [name, text] of REFUSED) {
    it(`refuses ${name}`, () => expect(parseEventId(text)).to.equal(undefined));
  }
});
