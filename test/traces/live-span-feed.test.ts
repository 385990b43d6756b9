// The live feed's polling logic against a fake storage whose commits can come out of sequence
// order (as AUTO_INCREMENT values are taken at insert, not at commit), and its event ids: a
// feed resumed from any of them sends what was still owed, once.
import { expect } from 'chai';
import { parseEventId } from '../../src/traces/live-event-id.js';
import { LiveSpanFeed, MAX_WINDOW_SCAN } from '../../src/traces/live-span-feed.js';
import type { LiveReads, StoredSpan } from '../../src/storage/spans/span-store.js';

class FakeStorage {
  readonly committed = new Set<number>();
  /** Sequences held by another application's spans. */
  readonly others = new Set<number>();
  reads(): LiveReads {
    const sorted = () => [...this.committed].sort((a, b) => a - b);
    const span = (seq: number) => ({ seq: String(seq), span_name: `s${seq}` }) as StoredSpan;
    return {
      latestSeq: async () => String(Math.max(0, ...this.committed)),
      seqsBetween: async (after, upTo, limit) =>
        sorted()
          .filter((seq) => seq > Number(after) && seq <= Number(upTo))
          .slice(0, limit)
          .map(String),
      countBetween: async (after, upTo) => sorted().filter((seq) => seq > Number(after) && seq <= Number(upTo)).length,
      spansBySeq: async (seqs) =>
        seqs
          .map(Number)
          .filter((seq) => this.committed.has(seq))
          .sort((a, b) => a - b)
          .map(span),
      spansAfter: async (after, limit) =>
        sorted()
          .filter((seq) => seq > Number(after))
          .slice(0, limit)
          .map(span),
      unclaimedBetween: async (after, upTo) => {
        const ranges: Array<{ low: bigint; high: bigint }> = [];
        for (let seq = Number(after) + 1; seq <= Number(upTo); seq += 1) {
          if (this.others.has(seq)) continue;
          const last = ranges[ranges.length - 1];
          if (last && last.high === BigInt(seq - 1)) last.high = BigInt(seq);
          else ranges.push({ low: BigInt(seq), high: BigInt(seq) });
        }
        return ranges;
      },
      spansInRanges: async (ranges) =>
        sorted()
          .filter((seq) => ranges.some((range) => BigInt(seq) >= range.low && BigInt(seq) <= range.high))
          .map(span),
    };
  }
  commit(...seqs: number[]) {
    for (const seq of seqs) this.committed.add(seq);
  }
}

const sent = (events: Array<{ id: string; span: StoredSpan }>) => events.map((event) => [event.id, event.span.seq]);

describe('live span feed', () => {
  let now = 0;
  const options = { graceMs: 60_000, batchSize: 3, now: () => now };

  it('starts after the latest stored span and sends each new span once, by sequence', async () => {
    const storage = new FakeStorage();
    storage.commit(1, 2, 3);
    const feed = await LiveSpanFeed.open(storage.reads(), undefined, options);
    expect(await feed.next()).to.deep.equal([]);
    storage.commit(4, 5);
    expect(sent(await feed.next())).to.deep.equal([
      ['4', '4'],
      ['5', '5'],
    ]);
    expect(await feed.next()).to.deep.equal([]);
  });

  it('sends a span that commits after a higher sequence was sent, under the high-water id', async () => {
    const storage = new FakeStorage();
    storage.commit(10);
    const feed = await LiveSpanFeed.open(storage.reads(), undefined, options);
    storage.commit(12); // 11 is taken but not committed yet
    expect(sent(await feed.next())).to.deep.equal([['12_1', '12']]); // 11 still owed
    now += 30_000;
    storage.commit(11, 13);
    expect(sent(await feed.next())).to.deep.equal([
      ['12', '11'],
      ['13', '13'],
    ]);
    expect(await feed.next()).to.deep.equal([]);
  });

  it('gives up on a sequence once the grace period has passed', async () => {
    const storage = new FakeStorage();
    const feed = await LiveSpanFeed.open(storage.reads(), undefined, options);
    storage.commit(2);
    expect(sent(await feed.next())).to.deep.equal([['2_1', '2']]);
    now += 61_000;
    await feed.next(); // the horizon passes 2: sequence 1 is taken to have rolled back
    storage.commit(1);
    expect(await feed.next()).to.deep.equal([]);
  });

  it('finds a late span behind more than one chunk of sent sequences in the grace window', async () => {
    const storage = new FakeStorage();
    const feed = await LiveSpanFeed.open(storage.reads(), undefined, { ...options, batchSize: MAX_WINDOW_SCAN + 100 });
    const late = MAX_WINDOW_SCAN + 5;
    for (let seq = 1; seq <= MAX_WINDOW_SCAN + 10; seq += 1) if (seq !== late) storage.commit(seq);
    expect(await feed.next()).to.have.length(MAX_WINDOW_SCAN + 9);
    storage.commit(late);
    expect(sent(await feed.next())).to.deep.equal([[String(MAX_WINDOW_SCAN + 10), String(late)]]);
    expect(await feed.next()).to.deep.equal([]);
  });

  it('resumes after Last-Event-ID in batches, saying when it is behind', async () => {
    const storage = new FakeStorage();
    storage.commit(1, 2, 3, 4, 5, 6, 7, 8);
    const feed = await LiveSpanFeed.open(storage.reads(), parseEventId('2'), options);
    expect(sent(await feed.next()).map(([, seq]) => seq)).to.deep.equal(['3', '4', '5']);
    expect(feed.behind).to.equal(true);
    expect(sent(await feed.next()).map(([, seq]) => seq)).to.deep.equal(['6', '7', '8']);
    expect(sent(await feed.next())).to.deep.equal([]);
    expect(feed.behind).to.equal(false);
  });

  it('names in its ids what is owed below the high-water mark, leaving out sequences of other applications', async () => {
    const storage = new FakeStorage();
    storage.commit(10);
    const feed = await LiveSpanFeed.open(storage.reads(), undefined, options);
    // 11 and 12 are another application's; 13-15 and 17 are open transactions of this one.
    storage.others.add(11).add(12);
    storage.commit(16, 18);
    expect(sent(await feed.next())).to.deep.equal([
      ['16_1.3', '16'],
      ['18_1,3.3', '18'],
    ]);
    storage.commit(14);
    expect(sent(await feed.next())).to.deep.equal([['18_1,3,5', '14']]);
  });

  it('resumed from an id, sends each owed span once it commits and nothing the client had', async () => {
    const storage = new FakeStorage();
    storage.commit(10);
    const first = await LiveSpanFeed.open(storage.reads(), undefined, options);
    storage.commit(12, 13, 16);
    const events = await first.next();
    expect(sent(events)).to.deep.equal([
      ['12_1', '12'],
      ['13_2', '13'],
      ['16_1.2,5', '16'],
    ]);
    // The client got up to 13: 11 was owed then, 14-16 are above it.
    const resumed = await LiveSpanFeed.open(storage.reads(), parseEventId(events[1]?.id as string), options);
    expect(sent(await resumed.next())).to.deep.equal([['16_1.2,5', '16']]);
    storage.commit(11, 15);
    expect(sent(await resumed.next())).to.deep.equal([
      ['16_1.2', '11'],
      ['16_2', '15'],
    ]);
    expect(await resumed.next()).to.deep.equal([]);
  });

  it('resumed, gives up on owed sequences a grace period after it opened', async () => {
    const storage = new FakeStorage();
    const feed = await LiveSpanFeed.open(storage.reads(), parseEventId('20_1.5'), options);
    now += 61_000;
    storage.commit(17);
    expect(await feed.next()).to.deep.equal([]);
  });
});
