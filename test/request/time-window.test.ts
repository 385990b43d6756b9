// The time window of requests (src/request/time-window.ts): RFC 3339 to exact nanoseconds
// (table-driven), to the ceiling millisecond, and the end-after-start rule.
import { expect } from 'chai';
import { RequestValidationError } from '../../src/errors.js';
import { rfc3339ToCeilingMillis, rfc3339ToNanos, timeWindow } from '../../src/request/time-window.js';

const CASES: Array<[string, bigint]> = [
  ['1970-01-01T00:00:00Z', 0n],
  ['2025-11-22T08:26:40Z', 1_763_800_000_000_000_000n],
  ['2025-11-22T08:26:40.123456789Z', 1_763_800_000_123_456_789n],
  ['2025-11-22T08:26:40.1Z', 1_763_800_000_100_000_000n],
  ['2025-11-22T08:26:40.1234567891234z', 1_763_800_000_123_456_789n],
  ['2025-11-22T10:26:40.000000001+02:00', 1_763_800_000_000_000_001n],
  ['2025-11-22T03:56:40-04:30', 1_763_800_000_000_000_000n],
  ['2025-11-22t08:26:40+0000', 1_763_800_000_000_000_000n],
  ['2025-11-22 08:26:40Z', 1_763_800_000_000_000_000n],
  ['0001-01-01T00:00:00Z', -62_135_596_800_000_000_000n],
  ['2016-12-31T23:59:60Z', 1_483_228_800_000_000_000n],
];

describe('time window', () => {
  for (const [text, nanos] of CASES) {
    it(`${text} → ${nanos}`, () => expect(rfc3339ToNanos(text)).to.equal(nanos));
  }

  for (const [text, millis] of [
    ['2025-11-22T08:26:40Z', 1_763_800_000_000],
    ['2025-11-22T08:26:40.000000001Z', 1_763_800_000_001],
    ['2025-11-22T08:26:40.001Z', 1_763_800_000_001],
    ['1969-12-31T23:59:59.9999999Z', 0],
  ] as Array<[string, number]>) {
    it(`${text} → ceiling millisecond ${millis}`, () => expect(rfc3339ToCeilingMillis(text)).to.equal(millis));
  }

  it('is a 422 at ["query"] for text that is no RFC 3339 date-time (the documents check it first)', () => {
    expect(() => rfc3339ToNanos('2025-11-22'))
      .to.throw(RequestValidationError)
      .with.property('issues')
      .that.deep.equals([{ loc: ['query'], msg: 'not an RFC 3339 date-time: 2025-11-22', type: 'datetime_parsing' }]);
  });

  it('keeps start inclusive / end exclusive bounds as given, and either may be left out', () => {
    expect(timeWindow({ start_time: '2025-11-22T08:26:40Z', end_time: '2025-11-22T08:26:40.000000001Z' })).to.deep.equal({
      startNs: 1_763_800_000_000_000_000n,
      endNs: 1_763_800_000_000_000_001n,
    });
    expect(timeWindow({})).to.deep.equal({ startNs: undefined, endNs: undefined });
    expect(timeWindow({ end_time: '1970-01-01T00:00:00Z' })).to.deep.equal({ startNs: undefined, endNs: 0n });
  });

  for (const [start_time, end_time] of [
    ['2025-11-22T08:26:40Z', '2025-11-22T08:26:40Z'],
    ['2025-11-22T08:26:40.000000001Z', '2025-11-22T08:26:40Z'],
    ['2025-11-22T10:26:40+02:00', '2025-11-22T08:26:40Z'],
  ]) {
    it(`is a 422 at ["query", "end_time"] for [${start_time}, ${end_time})`, () => {
      try {
        timeWindow({ start_time, end_time });
        throw new Error('accepted an empty window');
      } catch (error) {
        expect(error).to.be.instanceOf(RequestValidationError);
        expect((error as RequestValidationError).issues).to.deep.equal([
          {
            loc: ['query', 'end_time'],
            msg: 'end_time must be after start_time (the window is [start_time, end_time))',
            type: 'value_error',
          },
        ]);
      }
    });
  }
});
