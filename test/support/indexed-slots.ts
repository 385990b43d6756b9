// Gives a test application indexed attribute slots whose spans are all filled, the two ways the
// service fills them: by the ingestion writer's rule on each row before it is stored
// (slotValue, src/storage/spans/indexed-slots.ts), or by the backfill's SQL over stored spans
// (src/storage/spans/slots/slot-backfill.ts), in small batches so that several are exercised.
import type { Knex } from 'knex';
import {
  initialIndexedAttributes,
  NO_INDEXED_ATTRIBUTES,
  parseIndexedAttributes,
  serializeIndexedAttributes,
  withPaths,
  writtenSlots,
} from '../../src/storage/accounts/indexed-attributes.js';
import { slotValue } from '../../src/storage/spans/indexed-slots.js';
import { backfillBatch, pendingSlot } from '../../src/storage/spans/slots/slot-backfill.js';
import { fillSlot } from '../../src/storage/spans/derived/slot-fill.js';
import type { SpanRow } from '../../src/storage/spans/span-row.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';

export const INDEXABLE_PATHS = (keys: readonly string[]) => keys.flatMap((key) => [`span_attributes.${key}`, `resource_attributes.${key}`]);

/** The rows with the slots of `paths` filled as the ingestion writer fills them. */
export function withSlotValues(rows: SpanRow[], paths: string[]): SpanRow[] {
  const slots = writtenSlots(initialIndexedAttributes(paths, 0));
  return rows.map((row) => {
    const filled = { ...row };
    for (const { slot, source, key } of slots) {
      const json = row[source];
      const map = json === null ? {} : (JSON.parse(json) as Record<string, unknown>);
      filled[`indexed_value_${slot}`] = Object.hasOwn(map, key) ? slotValue(map[key]) : null;
    }
    return filled;
  });
}

/** Sets the application's indexed attributes, not ready, as a PATCH does. */
export async function setIndexedPaths(knex: Knex, applicationId: string, paths: string[], ready: boolean): Promise<void> {
  const state = ready ? initialIndexedAttributes(paths, 0) : withPaths(NO_INDEXED_ATTRIBUTES, paths, 0);
  await knex('applications')
    .where({ id: applicationId })
    .update({ indexed_attributes_state: serializeIndexedAttributes(state) });
}

/** Runs the backfill of the application until every slot is ready; answers the batches it took. */
export async function backfillAll(knex: Knex, applicationId: string, batchSize: number): Promise<number> {
  let batches = 0;
  for (;;) {
    const row = (await knex('applications').where({ id: applicationId }).first('indexed_attributes_state')) as {
      indexed_attributes_state: string | null;
    };
    const state = parseIndexedAttributes(row.indexed_attributes_state);
    const slot = pendingSlot(state, Date.now(), 0);
    if (!slot) return batches;
    // As the backfiller (src/jobs/slot-backfiller.ts): the slot's roll-ups once it is ready.
    if ((await backfillBatch(knex, { applicationId, state }, slot, batchSize)) === 'ready') await fillSlot(knex, applicationId, slot);
    batches += 1;
  }
}

/**
 * Stores the rows of an application whose slots of `paths` are ready: filled by the writer's
 * rule, or stored without them and then backfilled.
 */
export async function storeWithSlots(
  knex: Knex,
  applicationId: string,
  rows: SpanRow[],
  paths: string[],
  via: 'writer' | 'backfill',
): Promise<void> {
  // A slot left over from an earlier run must not keep values of another key: start empty.
  await knex('applications').where({ id: applicationId }).update({ indexed_attributes_state: null });
  if (via === 'writer') {
    // As ingestion stores them: slot values in the rows, and filed per trace under the slots' generation.
    await storeSpans(knex, withSlotValues(rows, paths), { traceSlots: writtenSlots(initialIndexedAttributes(paths, 0)) });
    await setIndexedPaths(knex, applicationId, paths, true);
    return;
  }
  await storeSpans(knex, rows);
  await setIndexedPaths(knex, applicationId, paths, false);
  await backfillAll(knex, applicationId, 7);
}
