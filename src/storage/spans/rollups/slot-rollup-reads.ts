// Analytics at spans grain grouped by one indexed attribute key, read from slot_rollups
// (slot-rollups.ts) instead of the spans when the planner (src/traces/read-planner.ts) chose them
// (docs/analytics.md, "Roll-ups per indexed attribute") and, checked against the stored rows
// (slotBucketsExact), the window starts at or above the purge edge (no bucket lost spans to
// retention), every roll-up bucket of it counts all its spans under the slot's generation (as
// many as span_rollups counts) and none holds a value the slot does not keep. Otherwise the spans
// are read, as before.
import type { Knex } from 'knex';
import type { Condition, FilterNode } from '../../../filter/ast.js';
import type { SqlDialect, SqlFragment } from '../../sql/dialect.js';
import type { IndexedSlot } from '../indexed-slots.js';
import { atOrAfterEdge, purgeEdgeOf } from '../purge-edge.js';
import type { PlannedSlotRollups } from '../read-sources.js';
import { SLOT_ROLLUPS, VALUE_ABSENT, VALUE_KEPT, VALUE_UNKEPT } from './slot-rollups.js';
import type { RollupRequest } from './rollup-reads.js';
import { betweenNanos } from '../time-bounds.js';

/** The group key of a slot_rollups row (alias `r`): the kept string, NULL for no value. */
export const SLOT_KEY_SQL = `CASE WHEN r.value_kind = ${VALUE_KEPT} THEN r.value END`;

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

/**
 * The exactness check `slot_buckets_counted`: whether every roll-up bucket of the window can be
 * answered from slot_rollups: the window starts at or above the purge edge (read first, one
 * read of the application's row), and each bucket's rows of the slot's generation count as many
 * spans as its span_rollups rows, none UNKEPT.
 */
export async function slotBucketsExact(
  knex: Knex,
  dialect: SqlDialect,
  request: RollupRequest,
  plan: PlannedSlotRollups,
): Promise<boolean> {
  const { slot } = plan;
  if (!atOrAfterEdge(await purgeEdgeOf(knex, request.applicationId), request.startNs)) return false;
  const window = betweenNanos(dialect, 'bucket_start_unix_nano', request.startNs, plan.bucketsEndNs);
  const bucket = { b: knex.raw(dialect.asText('bucket_start_unix_nano')) };
  const spanRows = (await knex('span_rollups')
    .where({ application_id: request.applicationId, bucket_width_s: plan.widthS })
    .modify(window)
    .groupBy('bucket_start_unix_nano')
    .select(bucket, knex.raw('SUM(span_count) AS n'))) as Array<{ b: string; n: number | string }>;
  const slotRows = (await knex(SLOT_ROLLUPS)
    .where({ application_id: request.applicationId, bucket_width_s: plan.widthS, slot: slot.slot, generation: slot.generation })
    .modify(window)
    .groupBy('bucket_start_unix_nano')
    .select(bucket, knex.raw('SUM(span_count) AS n, MAX(value_kind) AS k'))) as Array<{
    b: string;
    n: number | string;
    k: number | string;
  }>;
  const spans = new Map(spanRows.map((row) => [String(row.b), Number(row.n)]));
  for (const row of slotRows) {
    if (Number(row.k) === VALUE_UNKEPT) return false;
    if ((spans.get(String(row.b)) ?? 0) !== Number(row.n)) return false;
    spans.delete(String(row.b));
  }
  // Buckets with spans but no row of the generation: not counted under it.
  return [...spans.values()].every((count) => count === 0);
}

/** The slot_rollups rows of the window that match the filter, as a builder over alias `r`. */
export function matchingSlotRollups(knex: Knex, dialect: SqlDialect, request: RollupRequest, plan: PlannedSlotRollups): Knex.QueryBuilder {
  const { slot } = plan;
  const where = request.filter === null ? undefined : slotFilterSql(request.filter, slot);
  if (request.filter !== null && !where) throw new Error('a filter slot_rollups cannot answer (the planner rules it out)');
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
