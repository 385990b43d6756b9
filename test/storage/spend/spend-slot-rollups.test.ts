// The writer's rows of spend_slot_rollups (src/storage/spend/spend-slot-rollups.ts), without a
// database: each span once per slot in use, under its slot's generation, kind of value and
// currency, in an hour row and a day row; the same key values hash the same at both widths.
import { expect } from 'chai';
import { spendSlotDeltas } from '../../../src/storage/spend/spend-slot-rollups.js';
import type { IndexedSlot } from '../../../src/storage/spans/indexed-slots.js';
import { spanRow } from '../../support/span-rows.js';

const HOUR = 3_600_000_000_000n;
/** 2026-11-04T00:00:00Z. */
const DAY = 1_762_214_400_000_000_000n;
const SLOTS: IndexedSlot[] = [
  { slot: 1, source: 'span_attributes', key: 'tenant', generation: 7 },
  { slot: 3, source: 'resource_attributes', key: 'region', generation: 9 },
];

function span(index: number, tenant: unknown, startNs: bigint, cost: number | null, currency: string | null) {
  return spanRow({
    application_id: 'app_a',
    trace_id: `${index}`.padStart(32, '0'),
    span_id: `${index}`.padStart(16, '0'),
    start_time_unix_nano: startNs.toString(),
    span_attributes: JSON.stringify(tenant === undefined ? {} : { tenant }),
    indexed_value_1: typeof tenant === 'string' ? tenant : null,
    cost,
    price_currency: currency,
  });
}

describe('spend slot roll-up deltas', () => {
  const spans = [
    span(1, 'acme', DAY + 5n, 2, 'EUR'),
    span(2, 'acme', DAY + HOUR + 5n, 3, null),
    span(3, 42, DAY + 7n, null, null),
    span(4, undefined, DAY + 9n, 1, 'EUR'),
    span(5, null, DAY + 11n, null, null),
  ];
  const deltas = spendSlotDeltas(spans, SLOTS);
  const rows = (widthS: number, slot: number) =>
    deltas
      .filter((delta) => delta.bucket_width_s === widthS && delta.slot === String(slot))
      .map((delta) => [
        delta.bucket_start_unix_nano,
        delta.generation,
        delta.value_kind,
        delta.value,
        delta.currency,
        delta.span_count,
        delta.cost_sum,
      ]);

  it('counts each span once per slot, by kind of value and currency, in its hour', () =>
    expect(rows(3600, 1).sort()).to.deep.equal(
      [
        [DAY.toString(), '7', '1', 'acme', 'EUR', 1, 2],
        [(DAY + HOUR).toString(), '7', '1', 'acme', 'USD', 1, 3],
        [DAY.toString(), '7', '2', '', null, 1, 0],
        [DAY.toString(), '7', '0', '', 'EUR', 1, 1],
        [DAY.toString(), '7', '0', '', null, 1, 0],
      ].sort(),
    ));

  it('adds the same spans to their day, and under the other slot with its own generation', () => {
    expect(rows(86400, 1).reduce((sum, row) => sum + Number(row[5]), 0)).to.equal(5);
    expect(rows(86400, 1).filter((row) => row[3] === 'acme')).to.have.lengthOf(2);
    expect(
      rows(86400, 3)
        .map((row) => [row[1], row[2], row[4], row[5]])
        .sort(),
    ).to.deep.equal(
      [
        ['9', '0', 'EUR', 2],
        ['9', '0', 'USD', 1],
        ['9', '0', null, 2],
      ].sort(),
    );
  });

  it('hashes one key values the same at both widths, and different key values apart', () => {
    const hashes = (width: number) =>
      new Set(deltas.filter((delta) => delta.bucket_width_s === width).map((delta) => delta.dimensions_hash));
    expect([...hashes(3600)].sort()).to.deep.equal([...hashes(86400)].sort());
    expect(hashes(86400).size).to.equal(rows(86400, 1).length + rows(86400, 3).length);
  });
});
