// The roll-up deltas of a batch, without a database: one row per application, width, bucket and
// combination of dimension values, bucket starts floored exactly (before 1970 and at the 64-bit
// extremes too), and the stored dimensions hash unchanged (SHA-256 of the values as JSON), so that
// the rows of new spans meet the rows already stored.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { paddedRuns, ROLLUP_DIMENSIONS, rollupDeltas, type RollupSpan } from '../../../../src/storage/spans/rollups/span-rollups.js';

const NANOS_PER_SECOND = 1_000_000_000n;

function span(start: string, overrides: Partial<RollupSpan> = {}): RollupSpan {
  const dimensions: Partial<Record<string, null>> = Object.fromEntries(ROLLUP_DIMENSIONS.map((column) => [column, null]));
  return {
    ...dimensions,
    span_name: 'call',
    span_kind: 'SPAN_KIND_INTERNAL',
    application_id: 'app_a',
    start_time_unix_nano: start,
    duration_ms: 2,
    cost: 0.5,
    usage_amount: null,
    service_name: 'api',
    ...overrides,
  } as RollupSpan;
}

/** The bucket start of a time, floored with BigInt (the reference). */
function floored(start: string, widthS: number): string {
  const time = BigInt(start);
  const width = BigInt(widthS) * NANOS_PER_SECOND;
  return (time - (((time % width) + width) % width)).toString();
}

function hashOf(values: Array<string | null>): string {
  return createHash('sha256').update(JSON.stringify(values)).digest('hex').slice(0, 32);
}

describe('roll-up deltas of a batch', () => {
  it('floors every start into its minute and hour exactly, before 1970 and at the 64-bit extremes too', () => {
    const starts = [
      '0',
      '5',
      '-1',
      '-1000000000',
      '-1000000001',
      '59999999999',
      '60000000000',
      '-3600000000001',
      '1763800000000000000',
      '1763803599999999999',
      '9223372036854775807',
      '-9223372036854775808',
    ];
    for (const start of starts) {
      const deltas = rollupDeltas([span(start)]);
      expect(
        deltas.map((delta) => [delta.bucket_width_s, delta.bucket_start_unix_nano]),
        start,
      ).to.have.deep.members([
        [3600, floored(start, 3600)],
        [60, floored(start, 60)],
      ]);
    }
  });

  it('adds up the spans of one combination and bucket, and keeps combinations, applications and null apart from "null"', () => {
    const start = '1763799960000000000';
    const spans = [
      span(start),
      span('1763800019999999999', { cost: 1.5 }),
      span(start, { service_name: 'null' }),
      span(start, { service_name: null }),
      span(start, { application_id: 'app_b' }),
    ];
    const minutes = rollupDeltas(spans).filter((delta) => delta.bucket_width_s === 60);
    expect(minutes).to.have.length(4);
    const api = minutes.find((delta) => delta.application_id === 'app_a' && delta.service_name === 'api');
    expect(api).to.include({
      span_count: 2,
      cost_count: 2,
      cost_sum: 2,
      cost_min: 0.5,
      cost_max: 1.5,
      usage_count: 0,
      usage_min: null,
    });
    expect(api).not.to.have.property('partial');
    const values = (service: string | null) =>
      ROLLUP_DIMENSIONS.map(
        (column) => ({ span_name: 'call', span_kind: 'SPAN_KIND_INTERNAL', service_name: service })[column as string] ?? null,
      );
    expect(api?.dimensions_hash).to.equal(hashOf(values('api')));
    expect(minutes.map((delta) => delta.dimensions_hash)).to.include.members([hashOf(values('null')), hashOf(values(null))]);
  });

  it('tells apart spans that differ in any one dimension, after each other in a batch and from batch to batch', () => {
    const start = '1763799960000000000';
    const base = Object.fromEntries(ROLLUP_DIMENSIONS.map((column) => [column, `${column} value`])) as Partial<RollupSpan>;
    const valuesOf = (overrides: Partial<RollupSpan>) =>
      ROLLUP_DIMENSIONS.map((column) => (overrides[column] as string | null | undefined) ?? null);
    const minutes = (spans: RollupSpan[]) => rollupDeltas(spans).filter((delta) => delta.bucket_width_s === 60);
    for (const column of ROLLUP_DIMENSIONS) {
      for (const other of ['other value', null]) {
        const changed = { ...base, [column]: other };
        // The changed span comes right after spans of the base values: the combination found last.
        const within = minutes([span(start, base), span(start, changed), span(start, base)]);
        expect(
          within.map((delta) => [delta.dimensions_hash, delta.span_count]),
          `${column} ${other}`,
        ).to.have.deep.members([
          [hashOf(valuesOf(base)), 2],
          [hashOf(valuesOf(changed)), 1],
        ]);
        expect(
          minutes([span(start, changed)]).map((delta) => delta.dimensions_hash),
          `${column} ${other}, next batch`,
        ).to.deep.equal([hashOf(valuesOf(changed))]);
        expect(
          minutes([span(start, base)]).map((delta) => delta.dimensions_hash),
          `${column} ${other}, base again`,
        ).to.deep.equal([hashOf(valuesOf(base))]);
      }
    }
  });

  it('lists the rows in one fixed order whatever the spans’ order (the lock order of concurrent writers)', () => {
    const spans = ['1763800000000000000', '1763700000000000000', '-5'].flatMap((start) => [
      span(start),
      span(start, { service_name: 'web' }),
      span(start, { application_id: 'app_b' }),
    ]);
    const key = (deltas: ReturnType<typeof rollupDeltas>) =>
      deltas.map((delta) => `${delta.application_id}/${delta.bucket_width_s}/${delta.bucket_start_unix_nano}/${delta.dimensions_hash}`);
    const forward = key(rollupDeltas(spans));
    expect(key(rollupDeltas([...spans].reverse()))).to.deep.equal(forward);
    expect(forward).to.deep.equal([...forward].sort());
  });

  it('starts every batch from nothing: combinations kept from batch to batch carry no totals over, even after a batch failed half way', () => {
    const start = '1763799960000000000';
    expect(rollupDeltas([span(start), span(start)]).map((delta) => delta.span_count)).to.deep.equal([2, 2]);
    // A time that is not a number stops the batch after its first span was added.
    expect(() => rollupDeltas([span(start), span('soon')])).to.throw();
    const again = rollupDeltas([span(start, { cost: 4 })]);
    expect(again.map((delta) => [delta.span_count, delta.cost_sum, delta.cost_min])).to.deep.equal([
      [1, 4, 4],
      [1, 4, 4],
    ]);
  });
});

describe('roll-up upserts of the span writer, sized in steps of 8 rows', () => {
  const deltas = (count: number) =>
    rollupDeltas(
      Array.from({ length: count }, (_, index) => span('1763799960000000000', { span_name: `call ${String(index).padStart(3, '0')}` })),
    ).filter((delta) => delta.bucket_width_s === 60);

  it('puts up to 256 deltas in one run filled up to a multiple of 8, and more in runs of 256', () => {
    for (const [count, sizes] of [
      [1, [8]],
      [8, [8]],
      [13, [16]],
      [256, [256]],
      [300, [256, 48]],
    ] as const) {
      expect(
        paddedRuns(deltas(count)).map((run) => run.length),
        String(count),
      ).to.deep.equal(sizes);
    }
  });

  it('fills with copies of the run’s last row that add nothing, so the runs keep their key order', () => {
    const original = deltas(13);
    const [run] = paddedRuns(original);
    expect(run?.slice(0, 13)).to.deep.equal(original);
    const last = original[12] as Record<string, unknown>;
    for (const filler of run?.slice(13) ?? []) {
      for (const key of ['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash', ...ROLLUP_DIMENSIONS])
        expect(filler[key], key).to.equal(last[key]);
      expect(filler).to.include({
        span_count: 0,
        duration_count: 0,
        duration_sum: 0,
        duration_min: null,
        duration_max: null,
        cost_count: 0,
        cost_sum: 0,
        cost_min: null,
        cost_max: null,
        usage_count: 0,
        usage_sum: 0,
        usage_min: null,
        usage_max: null,
      });
    }
  });
});
