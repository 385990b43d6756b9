// The dialect members that are not filter parts (those: test/storage/spans/filter-sql.test.ts),
// per database, without a database: expressions and statement parts (table-driven), which dialect
// a Knex instance or a database URL names, and the connection settings of each.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { SqlDialect } from '../../../src/storage/sql/dialect.js';
import { dialectFor, dialectNameOf, type DialectName } from '../../../src/storage/sql/index.js';
import { mysqlDialect } from '../../../src/storage/sql/mysql.js';
import { sqliteDialect } from '../../../src/storage/sql/sqlite.js';
import { forEachDialect } from '../../support/sql-cases.js';

const MEMBERS: Array<[name: string, member: (dialect: SqlDialect) => unknown, want: Record<DialectName, unknown>]> = [
  [
    'asText: an integer expression as decimal text',
    (dialect) => dialect.asText('MAX(seq)'),
    { sqlite: 'CAST(MAX(seq) AS TEXT)', mysql: 'CAST(MAX(seq) AS CHAR)' },
  ],
  [
    'jsonText: a JSON column as its stored text',
    (dialect) => dialect.jsonText('s.events'),
    { sqlite: 's.events', mysql: 'CAST(s.events AS CHAR)' },
  ],
  [
    'tableThroughIndex',
    (dialect) => dialect.tableThroughIndex('spans', 's', 'spans_newest_first'),
    { sqlite: 'spans AS s INDEXED BY spans_newest_first', mysql: 'spans AS s FORCE INDEX (spans_newest_first)' },
  ],
  ['insertedValue: the value an upsert brought', (dialect) => dialect.insertedValue, { sqlite: 'excluded.??', mysql: 'VALUES(??)' }],
  [
    'greatest and least of two values',
    (dialect) => [dialect.greatest, dialect.least],
    { sqlite: ['MAX', 'MIN'], mysql: ['GREATEST', 'LEAST'] },
  ],
  [
    'exactInteger: a decimal string as a 64-bit integer',
    (dialect) => dialect.exactInteger,
    { sqlite: 'CAST(? AS INTEGER)', mysql: 'CAST(? AS SIGNED)' },
  ],
  [
    'integerDivide: whole-number division of 64-bit integers',
    (dialect) => dialect.integerDivide('s.start - ?', '?'),
    { sqlite: '(s.start - ?) / (?)', mysql: '(s.start - ?) DIV (?)' },
  ],
  [
    'exactKey: a text key compared by its bytes',
    (dialect) => dialect.exactKey('s.unit'),
    { sqlite: 's.unit', mysql: 'CAST(s.unit AS BINARY)' },
  ],
  [
    'asDouble',
    (dialect) => dialect.asDouble('t.spans_count'),
    { sqlite: 'CAST(t.spans_count AS REAL)', mysql: 'CAST(t.spans_count AS DOUBLE)' },
  ],
  ['hasVarPop', (dialect) => dialect.hasVarPop, { sqlite: false, mysql: true }],
  [
    'snapshot: the transaction settings of one snapshot',
    (dialect) => dialect.snapshot,
    { sqlite: undefined, mysql: { isolationLevel: 'repeatable read' } },
  ],
];

describe('SQL dialects', () => {
  forEachDialect((knex, dialect, name) => {
    for (const [memberName, member, want] of MEMBERS) {
      it(memberName, () => expect(member(dialect)).to.deep.equal(want[name]));
    }

    it('is the dialect of a Knex instance of its client', () => expect(dialectFor(knex)).to.equal(dialect));

    it('places the upsert’s value in raw SQL', () => {
      const raw = knex.raw(`${dialect.greatest}(??, ${dialect.insertedValue})`, [
        'traces.max_end_time_unix_nano',
        'max_end_time_unix_nano',
      ]);
      expect(raw.toSQL().sql).to.equal(
        name === 'sqlite'
          ? 'MAX(`traces`.`max_end_time_unix_nano`, excluded.`max_end_time_unix_nano`)'
          : 'GREATEST(`traces`.`max_end_time_unix_nano`, VALUES(`max_end_time_unix_nano`))',
      );
    });
  });

  it('reads the dialect of a database URL (src/config.ts admits mysql: and sqlite: URLs, or none)', () => {
    expect(['mysql://u:p@127.0.0.1:3306/db', 'sqlite:/tmp/a.sqlite', 'sqlite::memory:', undefined].map(dialectNameOf)).to.deep.equal([
      'mysql',
      'sqlite',
      'sqlite',
      'sqlite',
    ]);
  });
});

describe('connection settings', () => {
  let dataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spanledger-settings-'));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  /** The settings without the pool's afterCreate hook, which the SQLite case runs on its own. */
  function plain(settings: Knex.Config): Knex.Config {
    const { afterCreate, ...pool } = (settings.pool ?? {}) as Knex.PoolConfig & { afterCreate?: unknown };
    expect(typeof afterCreate).to.equal(settings.client === 'better-sqlite3' ? 'function' : 'undefined');
    return { ...settings, pool };
  }

  const sqlite = (filename: string): Knex.Config => ({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
    acquireConnectionTimeout: 8000,
  });

  it('SQLite without a URL: spanledger.sqlite in the data folder, which it creates; one connection, waited for 8 s at most', () => {
    const folder = path.join(dataDir, 'fresh');
    expect(plain(sqliteDialect.knexSettings(undefined, folder))).to.deep.equal(sqlite(path.join(folder, 'spanledger.sqlite')));
    expect(fs.statSync(folder).isDirectory()).to.equal(true);
  });

  it('SQLite with a URL: the file it names (with or without //), its folder created; :memory: as it is', () => {
    const named = path.join(dataDir, 'elsewhere', 'db.sqlite');
    expect(plain(sqliteDialect.knexSettings(`sqlite://${named}`, '/nonexistent'))).to.deep.equal(sqlite(named));
    expect(plain(sqliteDialect.knexSettings(`sqlite:${named}`, '/nonexistent'))).to.deep.equal(sqlite(named));
    expect(fs.statSync(path.dirname(named)).isDirectory()).to.equal(true);
    expect(plain(sqliteDialect.knexSettings('sqlite::memory:', '/nonexistent'))).to.deep.equal(sqlite(':memory:'));
  });

  it('SQLite connections: WAL, foreign keys on, a busy timeout', () => {
    const pragmas: string[] = [];
    const pool = sqliteDialect.knexSettings(':memory:', dataDir).pool as {
      afterCreate(connection: unknown, done: (error: Error | null, connection: unknown) => void): void;
    };
    const connection = { pragma: (sql: string) => pragmas.push(sql) };
    let handed: unknown;
    pool.afterCreate(connection, (error, created) => {
      expect(error).to.equal(null);
      handed = created;
    });
    expect(pragmas).to.deep.equal(['journal_mode = WAL', 'foreign_keys = ON', 'busy_timeout = 5000']);
    expect(handed).to.equal(connection);
  });

  it('MariaDB/MySQL: the URL, exact big numbers as strings, UTC, utf8mb4, a pool of 10 and an 8 s acquire timeout', () => {
    const url = 'mysql://u:p@127.0.0.1:3307/spanledger';
    expect(plain(mysqlDialect.knexSettings(url, dataDir))).to.deep.equal({
      client: 'mysql2',
      connection: { uri: url, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true, timezone: 'Z', charset: 'utf8mb4' },
      pool: { min: 0, max: 10 },
      acquireConnectionTimeout: 8000,
    });
  });
});
