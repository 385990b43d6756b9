// The purge edge of an application (`applications.spans_purged_before`, nanoseconds of span start
// time, NULL while nothing was purged): every hour below it may have lost spans to the retention
// purge, every time at or above it never has. It only grows: a purge batch raises it to its cutoff
// in the transaction that deletes the spans below it (writes/span-purge.ts), and the roll-ups are
// read only for windows starting at or above it, in the read's snapshot (rollups/rollup-reads.ts).
import type { Knex } from 'knex';
import { dialectFor } from '../sql/index.js';
import type { Run } from '../sql/dialect.js';

export const PURGE_EDGE_COLUMN = 'spans_purged_before';

/**
 * The application's edge as `run` (or the caller's snapshot) sees it: null when nothing was
 * purged, undefined when the application has no row (spans stored under an unknown id: nothing
 * records what was purged of them).
 */
export async function purgeEdgeOf(db: Knex, applicationId: string, run?: Run): Promise<bigint | null | undefined> {
  const query = db('applications')
    .where({ id: applicationId })
    .select({ edge: db.raw(dialectFor(db).asText(PURGE_EDGE_COLUMN)) });
  const rows = (run ? await run(query) : await query) as Array<{ edge: string | null }>;
  if (rows.length === 0) return undefined;
  const edge = rows[0]?.edge;
  return edge === null || edge === undefined ? null : BigInt(edge);
}

/**
 * Raises the edge to `beforeNs` unless it is there already: the condition keeps it from falling
 * when two purgers with different cutoffs (or a raised retention) meet.
 */
export function raisePurgeEdgeQuery(db: Knex, applicationId: string, beforeNs: bigint): Knex.QueryBuilder {
  const { exactInteger } = dialectFor(db);
  return db('applications')
    .where({ id: applicationId })
    .where((lower) => lower.whereNull(PURGE_EDGE_COLUMN).orWhereRaw(`${PURGE_EDGE_COLUMN} < ${exactInteger}`, [beforeNs.toString()]))
    .update({ [PURGE_EDGE_COLUMN]: db.raw(exactInteger, [beforeNs.toString()]) });
}

/** Whether a roll-up window starting at `startNs` holds only buckets that never lost a span (an unknown edge: not known). */
export function atOrAfterEdge(edge: bigint | null | undefined, startNs: bigint): boolean {
  if (edge === undefined) return false;
  return edge === null || startNs >= edge;
}
