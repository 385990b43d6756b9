// What the writers of the span tables read of an application's row, in their own transaction:
// the indexed attribute slots in use (the derived structures file values under them) and the
// purge edge (purge-edge.ts). Shared by the retention purge and the rebuild of derived data.
import type { Knex } from 'knex';
import { parseIndexedAttributes, readySlots, writtenSlots } from '../accounts/indexed-attributes.js';
import { bigintAsText } from '../database.js';
import type { IndexedSlot } from './indexed-slots.js';
import { PURGE_EDGE_COLUMN } from './purge-edge.js';

/** The application's slots in use (the rebuild reads them with the hour it rebuilds). */
export async function slotsInUse(
  db: Knex,
  applicationId: string,
  run: (query: Knex.QueryBuilder) => Promise<unknown>,
): Promise<IndexedSlot[]> {
  return (await applicationSpanState(db, applicationId, run)).slots;
}

/** The application's ready slots (every stored span filled for the current key). */
export async function readySlotsOf(
  db: Knex,
  applicationId: string,
  run: (query: Knex.QueryBuilder) => Promise<unknown>,
): Promise<IndexedSlot[]> {
  const rows = (await run(db('applications').where({ id: applicationId }).select('indexed_attributes_state'))) as Array<{
    indexed_attributes_state: string | null;
  }>;
  return readySlots(parseIndexedAttributes(rows[0]?.indexed_attributes_state));
}

/** The application's slots in use and its purge edge, in one read of its row. */
export async function applicationSpanState(
  db: Knex,
  applicationId: string,
  run: (query: Knex.QueryBuilder) => Promise<unknown>,
): Promise<{ slots: IndexedSlot[]; edge: bigint | null }> {
  const rows = (await run(
    db('applications')
      .where({ id: applicationId })
      .select('indexed_attributes_state', { edge: bigintAsText(db, PURGE_EDGE_COLUMN) }),
  )) as Array<{ indexed_attributes_state: string | null; edge: string | null }>;
  const edge = rows[0]?.edge;
  return {
    slots: writtenSlots(parseIndexedAttributes(rows[0]?.indexed_attributes_state)),
    edge: edge === null || edge === undefined ? null : BigInt(edge),
  };
}
