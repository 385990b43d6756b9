// The one line for each way a database cannot be used, for the driver errors that
// test/http/start-up.test.ts cannot bring about on the dev server (a user without rights on the
// database, a blocked host, a read-only SQLite file as root, a timeout); errors of the service's
// own making pass through with their stack.
import { expect } from 'chai';
import { asDatabaseUnusable, DatabaseUnusable } from '../../src/storage/database-unusable.js';

const MARIADB = 'mysql://app%40ops:s3cret-pw@db.example.com/traces';

/** A mysql2 server error as the driver makes it. */
function serverError(code: string, errno: number, message: string): Error {
  return Object.assign(new Error(message), { code, errno, sqlState: '42000', sqlMessage: message });
}

const CASES: Array<[string, { url: string | undefined; error: unknown; want: string[] }]> = [
  [
    'user without rights on the database',
    {
      url: MARIADB,
      error: serverError('ER_DBACCESS_DENIED_ERROR', 1044, "Access denied for user 'app@ops'@'10.0.0.%' to database 'traces'"),
      want: [
        "user 'app@ops' may not use database 'traces' on MariaDB at db.example.com:3306",
        'CREATE DATABASE IF NOT EXISTS `traces` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin',
        "GRANT ALL PRIVILEGES ON `traces`.* TO 'app@ops'@'10.0.0.%'",
      ],
    },
  ],
  [
    'host not allowed',
    {
      url: MARIADB,
      error: serverError('ER_HOST_NOT_PRIVILEGED', 1130, "Host '10.1.2.3' is not allowed to connect to this MariaDB server"),
      want: ['MariaDB at db.example.com:3306 does not let this host connect', "'10.1.2.3'"],
    },
  ],
  ['blocked host', { url: MARIADB, error: serverError('ER_HOST_IS_BLOCKED', 1129, 'Host blocked'), want: ['FLUSH HOSTS'] }],
  [
    'no connection in time',
    {
      url: MARIADB,
      error: Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }),
      want: ['MariaDB at db.example.com:3306 cannot be reached (no connection came up in time)'],
    },
  ],
  [
    'name server without answer',
    {
      url: MARIADB,
      error: Object.assign(new Error('getaddrinfo EAI_AGAIN db.example.com'), {
        code: 'EAI_AGAIN',
        hostname: 'db.example.com',
        syscall: 'getaddrinfo',
      }),
      want: ["'db.example.com' cannot be resolved (EAI_AGAIN)"],
    },
  ],
  [
    'a migration the server rejects',
    {
      url: MARIADB,
      error: serverError('ER_PARSE_ERROR', 1064, 'alter table `x`\n  add `y` json - You have an error in your SQL syntax'),
      want: [
        "the database (MariaDB at db.example.com:3306, database 'traces') cannot be used: alter table `x` add `y` json - You have an error in your SQL syntax (ER_PARSE_ERROR)",
      ],
    },
  ],
  [
    'read-only SQLite file',
    {
      url: 'sqlite:/srv/spanledger.sqlite',
      error: Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }),
      want: ['the SQLite file /srv/spanledger.sqlite cannot be written (attempt to write a readonly database)', 'DATABASE_URL'],
    },
  ],
  [
    'SQLite folder refused in DATA_DIR',
    {
      url: undefined,
      error: Object.assign(new Error("EACCES: permission denied, mkdir '/srv/data'"), {
        code: 'EACCES',
        syscall: 'mkdir',
        path: '/srv/data',
      }),
      want: [
        'the SQLite file /srv/data/spanledger.sqlite cannot be created: its folder /srv/data cannot be made (EACCES: permission denied); point DATA_DIR',
      ],
    },
  ],
];

describe('asDatabaseUnusable', () => {
  for (const [name, { url, error, want }] of CASES) {
    it(`says one line: ${name}`, () => {
      const result = asDatabaseUnusable(error, url, '/srv/data');
      expect(result).to.be.instanceOf(DatabaseUnusable);
      const { message, cause } = result as DatabaseUnusable;
      for (const fragment of want) expect(message).to.include(fragment);
      expect(message).not.to.include('\n');
      expect(message).not.to.include('s3cret-pw');
      expect(cause).to.equal(error);
    });
  }

  it('leaves errors of the service itself as they are', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'name')");
    expect(asDatabaseUnusable(bug, MARIADB, '/srv/data')).to.equal(bug);
    const nodeError = Object.assign(new TypeError('The "path" argument must be of type string'), { code: 'ERR_INVALID_ARG_TYPE' });
    expect(asDatabaseUnusable(nodeError, undefined, '/srv/data')).to.equal(nodeError);
  });
});
