// The roll-ups behind POST /engine/analytics (src/storage/spans/rollups/rollup-reads.ts) on every
// database: an eligible request is answered from span_rollups (shown by changing a stored roll-up
// and seeing the answer follow, while an ineligible one keeps reading the spans); a purge raises
// the application's purge edge, only ever upwards, and a window reaching below it is read from the
// spans while the rows below it go, a bounded number per batch; a re-sent batch is counted once.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { bigintAsText } from '../../../../src/storage/database.js';
import type { SpanRow } from '../../../../src/storage/spans/span-row.js';
import { purgeBatch } from '../../../../src/storage/spans/writes/span-purge.js';
import { storeSpans } from '../../../../src/storage/spans/writes/span-writer.js';
import { engineCaller, type EngineCaller } from '../../../support/auth.js';
import { call } from '../../../support/contract.js';
import { clearSpans, nanosToRfc3339 } from '../../../support/engine-helpers.js';
import { spanRow } from '../../../support/span-rows.js';
import { onEachDatabase } from '../../../support/test-server.js';

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

  /** The application's purge edge as stored. */
  async function edge(): Promise<bigint | null> {
    const [row] = (await knex()('applications')
      .where({ id: caller.appId })
      .select({ edge: bigintAsText(knex(), 'spans_purged_before') })) as Array<{ edge: string | null }>;
    return row?.edge === null || row?.edge === undefined ? null : BigInt(row.edge);
  }

  async function rollupRows(where: (query: Knex.QueryBuilder) => void = () => {}): Promise<number> {
    const [{ rows }] = (await knex()('span_rollups').where({ application_id: caller.appId }).modify(where).count({ rows: '*' })) as Array<{
      rows: number | string;
    }>;
    return Number(rows);
  }

  it('answers a window reaching below the purge edge from the spans, one at or above it from the roll-ups, and drops the rows below it', async () => {
    await storeSpans(knex(), rows(caller.appId));
    expect(await edge()).to.equal(null);
    // Cut the first minute in two (a cutoff off the hour, as purgeBatch allows): the span at 0:10 goes.
    const purged = await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: START + 20_000_000_000n, limit: 100 });
    expect(purged.deleted).to.equal(1);
    expect(await edge()).to.equal(START + 20_000_000_000n);
    // No row of a bucket starting below the edge is left, subtracted or not.
    expect(await rollupRows((query) => query.whereRaw('bucket_start_unix_nano < ?', [Number(START + 20_000_000_000n)]))).to.equal(0);
    // Made wrong on purpose: only an answer from the roll-ups would show the 100.
    await knex()('span_rollups').where({ application_id: caller.appId }).increment('span_count', 100);
    expect(await perService(START, START + 2n * HOUR)).to.deep.equal({
      llm: [{ bucket_start_unix_nano: hour(0n), values: [2, 6] }],
      db: [
        { bucket_start_unix_nano: hour(0n), values: [1, null] },
        { bucket_start_unix_nano: hour(1n), values: [1, 8] },
      ],
    });
    // At the edge's next minute and after: the roll-ups.
    expect((await perService(START + MINUTE, START + 2n * HOUR)).llm?.[0]?.values).to.deep.equal([101, 4]);

    // A purge by whole hours (the purger's cutoffs): the first hour goes, its buckets with it.
    await knex()('span_rollups').where({ application_id: caller.appId }).decrement('span_count', 100);
    expect((await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: START + HOUR, limit: 100 })).deleted).to.equal(3);
    expect(await edge()).to.equal(START + HOUR);
    expect(await rollupRows((query) => query.whereRaw('bucket_start_unix_nano < ?', [Number(START + HOUR)]))).to.equal(0);
    await knex()('span_rollups').where({ application_id: caller.appId }).increment('span_count', 100);
    expect(await perService(START, START + 2n * HOUR)).to.deep.equal({ db: [{ bucket_start_unix_nano: hour(1n), values: [1, 8] }] });
    expect(await perService(START + HOUR, START + 2n * HOUR)).to.deep.equal({
      db: [{ bucket_start_unix_nano: hour(1n), values: [101, 8] }],
    });

    // Everything purged: no roll-up row is left behind.
    await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: null, limit: 100 });
    expect(await rollupRows()).to.equal(0);
    expect(await edge()).to.equal(START + 2n * HOUR);
  });

  it('never lowers the purge edge: a later batch with an earlier cutoff (a longer retention) leaves it where it is', async () => {
    await storeSpans(knex(), rows(caller.appId));
    await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: START + HOUR, limit: 100 });
    expect(await edge()).to.equal(START + HOUR);
    // A late span below the edge, then purged under an earlier cutoff.
    const late = spanRow({
      application_id: caller.appId,
      trace_id: '9'.padStart(32, '0'),
      span_id: '9'.padStart(16, '0'),
      start_time_unix_nano: (START + 5_000_000_000n).toString(),
      end_time_unix_nano: (START + 10_000_000_000n).toString(),
      duration_ms: 5,
      service_name: 'llm',
      cost: 32,
    });
    await storeSpans(knex(), [late]);
    expect((await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: START + 10_000_000_000n, limit: 100 })).deleted).to.equal(1);
    expect(await edge()).to.equal(START + HOUR);
    // The late span's rows went below the edge, and a window between the two cutoffs still reads the spans.
    expect(await rollupRows((query) => query.whereRaw('bucket_start_unix_nano < ?', [Number(START + HOUR)]))).to.equal(0);
    await knex()('span_rollups').where({ application_id: caller.appId }).increment('span_count', 100);
    expect(await perService(START + MINUTE, START + 2n * HOUR)).to.deep.equal({
      db: [{ bucket_start_unix_nano: Number(START + MINUTE + HOUR), values: [1, 8] }],
    });
  });

  it('deletes the roll-up rows below the edge a bounded number per batch: at most the batch size per width', async () => {
    // Ten spans, each in its own minute and combination: ten minute rows and ten hour rows.
    const spread = Array.from({ length: 10 }, (_, index) =>
      spanRow({
        application_id: caller.appId,
        trace_id: `${index + 1}`.padStart(32, '0'),
        span_id: `${index + 1}`.padStart(16, '0'),
        start_time_unix_nano: (START + BigInt(index) * MINUTE).toString(),
        end_time_unix_nano: (START + BigInt(index) * MINUTE + 5_000_000n).toString(),
        duration_ms: 5,
        service_name: `service ${index}`,
      }),
    );
    await storeSpans(knex(), spread);
    expect(await rollupRows()).to.equal(20);
    const left: number[] = [];
    for (let more = true; more;) {
      more = (await purgeBatch(knex(), { applicationId: caller.appId, beforeNs: START + HOUR, limit: 3 })).full;
      left.push(await rollupRows());
    }
    // 3 spans, then 3 rows of each width; never more, and nothing left once the spans are gone.
    expect(left).to.deep.equal([14, 8, 2, 0]);
  });
});
