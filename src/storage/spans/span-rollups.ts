// Roll-ups of the spans (table `span_rollups`, docs/analytics.md): per application, per minute
// and per hour of start time, and per combination of the low-cardinality text columns
// (ROLLUP_DIMENSIONS), the count of spans and the count, sum, minimum and maximum of duration,
// cost and usage amount. The span writer adds the spans it stores in the same transaction; the
// retention purger subtracts the spans it deletes in the same transaction, and marks the bucket
// `partial`: a bucket spans were taken from no longer has exact sums or extremes, and analytics
// read the spans instead for any window that touches one.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { placeholders } from '../sql/dialect.js';
import { dialectFor } from '../sql/index.js';
import type { FilterColumn } from './filter-targets.js';
import type { SpanRow } from './span-row.js';

/** The columns a roll-up keeps apart: the text columns whose values repeat from span to span. */
export const ROLLUP_DIMENSIONS = [
  'span_kind',
  'status_code',
  'span_name',
  'service_name',
  'unit',
  'parent_unit',
  'billing_resource_type',
  'billing_resource_name',
  'billing_service_id',
  'billing_service_name',
  'billing_sku_id',
  'billing_sku_name',
  'billing_region',
  'usage_unit',
  'scope_name',
] as const satisfies ReadonlyArray<FilterColumn & keyof SpanRow>;

export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/** Bucket widths kept, in seconds, coarsest first (the order a read tries them in). */
export const ROLLUP_WIDTHS_S = [3600, 60] as const;

/** What a roll-up reads of a span. */
export type RollupSpan = Pick<SpanRow, 'application_id' | 'start_time_unix_nano' | 'duration_ms' | 'cost' | 'usage_amount' | RollupDimension>;

/** The measured numbers of a roll-up row: count, sum, min and max of each figure. */
const FIGURES = [
  ['duration', 'duration_ms'],
  ['cost', 'cost'],
  ['usage', 'usage_amount'],
] as const;

export interface RollupDelta {
  application_id: string;
  bucket_width_s: number;
  bucket_start_unix_nano: string;
  dimensions_hash: string;
  [column: string]: string | number | null;
}

function dimensionsHash(span: RollupSpan): string {
  return createHash('sha256')
    .update(JSON.stringify(ROLLUP_DIMENSIONS.map((column) => span[column])))
    .digest('hex')
    .slice(0, 32);
}

/** The start of the bucket of `widthS` seconds holding the nanosecond time (floored, also before 1970). */
function bucketStart(startNs: string, widthS: number): string {
  const width = BigInt(widthS) * 1_000_000_000n;
  const time = BigInt(startNs);
  const remainder = ((time % width) + width) % width;
  return (time - remainder).toString();
}

/**
 * The roll-up rows that add (`sign` 1) or take away (`sign` -1) the spans, one per application,
 * width, bucket and dimension values, in key order (a fixed lock order for concurrent writers).
 * Taking away sets `partial`; the extremes of taken-away spans cannot be undone, so they are left out.
 */
export function rollupDeltas(spans: RollupSpan[], sign: 1 | -1): RollupDelta[] {
  const deltas = new Map<string, RollupDelta>();
  for (const span of spans) {
    const hash = dimensionsHash(span);
    for (const widthS of ROLLUP_WIDTHS_S) {
      const start = bucketStart(String(span.start_time_unix_nano), widthS);
      const id = `${span.application_id}/${widthS}/${start}/${hash}`;
      let delta = deltas.get(id);
      if (!delta) {
        delta = { application_id: span.application_id, bucket_width_s: widthS, bucket_start_unix_nano: start, dimensions_hash: hash, span_count: 0, partial: sign === 1 ? 0 : 1 };
        for (const column of ROLLUP_DIMENSIONS) delta[column] = span[column] ?? null;
        for (const [name] of FIGURES) Object.assign(delta, { [`${name}_count`]: 0, [`${name}_sum`]: 0, [`${name}_min`]: null, [`${name}_max`]: null });
        deltas.set(id, delta);
      }
      delta.span_count = (delta.span_count as number) + sign;
      for (const [name, field] of FIGURES) {
        const raw = span[field];
        if (raw === null || raw === undefined) continue;
        const value = Number(raw);
        delta[`${name}_count`] = (delta[`${name}_count`] as number) + sign;
        delta[`${name}_sum`] = (delta[`${name}_sum`] as number) + sign * value;
        if (sign === 1) {
          const min = delta[`${name}_min`] as number | null;
          const max = delta[`${name}_max`] as number | null;
          delta[`${name}_min`] = min === null || value < min ? value : min;
          delta[`${name}_max`] = max === null || value > max ? value : max;
        }
      }
    }
  }
  return [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, delta]) => delta);
}

/** Rows per upsert: within SQLite's 500-term compound inserts and the placeholder limits. */
const ROWS_PER_STATEMENT = 400;

/**
 * Upserts that add the deltas to the stored roll-ups: counts and sums add up, the extremes widen
 * (a missing extreme on either side keeps the other), and `partial` stays set once set. Every
 * assignment reads only old values and the incoming row, so MariaDB's left-to-right SET and
 * SQLite's old-row SET agree.
 */
export function addRollupsQuery(db: Knex, deltas: RollupDelta[]): Knex.QueryBuilder[] {
  const { insertedValue, greatest, least } = dialectFor(db);
  const incoming = (column: string) => db.raw(insertedValue, [column]);
  const merge: Record<string, Knex.Raw> = {
    span_count: db.raw('?? + ?', ['span_rollups.span_count', incoming('span_count')]),
    partial: db.raw(`${greatest}(??, ?)`, ['span_rollups.partial', incoming('partial')]),
  };
  for (const [name] of FIGURES) {
    for (const part of ['count', 'sum']) merge[`${name}_${part}`] = db.raw('?? + ?', [`span_rollups.${name}_${part}`, incoming(`${name}_${part}`)]);
    for (const [part, pick] of [['min', least], ['max', greatest]] as const) {
      const old = `span_rollups.${name}_${part}`;
      merge[`${name}_${part}`] = db.raw(`COALESCE(${pick}(??, ?), ??, ?)`, [old, incoming(`${name}_${part}`), old, incoming(`${name}_${part}`)]);
    }
  }
  const statements: Knex.QueryBuilder[] = [];
  for (let offset = 0; offset < deltas.length; offset += ROWS_PER_STATEMENT) {
    statements.push(
      db('span_rollups')
        .insert(deltas.slice(offset, offset + ROWS_PER_STATEMENT))
        .onConflict(['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash'])
        .merge(merge),
    );
  }
  return statements;
}

/** Deletes the rows of the deltas' buckets left with no span (after spans were taken away). */
export function emptyRollupsQueries(db: Knex, deltas: RollupDelta[]): Knex.QueryBuilder[] {
  const buckets = new Map<string, { applicationId: string; widthS: number; starts: Set<string> }>();
  for (const delta of deltas) {
    const id = `${delta.application_id}/${delta.bucket_width_s}`;
    const entry = buckets.get(id) ?? { applicationId: delta.application_id, widthS: delta.bucket_width_s, starts: new Set<string>() };
    entry.starts.add(delta.bucket_start_unix_nano);
    buckets.set(id, entry);
  }
  const { exactInteger } = dialectFor(db);
  return [...buckets.values()].map(({ applicationId, widthS, starts }) =>
    db('span_rollups')
      .where({ application_id: applicationId, bucket_width_s: widthS })
      .whereRaw(`bucket_start_unix_nano IN (${placeholders(starts.size, exactInteger)})`, [...starts])
      .where('span_count', '<=', 0)
      .del(),
  );
}
