// Spend roll-ups per indexed attribute value (src/storage/spend/spend-slot-rollups.ts, README.md
// there): spend_rollups' rows for an application that indexes attribute keys, per slot,
// generation, kind of value and kept value, and spend currency. The spans stored before this
// migration are rolled up here for every ready slot: each hour from the spans, then each day
// from its hours (each statement committed on its own); a slot still being backfilled is rolled
// up by the backfiller once it is ready (DerivedData.fillSlot).
import type { Knex } from 'knex';
import { readySlotsOfApplications } from '../accounts/applications.js';
import { atOrAfterEdge, purgeEdgeOf } from '../spans/purge-edge.js';
import { hoursToRebuild } from '../spans/rollups/slot-rollups.js';
import { DAY_NS, dayStartNs, HOUR_NS } from '../spend/spend-ranges.js';
import { rebuildSpendDays, rebuildSpendHourOf, SPEND_MEASURES } from '../spend/spend-rollups.js';
import { SPEND_SLOT_ROLLUPS, SPEND_SLOT_VALUES, spendSlotKeys } from '../spend/spend-slot-rollups.js';
import type { Run } from '../sql/dialect.js';
import { binaryCollation } from './mysql-table-options.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable(SPEND_SLOT_ROLLUPS.name, (table) => {
    table.string('application_id', 40).notNullable();
    /** 3600 (an hour) or 86400 (a day), as spend_rollups. */
    table.integer('bucket_width_s').notNullable();
    table.bigInteger('bucket_start_unix_nano').notNullable();
    /** A hash of slot, generation, value_kind, value and currency (spend-rollups.ts hashes them as spend_rollups' dimensions). */
    table.string('dimensions_hash', 32).notNullable();
    table.integer('slot').notNullable();
    /** The `since` of the slot's key (epoch milliseconds): rows of an earlier key are never read. */
    table.bigInteger('generation').notNullable();
    /** 0: no value (missing or JSON null), 1: the string in `value`, 2: a value the slot does not keep. */
    table.integer('value_kind').notNullable();
    /** '' unless value_kind is 1; at most 255 characters (the slot's rule). No key part (the hash is): reads group it by its bytes, so PAD SPACE never joins `x` and `x `. */
    table.string('value', 255).notNullable();
    /** The spend currency (price_currency, or USD for a reported cost); null for the spans without a cost. */
    table.string('currency', 3).nullable();
    for (const column of SPEND_MEASURES)
      if (column === 'cost_sum') table.double(column).notNullable();
      else table.bigInteger(column).notNullable();
    table.primary(['application_id', 'bucket_width_s', 'bucket_start_unix_nano', 'dimensions_hash']);
    binaryCollation(knex, table);
  });
  await rollUpStoredSpans(knex);
}

/** Rolls up the stored spans of every ready slot: its hours short of spend_rollups', then their days (exported for its test). */
export async function rollUpStoredSpans(knex: Knex): Promise<void> {
  // Each statement on its own (on MariaDB the CREATE TABLE above ended the migration's
  // transaction), a raw SELECT's rows answered as a transaction's `run` answers them (mysql2 gives [rows, fields]).
  const run: Run = async <T>(query: Knex.QueryBuilder) => {
    const result = (await query) as unknown;
    return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as T;
  };
  for (const { id: applicationId, slots } of await readySlotsOfApplications(knex)) {
    const edge = await purgeEdgeOf(knex, applicationId);
    const days = new Set<bigint>();
    for (const slot of slots) {
      const where = { slot: slot.slot, generation: slot.generation };
      for (const startNs of await hoursToRebuild(knex, applicationId, slot, false, SPEND_SLOT_VALUES)) {
        if (!atOrAfterEdge(edge, startNs)) continue;
        const hour = { applicationId, startNs, endNs: startNs + HOUR_NS, keys: spendSlotKeys(knex, slot), where };
        await rebuildSpendHourOf(knex, run, SPEND_SLOT_ROLLUPS, hour);
        days.add(dayStartNs(startNs));
      }
    }
    for (const day of days) await rebuildSpendDays(knex, run, SPEND_SLOT_ROLLUPS, applicationId, day, day + DAY_NS);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists(SPEND_SLOT_ROLLUPS.name);
}
