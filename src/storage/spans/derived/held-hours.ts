// Whole hours of span start time, the unit the rebuild of derived data works in
// (derived-rebuild.ts), and the hours a table holds rows of (DerivedData.heldHours).
import type { Knex } from 'knex';
import { bigintAsText } from '../../database.js';
import { hourStartOf } from '../read-sources.js';
import type { HeldHours } from './derived-data.js';

/** The hours from the least to the greatest value of a nanosecond column over the query's rows (none: undefined). */
export async function heldHoursOf(db: Knex, query: Knex.QueryBuilder, column: string): Promise<HeldHours | undefined> {
  const rows = (await query.select({
    first: bigintAsText(db, `MIN(${column})`),
    last: bigintAsText(db, `MAX(${column})`),
  })) as Array<{ first: string | null; last: string | null }>;
  const [row] = rows;
  if (row?.first === null || row?.first === undefined || row.last === null) return undefined;
  return { firstNs: hourStartOf(BigInt(row.first)), lastNs: hourStartOf(BigInt(row.last)) };
}
