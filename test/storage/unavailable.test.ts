// Which database errors answer 503 (src/storage/unavailable.ts), with the error objects mysql2
// really builds: the statements go to a stand-in server (test/support/failing-mysql-server.ts)
// that answers with the server errors a Galera cluster sends, through Knex as the service runs
// them; the lock conflicts and SQLite's errors are checked by their shapes.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { knexSettings } from '../../src/storage/database.js';
import { isLockConflict } from '../../src/storage/transactions.js';
import { isDatabaseUnavailable } from '../../src/storage/unavailable.js';
import { FailingMysqlServer, WSREP_NOT_READY, type ServerError } from '../support/failing-mysql-server.js';

describe('database errors that answer 503', () => {
  const server = new FailingMysqlServer();
  let knex: Knex;

  before(async () => {
    await server.start();
    // Quiet: Knex warns that it cannot read the server's version, which the stand-in never tells.
    knex = knexFactory({ ...knexSettings(server.url, '/nonexistent'), log: { warn: () => undefined } });
  });

  after(async () => {
    await knex.destroy();
    await server.stop();
  });

  async function errorFor(
    error: ServerError,
    statement: () => Promise<unknown> = () => knex('users').where({ id: 'usr_1' }).first(),
  ): Promise<unknown> {
    server.error = error;
    try {
      await statement();
    } catch (caught) {
      return caught;
    }
    throw new Error('the statement succeeded');
  }

  it('a Galera node outside the primary component (1047), also inside a transaction', async () => {
    const error = await errorFor(WSREP_NOT_READY);
    expect(error).to.include({ code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 });
    expect(isDatabaseUnavailable(error)).to.equal(true);
    expect(isLockConflict(error)).to.equal(false);
    const inTransaction = await errorFor(WSREP_NOT_READY, () => knex.transaction((trx) => trx('users').insert({ id: 'usr_1' })));
    expect(inTransaction).to.include({ errno: 1047 });
    expect(isDatabaseUnavailable(inTransaction)).to.equal(true);
  });

  it('a commit that failed while the node lost the cluster (1180)', async () => {
    const error = await errorFor({ errno: 1180, message: 'Got error 6 "No such device or address" during COMMIT' });
    expect(error).to.include({ code: 'ER_ERROR_DURING_COMMIT', errno: 1180 });
    expect(isDatabaseUnavailable(error)).to.equal(true);
  });

  it('a killed connection (MariaDB 1927, which mysql2 has no name for)', async () => {
    const error = await errorFor({ errno: 1927, message: 'Connection was killed' });
    expect(error).to.include({ errno: 1927 });
    expect((error as { code?: unknown }).code).to.equal(undefined);
    expect(isDatabaseUnavailable(error)).to.equal(true);
  });

  it('a connection that breaks mid-statement (a node killed), as a fatal mysql2 error', async () => {
    server.killNext();
    const error = await errorFor(WSREP_NOT_READY);
    expect(error).to.include({ fatal: true });
    expect(isDatabaseUnavailable(error)).to.equal(true);
  });

  it('certification conflicts and lock-wait timeouts: lock conflicts (retried whole), then 503', async () => {
    for (const [errno, code] of [
      [1213, 'ER_LOCK_DEADLOCK'],
      [1205, 'ER_LOCK_WAIT_TIMEOUT'],
    ] as const) {
      const error = await errorFor({ errno, message: 'Deadlock found when trying to get lock; try restarting transaction' });
      expect(error).to.include({ code, errno });
      expect(isLockConflict(error), code).to.equal(true);
      expect(isDatabaseUnavailable(error), code).to.equal(true);
    }
  });

  it('a statement the server stops or cannot finish under load: 503, and no lock conflict (not retried)', async () => {
    for (const [errno, code] of [
      [1317, 'ER_QUERY_INTERRUPTED'],
      [1969, undefined],
      [3024, 'ER_QUERY_TIMEOUT'],
      [1028, 'ER_FILSORT_ABORT'],
      [1037, 'ER_OUTOFMEMORY'],
      [1038, 'ER_OUT_OF_SORTMEMORY'],
      [1041, 'ER_OUT_OF_RESOURCES'],
      [1114, 'ER_RECORD_FILE_FULL'],
      [1040, 'ER_CON_COUNT_ERROR'],
      [1203, 'ER_TOO_MANY_USER_CONNECTIONS'],
      [1226, 'ER_USER_LIMIT_REACHED'],
      [1637, 'ER_TOO_MANY_CONCURRENT_TRXS'],
      [1053, 'ER_SERVER_SHUTDOWN'],
      [1158, 'ER_NET_READ_ERROR'],
      [1159, 'ER_NET_READ_INTERRUPTED'],
      [1160, 'ER_NET_ERROR_ON_WRITE'],
      [1161, 'ER_NET_WRITE_INTERRUPTED'],
      [4031, 'ER_CLIENT_INTERACTION_TIMEOUT'],
      [1181, 'ER_ERROR_DURING_ROLLBACK'],
      [1412, 'ER_TABLE_DEF_CHANGED'],
      [1020, 'ER_CHECKREAD'],
    ] as const) {
      const error = await errorFor({ errno, message: 'stopped' }, () => knex.transaction((trx) => trx('spans').select('trace_id')));
      expect(error, String(errno)).to.include({ errno });
      expect((error as { code?: unknown }).code, String(errno)).to.equal(code);
      expect(isDatabaseUnavailable(error), String(errno)).to.equal(true);
      expect(isLockConflict(error), String(errno)).to.equal(false);
    }
  });

  it('not errors of the request or of the code: a duplicate key, a missing table, a syntax error', async () => {
    for (const errno of [1062, 1146, 1064, 1105]) {
      const error = await errorFor({ errno, message: 'no' });
      expect(isDatabaseUnavailable(error), String(errno)).to.equal(false);
    }
    expect(isDatabaseUnavailable({ errno: 1927, code: 'ER_SOMETHING_ELSE' })).to.equal(false);
    expect(isDatabaseUnavailable({ errno: 1969, code: 'ER_SOMETHING_ELSE' })).to.equal(false);
    expect(isDatabaseUnavailable(new Error('plain'))).to.equal(false);
    expect(isDatabaseUnavailable(undefined)).to.equal(false);
  });

  it('SQLite: busy, locked, I/O, full, cannot open', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_CANTOPEN']) {
      expect(isDatabaseUnavailable(Object.assign(new Error(code), { code })), code).to.equal(true);
    }
    expect(isDatabaseUnavailable(Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }))).to.equal(false);
  });
});
