// Analytics at spans grain grouped by one indexed attribute key, read from slot_rollups
// (slot-rollups.ts) instead of the spans when that gives the spans' answer (docs/analytics.md,
// "Roll-ups per indexed attribute"): the key is kept by a ready slot, every filter condition reads
// that key with an operator the rows answer, no measure is a percentile, the window starts and
// ends on boundaries of the roll-up width and the bucket width is a multiple of it; and, checked
// against the stored rows, every roll-up bucket of the window counts all its spans under the
// slot's generation (as many as span_rollups counts), none holds a value the slot does not keep,
// and none lost spans to retention. Otherwise the spans are read, as before.
import type { Knex } from 'knex';
import type { Condition, FilterNode } from '../../../filter/ast.js';
import type { SqlDialect, SqlFragment } from '../../sql/dialect.js';
import type { IndexedSlot } from '../indexed-slots.js';
import { ROLLUP_WIDTHS_S } from './span-rollups.js';
import { SLOT_ROLLUPS, VALUE_ABSENT, VALUE_KEPT, VALUE_UNKEPT } from './slot-rollups.js';
import type { RollupPlan, RollupRequest } from './rollup-reads.js';
import { targetOf } from '../filter-targets.js';
import { betweenNanos } from '../time-bounds.js';

const NANOS_PER_SECOND = 1_000_000_000n;
const PERCENTILES = new Set(['p50', 'p90', 'p95', 'p99']);

/** The group key of a slot_rollups row (alias `r`): the kept string, NULL for no value. */
export const SLOT_KEY_SQL = `CASE WHEN r.value_kind = ${VALUE_KEPT} THEN r.value END`;

/** The ready slot keeping the attribute a group_by field names, if any. */
function slotOfField(field: string, slots: readonly IndexedSlot[]): IndexedSlot | undefined {
  const target = targetOf(field);
  if (target.kind !== 'attribute') return undefined;
  return slots.find((slot) => slot.source === target.source && slot.key === target.key);
}

/**
 * A filter over slot_rollups rows (alias `r`) that matches the rows of exactly the spans the
 * filter matches, given that no row of the window is UNKEPT (the read checks it); undefined when
 * some condition reads another field or compares in a way the rows cannot (numeric readings,
 * substrings, patterns). Never NULL, so `not` is plain NOT.
 */
function slotFilterSql(node: FilterNode, slot: IndexedSlot): SqlFragment | undefined {
  if (node.kind === 'condition') return slotConditionSql(node, slot);
  if (node.kind === 'not') {
    const child = slotFilterSql(node.child, slot);
    return child && { sql: `NOT (${child.sql})`, bindings: child.bindings };
  }
  if (node.children.length === 0) return { sql: node.kind === 'and' ? '1 = 1' : '1 = 0', bindings: [] };
  const children: SqlFragment[] = [];
  for (const child of node.children) {
    const compiled = slotFilterSql(child, slot);
    if (!compiled) return undefined;
    children.push(compiled);
  }
  return {
    sql: children.map((child) => `(${child.sql})`).join(node.kind === 'and' ? ' AND ' : ' OR '),
    bindings: children.flatMap((child) => child.bindings),
  };
}

function slotConditionSql(condition: Condition, slot: IndexedSlot): SqlFragment | undefined {
  const field = condition.resolved;
  if (field.kind !== 'attribute' || field.source !== slot.source || field.key !== slot.key) return undefined;
  const kept = `r.value_kind = ${VALUE_KEPT}`;
  // A KEPT value's text form is the string itself; an ABSENT one has none (no comparison matches it).
  switch (condition.op) {
    case 'exists':
      return { sql: `r.value_kind <> ${VALUE_ABSENT}`, bindings: [] };
    case 'not_exists':
      return { sql: `r.value_kind = ${VALUE_ABSENT}`, bindings: [] };
    case 'eq':
    case 'neq':
      if (condition.numberGiven) return undefined;
      return { sql: `${kept} AND r.value ${condition.op === 'eq' ? '=' : '<>'} ?`, bindings: [condition.value] };
    case 'in':
    case 'not_in':
      if (condition.numbers.length > 0 || condition.values.length === 0) return undefined;
      return {
        sql: `${kept} AND r.value ${condition.op === 'in' ? 'IN' : 'NOT IN'} (${condition.values.map(() => '?').join(', ')})`,
        bindings: condition.values,
      };
    default:
      return undefined;
  }
}

/** The roll-up width and slot a request reads slot_rollups with, or undefined (the spans, or span_rollups, answer). */
export function slotRollupPlan(request: RollupRequest, slots: readonly IndexedSlot[]): RollupPlan | undefined {
  if (request.grain !== 'spans' || request.measureFns.some((fn) => PERCENTILES.has(fn))) return undefined;
  if (request.groupBy.length !== 1) return undefined;
  const slot = slotOfField(request.groupBy[0] as string, slots);
  if (!slot) return undefined;
  if (request.filter !== null && !slotFilterSql(request.filter, slot)) return undefined;
  for (const widthS of ROLLUP_WIDTHS_S) {
    const width = BigInt(widthS) * NANOS_PER_SECOND;
    if (request.startNs < 0n || request.startNs % width !== 0n || request.endNs % width !== 0n || request.widthNs % width !== 0n) continue;
    if (request.endNs <= request.startNs) continue;
    return { widthS, bucketsEndNs: request.endNs, slot };
  }
  return undefined;
}

type Totals = Map<string, { spans: number; partial: boolean }>;

/**
 * Whether every roll-up bucket of the window can be answered from slot_rollups: its rows of the
 * slot's generation count as many spans as its span_rollups rows, none is UNKEPT, none partial.
 */
export async function slotBucketsExact(knex: Knex, dialect: SqlDialect, request: RollupRequest, plan: RollupPlan): Promise<boolean> {
  const slot = plan.slot as IndexedSlot;
  const window = betweenNanos(dialect, 'bucket_start_unix_nano', request.startNs, plan.bucketsEndNs);
  const bucket = { b: knex.raw(dialect.asText('bucket_start_unix_nano')) };
  const spanRows = (await knex('span_rollups')
    .where({ application_id: request.applicationId, bucket_width_s: plan.widthS })
    .modify(window)
    .groupBy('bucket_start_unix_nano')
    .select(bucket, knex.raw('SUM(span_count) AS n, MAX(partial) AS p'))) as Array<{ b: string; n: number | string; p: number | string }>;
  const slotRows = (await knex(SLOT_ROLLUPS)
    .where({ application_id: request.applicationId, bucket_width_s: plan.widthS, slot: slot.slot, generation: slot.generation })
    .modify(window)
    .groupBy('bucket_start_unix_nano')
    .select(bucket, knex.raw('SUM(span_count) AS n, MAX(partial) AS p, MAX(value_kind) AS k'))) as Array<{
    b: string;
    n: number | string;
    p: number | string;
    k: number | string;
  }>;
  const spans: Totals = new Map(spanRows.map((row) => [String(row.b), { spans: Number(row.n), partial: Number(row.p) !== 0 }]));
  for (const row of slotRows) {
    const expected = spans.get(String(row.b));
    if (Number(row.k) === VALUE_UNKEPT || Number(row.p) !== 0 || expected?.partial === true) return false;
    if ((expected?.spans ?? 0) !== Number(row.n)) return false;
    spans.delete(String(row.b));
  }
  // Buckets with spans but no row of the generation: not counted under it.
  return [...spans.values()].every((entry) => entry.spans === 0 && !entry.partial);
}

/** The slot_rollups rows of the window that match the filter, as a builder over alias `r`. */
export function matchingSlotRollups(knex: Knex, dialect: SqlDialect, request: RollupRequest, plan: RollupPlan): Knex.QueryBuilder {
  const slot = plan.slot as IndexedSlot;
  const where = request.filter === null ? undefined : slotFilterSql(request.filter, slot);
  return knex({ r: SLOT_ROLLUPS })
    .where({
      'r.application_id': request.applicationId,
      'r.bucket_width_s': plan.widthS,
      'r.slot': slot.slot,
      'r.generation': slot.generation,
    })
    .modify(betweenNanos(dialect, 'r.bucket_start_unix_nano', request.startNs, plan.bucketsEndNs))
    .modify((builder) => {
      if (where) builder.whereRaw(`(${where.sql})`, where.bindings);
    });
}
