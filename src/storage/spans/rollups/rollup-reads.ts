// Analytics at spans grain read from the roll-ups (span-rollups.ts) instead of the spans when the
// planner (src/traces/read-planner.ts) chose them (docs/analytics.md, "When the roll-ups answer")
// and the window starts at or above the application's purge edge (afterPurgeEdge): no bucket of
// it ever lost a span to retention. A
// window ending inside a minute reads the spans of its last partial minute and adds them in. The
// answer is the same as from the spans: counts and extremes exactly, sums and averages within
// rounding (they are added up in another order).
import type { Knex } from 'knex';
import type { FilterNode } from '../../../filter/ast.js';
import type { SqlDialect } from '../../sql/dialect.js';
import { compileFilter } from '../filter-sql.js';
import type { FilterColumn } from '../filter-targets.js';
import { atOrAfterEdge, purgeEdgeOf } from '../purge-edge.js';
import { ROLLUP_DIMENSIONS, type PlannedSpanRollups, type RollupMeasureField } from '../read-sources.js';
import { betweenNanos } from '../time-bounds.js';

/** What a roll-up read needs of the request (a subset of AnalyticsQuery). */
export interface RollupRequest {
  applicationId: string;
  startNs: bigint;
  endNs: bigint;
  filter: FilterNode | null;
}

// A roll-up filter reads only dimension columns, never an attribute: no indexed slot applies.
const NO_SLOTS: readonly [] = [];

/**
 * The check `after_purge_edge`, in the caller's snapshot (one read of the application's row):
 * whether the window starts at or above the purge edge, so that no bucket of it lost spans.
 */
export async function afterPurgeEdge(knex: Knex, request: RollupRequest): Promise<boolean> {
  return atOrAfterEdge(await purgeEdgeOf(knex, request.applicationId), request.startNs);
}

/** The measure columns of a roll-up row, and the same figures of one span (count 1, its own value). */
const FIGURE_COLUMNS = ['duration', 'cost', 'usage'] as const;
const SPAN_FIGURE: Record<(typeof FIGURE_COLUMNS)[number], string> = { duration: 'duration_ms', cost: 'cost', usage: 'usage_amount' };

/** The field a measure names → its roll-up figure (the planner sends no other field here). */
export const FIGURE_OF_FIELD: Record<RollupMeasureField, (typeof FIGURE_COLUMNS)[number]> = {
  duration_ms: 'duration',
  cost: 'cost',
  'usage.amount': 'usage',
};

const ROLLUP_COLUMNS = [
  'bucket_start_unix_nano',
  ...ROLLUP_DIMENSIONS,
  'span_count',
  ...FIGURE_COLUMNS.flatMap((name) => ['count', 'sum', 'min', 'max'].map((part) => `${name}_${part}`)),
];

/** One span in the shape of a roll-up row, column for column with ROLLUP_COLUMNS. */
function spanAsRollup(alias: string): string {
  const figures = FIGURE_COLUMNS.flatMap((name) => {
    const value = `${alias}.${SPAN_FIGURE[name]}`;
    return [`CASE WHEN ${value} IS NULL THEN 0 ELSE 1 END`, `COALESCE(${value}, 0)`, value, value];
  });
  return [`${alias}.start_time_unix_nano`, ...ROLLUP_DIMENSIONS.map((column) => `${alias}.${column}`), '1', ...figures]
    .map((expression, index) => `${expression} AS ${ROLLUP_COLUMNS[index] as string}`)
    .join(', ');
}

/**
 * The roll-up rows of the window that match the filter, as a builder over alias `r` with the
 * columns of span_rollups; with the spans of a partial last minute added in the same shape.
 */
export function matchingRollups(knex: Knex, dialect: SqlDialect, request: RollupRequest, plan: PlannedSpanRollups): Knex.QueryBuilder {
  const rollupWhere = compileFilter(request.filter, { dialect, column: (name: FilterColumn) => `r.${name}`, indexedSlots: NO_SLOTS });
  const buckets = knex({ r: 'span_rollups' })
    .where({ 'r.application_id': request.applicationId, 'r.bucket_width_s': plan.widthS })
    .modify(betweenNanos(dialect, 'r.bucket_start_unix_nano', request.startNs, plan.bucketsEndNs))
    .modify((builder) => {
      if (rollupWhere) builder.where(rollupWhere);
    });
  if (plan.bucketsEndNs === request.endNs) return buckets;
  const spanWhere = compileFilter(request.filter, { dialect, column: (name: FilterColumn) => `s.${name}`, indexedSlots: NO_SLOTS });
  const tail = knex({ s: 'spans' })
    .select(knex.raw(spanAsRollup('s')))
    .where('s.application_id', request.applicationId)
    .modify(betweenNanos(dialect, 's.start_time_unix_nano', plan.bucketsEndNs, request.endNs))
    .modify((builder) => {
      if (spanWhere) builder.where(spanWhere);
    });
  const both = buckets.select(ROLLUP_COLUMNS.map((column) => `r.${column}`)).unionAll(tail);
  return knex.from(both.as('r'));
}

function figureOf(field: string | undefined): (typeof FIGURE_COLUMNS)[number] {
  if (field === undefined || !Object.hasOwn(FIGURE_OF_FIELD, field)) throw new Error(`no roll-up figure for ${field}`);
  return FIGURE_OF_FIELD[field as RollupMeasureField];
}

/** The sum and the count of a field's values over roll-up rows (alias `r`): what an average combines from. */
export function rollupAverageParts(field: string): { sum: string; count: string } {
  const figure = figureOf(field);
  return { sum: `SUM(r.${figure}_sum)`, count: `SUM(r.${figure}_count)` };
}

/** A measure's aggregate over roll-up rows (alias `r`); never a percentile (the planner, src/traces/read-planner.ts, rules them out). */
export function rollupAggregateSql(dialect: SqlDialect, fn: string, field: string | undefined): string {
  if (fn === 'count') return 'SUM(r.span_count)';
  const figure = figureOf(field);
  const count = `r.${figure}_count`;
  if (fn === 'sum') return `CASE WHEN SUM(${count}) > 0 THEN SUM(r.${figure}_sum) END`;
  if (fn === 'avg') return `${dialect.asDouble(`SUM(r.${figure}_sum)`)} / NULLIF(SUM(${count}), 0)`;
  if (fn === 'min') return `MIN(r.${figure}_min)`;
  if (fn === 'max') return `MAX(r.${figure}_max)`;
  throw new Error(`no roll-up aggregate ${fn}`);
}
