// The analytics granularities: `auto` takes the finest width within 300 buckets; an explicit one
// is refused past 300; and the bucket count of a window.
import { expect } from 'chai';
import { bucketCount, resolveGranularity } from '../../src/traces/analytics.js';

const MINUTE = 60_000_000_000n;
const START = 1_763_800_000_123_456_789n;

describe('analytics granularity', () => {
  it('counts the buckets that cover a window, a partial last one included', () => {
    expect(bucketCount(START, START + 300n * MINUTE, MINUTE)).to.equal(300n);
    expect(bucketCount(START, START + 300n * MINUTE + 1n, MINUTE)).to.equal(301n);
    expect(bucketCount(START, START + 1n, MINUTE)).to.equal(1n);
  });

  const AUTO: Array<[window: bigint, granularity: string]> = [
    [MINUTE, 'minute'],
    [300n * MINUTE, 'minute'],
    [300n * MINUTE + 1n, 'five_minutes'],
    [1_500n * MINUTE + 1n, 'fifteen_minutes'],
    [24n * 60n * MINUTE, 'five_minutes'],
    [7n * 24n * 60n * MINUTE, 'hour'],
    [30n * 24n * 60n * MINUTE, 'day'],
    [300n * 24n * 60n * MINUTE, 'day'],
  ];
  for (const [window, granularity] of AUTO) {
    it(`auto over ${window / MINUTE} minutes (+${window % MINUTE} ns) is ${granularity}`, () =>
      expect(resolveGranularity('auto', START, START + window)?.granularity).to.equal(granularity));
  }

  it('refuses more than 300 buckets', () => {
    expect(resolveGranularity('auto', START, START + 300n * 24n * 60n * MINUTE + 1n)).to.equal(undefined);
    expect(resolveGranularity('minute', START, START + 301n * MINUTE)).to.equal(undefined);
    expect(resolveGranularity('hour', START, START + 300n * 60n * MINUTE)).to.deep.equal({ granularity: 'hour', widthNs: 60n * MINUTE });
  });
});
