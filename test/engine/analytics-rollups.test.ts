// The roll-ups behind POST /engine/analytics (src/storage/spans/rollups/rollup-reads.ts) on every
// database: an eligible request is answered from span_rollups (shown by changing a stored roll-up
// and seeing the answer follow, while an ineligible one keeps reading the spans); the retention
// purger takes its spans out of the roll-ups and a bucket it cut is read from the spans until it
// is gone; a re-sent batch is counted once.
import { expect } from 'chai';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { purgeBatch } from '../../src/storage/spans/writes/span-purge.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { clearSpans, nanosToRfc3339 } from '../support/engine-helpers.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

const MINUTE = 60_000_000_000n;
const HOUR = 60n * MINUTE;
/** On the hour. */
const START = 1_763_798_400_000_000_000n;

// [service, offset from START, cost]
const SPANS: Array<[string, bigint, number | null]> = [
  ['llm', 10_000_000_000n, 1],
  ['llm', 50_000_000_000n, 2],
  ['llm', MINUTE + 5n, 4],
  ['db', 30_000_000_000n, null],
  ['db', HOUR + MINUTE, 8],
];

function rows(applicationId: string): SpanRow[] {
  return SPANS.map(([service, offset, cost], index) => {
    const start = START + offset;
    return spanRow({
      application_id: applicationId,
      trace_id: `${index + 1}`.padStart(32, '0'),
      span_id: `${index + 1}`.padStart(16, '0'),
      start_time_unix_nano: start.toString(),
      end_time_unix_nano: (start + 5_000_000n).toString(),
      duration_ms: 5,
      service_name: service,
      cost,
    });
  });
}

type Point = { bucket_start_unix_nano: number; values: Array<number | null> };

onEachDatabase('POST /engine/analytics from the roll-ups', (app) => {
  let caller: EngineCaller;
  const knex = () => app().server.knex;

  before(async () => {
    caller = await engineCaller(app());
  });

  beforeEach(async () => {
    await clearSpans(knex(), caller.appId);
  });

  /** count and sum(cost) per service per hour over [start, end). */
  async function perService(start: bigint, end: bigint, extra: unknown[] = []): Promise<Record<string, Point[]>> {
    const response = await call(app().url, 'POST', '/engine/analytics', {
      query: { start_time: nanosToRfc3339(start), end_time: nanosToRfc3339(end) },
      headers: caller.headers,
      json: {
        grain: 'spans',
        group_by: ['service_name'],
        granularity: 'hour',
        measures: [{ fn: 'count' }, { fn: 'sum', field: 'cost' }, ...extra],
      },
    });
    expect(response.status, response.text).to.equal(200);
    const body = JSON.parse(response.text) as { groups: Array<{ key: { service_name: string }; points: Point[] }> };
    return Object.fromEntries(
      body.groups.map((group) => [group.key.service_name, group.points.map((point) => ({ ...point, values: point.values.slice(0, 2) }))]),
    );
  }

  const hour = (index: bigint, from = START) => Number(from + index * HOUR);

  it('answers an eligible request from the roll-ups and an ineligible one from the spans', async () => {
    await storeSpans(knex(), rows(caller.appId));
    const truth = {
      llm: [{ bucket_start_unix_nano: hour(0n), values: [3, 7] }],
      db: [
        { bucket_start_unix_nano: hour(0n), values: [1, null] },
        { bucket_start_unix_nano: hour(1n), values: [1, 8] },
      ],
    };
    expect(await perService(START, START + 2n * HOUR)).to.deep.equal(truth);

    // Changing what the roll-ups hold changes the eligible answer, and only that one.
    await knex()('span_rollups').where({ application_id: caller.appId }).increment('span_count', 100);
    const fromRollups = await perService(START, START + 2n * HOUR);
    expect(fromRollups.llm?.[0]?.values).to.deep.equal([103, 7]);
    // A window that does not start on a minute, or a percentile, reads the spans.
    const offMinute = START + 1n;
    expect(await perService(offMinute, offMinute + 2n * HOUR)).to.deep.equal({
      llm: [{ bucket_start_unix_nano: Number(offMinute), values: [3, 7] }],
      db: [
        { bucket_start_unix_nano: Number(offMinute), values: [1, null] },
        { bucket_start_unix_nano: Number(offMinute + HOUR), values: [1, 8] },
      ],
    });
    expect(await perService(START, START + 2n * HOUR, [{ fn: 'p50', field: 'cost' }])).to.deep.equal(truth);
    // A window ending inside a minute: its whole minute from the roll-ups (2 spans + 100), the
    // span at 1:00 from the spans.
    const ragged = await perService(START, START + MINUTE + 1_000_000n);
    expect(ragged.llm?.[0]?.values).to.deep.equal([103, 7]);
  });

  it('counts a re-sent batch once', async () => {
    const all = rows(caller.appId);
    await storeSpans(knex(), all.slice(0, 3));
    await storeSpans(knex(), all);
    await storeSpans(knex(), all);
    const [{ spans }] = (await knex()('span_rollups')
      .where({ application_id: caller.appId, bucket_width_s: 60 })
      .sum({ spans: 'span_count' })) as Array<{ spans: number | string }>;
    expect(Number(spans)).to.equal(SPANS.length);
    expect(await perService(START, START + 2n * HOUR)).to.deep.equal({
      llm: [{ bucket_start_unix_nano: hour(0n), values: [3, 7] }],
      db: [
        { bucket_start_unix_nano: hour(0n), values: [1, null] },
        { bucket_start_unix_nano: hour(1n), values: [1, 8] },
      ],
    });
  });

  it('takes purged spans out of the roll-ups, reads a cut bucket from the spans, and drops emptied buckets', async () => {
    await storeSpans(knex(), rows(caller.appId));
    // Cut the first minute in two: the span at 0:10 goes, those at 0:30 and 0:50 stay.
    const purged = await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: START + 20_000_000_000n, limit: 100 });
    expect(purged.deleted).to.equal(1);
    const partial = (await knex()('span_rollups').where({ application_id: caller.appId, partial: 1 }).count({ rows: '*' })) as Array<{
      rows: number | string;
    }>;
    expect(Number(partial[0]?.rows)).to.be.greaterThan(0);
    // Made wrong on purpose: a window with a cut bucket is read from the spans, so the answer stays theirs.
    await knex()('span_rollups').where({ application_id: caller.appId, partial: 1 }).increment('span_count', 100);
    expect(await perService(START, START + 2n * HOUR)).to.deep.equal({
      llm: [{ bucket_start_unix_nano: hour(0n), values: [2, 6] }],
      db: [
        { bucket_start_unix_nano: hour(0n), values: [1, null] },
        { bucket_start_unix_nano: hour(1n), values: [1, 8] },
      ],
    });
    // Everything purged: no roll-up row is left behind.
    await knex()('span_rollups').where({ application_id: caller.appId, partial: 1 }).decrement('span_count', 100);
    await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: null, limit: 100 });
    const left = (await knex()('span_rollups').where({ application_id: caller.appId }).count({ rows: '*' })) as Array<{
      rows: number | string;
    }>;
    expect(Number(left[0]?.rows)).to.equal(0);
  });
});
