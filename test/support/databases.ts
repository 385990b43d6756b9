// The databases every integration suite runs on: SQLite always, MariaDB/MySQL when
// TEST_MYSQL_URL is set. With REQUIRE_MYSQL=1 (CI) a missing MariaDB is a failure, never a skip.
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';

export interface TestDatabase {
  name: 'sqlite' | 'mysql';
  /** A DATABASE_URL for a fresh, empty database, and a function that drops it. */
  create(dataDir: string): Promise<{ url: string; drop(): Promise<void> }>;
}

const sqlite: TestDatabase = {
  name: 'sqlite',
  create: async (dataDir) => ({ url: `sqlite:${dataDir}/test.sqlite`, drop: async () => {} }),
};

function mysql(serverUrl: string): TestDatabase {
  return {
    name: 'mysql',
    async create() {
      const database = `spanledger_t_${randomBytes(6).toString('hex')}`;
      const admin = knexFactory({ client: 'mysql2', connection: serverUrl, pool: { min: 0, max: 1 } });
      try {
        await admin.raw(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      } finally {
        await admin.destroy();
      }
      const url = new URL(serverUrl);
      url.pathname = `/${database}`;
      return {
        url: url.toString(),
        async drop() {
          const dropper = knexFactory({ client: 'mysql2', connection: serverUrl, pool: { min: 0, max: 1 } });
          try {
            await dropper.raw(`DROP DATABASE IF EXISTS \`${database}\``);
          } finally {
            await dropper.destroy();
          }
        },
      };
    },
  };
}

export function testDatabases(): TestDatabase[] {
  const mysqlUrl = process.env.TEST_MYSQL_URL;
  if (!mysqlUrl && process.env.REQUIRE_MYSQL === '1') {
    throw new Error('REQUIRE_MYSQL=1 but TEST_MYSQL_URL is not set: the MariaDB suites cannot run');
  }
  return mysqlUrl ? [sqlite, mysql(mysqlUrl)] : [sqlite];
}
