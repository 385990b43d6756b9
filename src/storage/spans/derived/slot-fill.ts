// After a slot's backfill (../slots/slot-backfill.ts) has made it ready: every structure that
// keeps rows per slot value (DerivedData.fillSlot) fills the slot's generation for the spans
// stored before the key was indexed. Called by the slot-backfiller job once per key change.
import type { Knex } from 'knex';
import type { IndexedSlot } from '../indexed-slots.js';
import type { DerivedData } from './derived-data.js';
import { DERIVED_STRUCTURES } from './derived-structures.js';

/** Fills the slot's generation in every structure that keeps one, in list order; answers the hours rebuilt per structure name. */
export async function fillSlot(
  knex: Knex,
  applicationId: string,
  slot: IndexedSlot,
  structures: readonly DerivedData[] = DERIVED_STRUCTURES,
): Promise<Record<string, number>> {
  const hours: Record<string, number> = {};
  for (const structure of structures) if (structure.fillSlot) hours[structure.name] = await structure.fillSlot(knex, applicationId, slot);
  return hours;
}
