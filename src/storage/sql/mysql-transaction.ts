// A MariaDB/MySQL transaction driven straight on one pooled mysql2 connection: the span writer's
// statements go out back to back, with none of the per-statement bookkeeping of a Knex
// transaction (which showed up as a measurable share of the CPU time per ingested batch).
import type { Knex } from 'knex';
import type { NativeStatement } from './row-statements.js';

/** The callback API of a mysql2 connection from Knex's pool. */
export interface Mysql2Connection {
  query(sql: string, values: readonly unknown[], callback: (error: Error | null, result?: unknown) => void): void;
  execute(sql: string, values: unknown[], callback: (error: Error | null, result?: { affectedRows: number }) => void): void;
}

function query<T>(connection: Mysql2Connection, sql: string, values: readonly unknown[] = []): Promise<T> {
  return new Promise((resolve, reject) => connection.query(sql, values, (error, result) => (error ? reject(error) : resolve(result as T))));
}

/** Runs a Knex-built statement on the connection and resolves with its rows or result. */
export function send<T>(connection: Mysql2Connection, statement: Knex.QueryBuilder): Promise<T> {
  const { sql, bindings } = statement.toSQL().toNative();
  return query<T>(connection, sql, bindings);
}

/**
 * Runs a Knex-built statement as a prepared statement (mysql2 `execute`, kept per connection by
 * its text): for statements whose text repeats, such as multi-row writes sized in powers of two,
 * the server parses it once per connection and the values travel unescaped in the binary protocol.
 */
export function sendPrepared<T>(connection: Mysql2Connection, statement: Knex.QueryBuilder): Promise<T> {
  const { sql, bindings } = statement.toSQL().toNative();
  return sendPreparedNative(connection, { sql, bindings: [...bindings] });
}

/** sendPrepared for a statement compiled ahead (row-statements.ts). */
export function sendPreparedNative<T>(connection: Mysql2Connection, { sql, bindings }: NativeStatement): Promise<T> {
  return new Promise((resolve, reject) =>
    connection.execute(sql, bindings, (error, result) => (error ? reject(error) : resolve(result as T))),
  );
}

type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/**
 * Runs `work` in a transaction on a connection of Knex's pool: committed when it resolves, rolled
 * back when it throws (the error is passed on). mysql2 runs a connection's commands in the order
 * they were issued, so the transaction's set-up goes out with the first statement of `work`, one
 * wait instead of three; should it fail, its error is the one passed on.
 */
export async function withMysqlTransaction<T>(
  knex: Knex,
  isolationLevel: IsolationLevel,
  work: (connection: Mysql2Connection) => Promise<T>,
): Promise<T> {
  const connection = (await knex.client.acquireConnection()) as Mysql2Connection;
  try {
    const begin = Promise.all([
      query(connection, `SET TRANSACTION ISOLATION LEVEL ${isolationLevel}`),
      query(connection, 'START TRANSACTION'),
    ]);
    let result: T;
    try {
      // Both settle before anything else is sent: no statement of `work` may outlive the transaction.
      const [begun, worked] = await Promise.allSettled([begin, work(connection)]);
      if (begun.status === 'rejected') throw begun.reason;
      if (worked.status === 'rejected') throw worked.reason;
      result = worked.value;
      await query(connection, 'COMMIT');
    } catch (error) {
      // A connection that cannot even roll back is broken: Knex's pool checks it before reuse.
      await query(connection, 'ROLLBACK').catch(() => undefined);
      throw error;
    }
    return result;
  } finally {
    await knex.client.releaseConnection(connection);
  }
}
