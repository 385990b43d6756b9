// A time window on a nanosecond column, applied exactly on both databases whatever the bounds.
import type { Knex } from 'knex';
import type { SqlDialect } from '../sql/dialect.js';

/** The range of the BIGINT time and sequence columns. */
export const MIN_STORED_INTEGER = -(2n ** 63n);
export const MAX_STORED_INTEGER = 2n ** 63n - 1n;

/**
 * `[startNs, endNs)` on a nanosecond column. A bound outside the column's signed 64-bit range
 * (RFC 3339 reaches from year 0001 to 9999) is applied as what it means, either no bound or one
 * that nothing meets: bound as it is, MariaDB's CAST would wrap it to a wrong number.
 */
export function betweenNanos(dialect: SqlDialect, column: string, startNs: bigint | undefined, endNs: bigint | undefined) {
  return (query: Knex.QueryBuilder) => {
    if (startNs !== undefined) {
      if (startNs > MAX_STORED_INTEGER) query.whereRaw('1 = 0');
      else if (startNs > MIN_STORED_INTEGER) query.whereRaw(`${column} >= ${dialect.exactInteger}`, [startNs.toString()]);
    }
    if (endNs !== undefined) {
      if (endNs <= MIN_STORED_INTEGER) query.whereRaw('1 = 0');
      else if (endNs <= MAX_STORED_INTEGER) query.whereRaw(`${column} < ${dialect.exactInteger}`, [endNs.toString()]);
    }
  };
}
