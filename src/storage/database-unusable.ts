// Owns what the service says when the database it is pointed at cannot be used at all, at start
// and in `npm run migrate`: a MariaDB database that does not exist, a refused sign-in, a server
// that cannot be reached, a SQLite file that cannot be created or opened. Each becomes one line
// that says what is wrong and what to do, naming no password. The service never creates a
// MariaDB database itself: it says which command creates it (README, "Databases").
import fs from 'node:fs';
import path from 'node:path';
import { dialectNameOf } from './sql/index.js';
import { sqliteFilename } from './sql/sqlite.js';

/** The database cannot be used; `message` is the one line for the operator, `cause` the driver's error. */
export class DatabaseUnusable extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'DatabaseUnusable';
  }
}

/** The options every table is made with (migrations/mysql-table-options.ts), so also the database's. */
export const CREATE_DATABASE_OPTIONS = 'CHARACTER SET utf8mb4 COLLATE utf8mb4_bin';

interface DriverError {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  syscall?: unknown;
  path?: unknown;
}

/** Long enough for a driver's reason, short enough to stay a line a terminal shows whole. */
const MAX_REASON_CHARS = 300;

function reasonOf(error: DriverError): string {
  let text = String(error.message ?? error)
    .replace(/\s+/g, ' ')
    .trim();
  // Node's system errors end in the call and path (`ENOTDIR: not a directory, mkdir '/a/b'`), said elsewhere in the line.
  if (typeof error.syscall === 'string' && /^\w+$/.test(error.syscall)) text = text.replace(new RegExp(`, ${error.syscall}\\b.*$`), '');
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS)}…` : text;
}

function quoteIdentifier(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

function createDatabaseStatement(database: string): string {
  return `CREATE DATABASE ${quoteIdentifier(database)} ${CREATE_DATABASE_OPTIONS}`;
}

interface MysqlTarget {
  /** `host:port`, as the URL names them (3306 when it names no port). */
  where: string;
  database: string;
  user: string;
}

function mysqlTarget(databaseUrl: string): MysqlTarget {
  const url = new URL(databaseUrl);
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  return { where: `${url.hostname}:${url.port || 3306}`, database: decode(url.pathname.slice(1)), user: decode(url.username) };
}

/** The `'user'@'host'` a MariaDB refusal names: the account as the server saw it. */
function accountIn(message: string): string | undefined {
  return /'[^']*'@'[^']*'/.exec(message)?.[0];
}

const UNREACHABLE: Record<string, string> = {
  ETIMEDOUT: 'no answer in time',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
  EHOSTDOWN: 'the host is down',
  KnexTimeoutError: 'no connection came up in time',
};

function mysqlProblem(error: DriverError, target: MysqlTarget): string | undefined {
  const { where, database, user } = target;
  const code = typeof error.code === 'string' ? error.code : String(error.name);
  const server = `MariaDB at ${where}`;
  switch (code) {
    case 'ER_BAD_DB_ERROR':
      return `database '${database}' does not exist on ${server}; create it (spanledger does not create databases): ${createDatabaseStatement(database)}`;
    case 'ER_DBACCESS_DENIED_ERROR':
      return (
        `user '${user}' may not use database '${database}' on ${server} (${reasonOf(error)}); as an administrator, create it if it is missing and grant access: ` +
        `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(database)} ${CREATE_DATABASE_OPTIONS}; GRANT ALL PRIVILEGES ON ${quoteIdentifier(database)}.* TO ${accountIn(String(error.message)) ?? `'${user}'@'%'`}`
      );
    case 'ER_ACCESS_DENIED_ERROR':
    case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR':
      return `${server} refused user '${user}' (${reasonOf(error)}); check the user name and password in DATABASE_URL, and that this user may connect from this host`;
    case 'ER_HOST_NOT_PRIVILEGED':
      return `${server} does not let this host connect (${reasonOf(error)}); an administrator creates user '${user}' for this host, or connect from a host it allows`;
    case 'ER_HOST_IS_BLOCKED':
      return `${server} blocks this host after too many failed connections (${reasonOf(error)}); an administrator unblocks it with FLUSH HOSTS`;
    case 'ER_CON_COUNT_ERROR':
      return `${server} has no connection to spare (${reasonOf(error)}); start again later, or raise its max_connections`;
    case 'ECONNREFUSED': {
      const address = typeof error.address === 'string' ? `${error.address}:${error.port ?? ''}` : where;
      return `nothing accepts connections at ${address} (connection refused); check the host and port in DATABASE_URL and that MariaDB runs there`;
    }
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return `the database host '${typeof error.hostname === 'string' ? error.hostname : where}' cannot be resolved (${code}); check the host name in DATABASE_URL`;
    case 'ECONNRESET':
    case 'PROTOCOL_CONNECTION_LOST':
      return `${server} closed the connection (${code}); check that the host and port in DATABASE_URL are those of a running MariaDB`;
  }
  if (Object.hasOwn(UNREACHABLE, code))
    return `${server} cannot be reached (${UNREACHABLE[code]}); check the host and port in DATABASE_URL and that the network lets this machine through`;
  return undefined;
}

/** Why a SQLite file the library could not open is unusable, as far as the file system tells. */
function cannotOpenReason(file: string): string {
  try {
    if (fs.statSync(file).isDirectory()) return 'it is a folder';
  } catch {
    // Absent: the folder is what refuses.
  }
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    return reasonOf(error as DriverError);
  }
  return 'unable to open database file';
}

function sqliteProblem(error: DriverError, file: string, variable: string): string | undefined {
  const code = typeof error.code === 'string' ? error.code : '';
  const writable = `point ${variable} at a folder this process may write`;
  if (error.syscall === 'mkdir') {
    // mkdir's EEXIST here means a file stands where the folder would be ("file already exists" misleads).
    const reason = code === 'EEXIST' ? 'a file, not a folder, is there' : reasonOf(error);
    return `the SQLite file ${file} cannot be created: its folder ${String(error.path ?? path.dirname(file))} cannot be made (${reason}); ${writable}`;
  }
  if (code === 'SQLITE_CANTOPEN') return `the SQLite file ${file} cannot be opened (${cannotOpenReason(file)}); ${writable}`;
  if (code === 'SQLITE_NOTADB')
    return `${file} is not a SQLite database (${reasonOf(error)}); point ${variable} at spanledger's own file, or at a path with no file yet, where it makes one`;
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM')
    return `the SQLite file ${file} cannot be written (${reasonOf(error)}); make it and its folder writable, or ${writable}`;
  if (code.startsWith('SQLITE_BUSY'))
    return `the SQLite file ${file} is locked by another process (${reasonOf(error)}); stop the other process, or give this one a file of its own`;
  if (code.startsWith('SQLITE_CORRUPT')) return `the SQLite file ${file} is damaged (${reasonOf(error)}); restore it from a backup`;
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR'))
    return `the SQLite file ${file} cannot be written to its disk (${reasonOf(error)}); free space, or ${writable}`;
  return undefined;
}

/** An error of MariaDB's (ER_…), SQLite's (SQLITE_…) or the operating system's, not of the service's code. */
function isDriverError(error: DriverError): boolean {
  return typeof error.code === 'string' && (/^(ER_|SQLITE_)/.test(error.code) || typeof error.syscall === 'string');
}

/**
 * `error`, thrown while opening the database or migrating it, as a DatabaseUnusable when it is
 * one the operator fixes outside the service; any other error as it is (a fault of the service).
 */
export function asDatabaseUnusable(error: unknown, databaseUrl: string | undefined, dataDir: string): unknown {
  if (!error || typeof error !== 'object' || error instanceof DatabaseUnusable) return error;
  const driverError = error as DriverError;
  let problem: string | undefined;
  let where: string;
  if (dialectNameOf(databaseUrl) === 'mysql') {
    const target = mysqlTarget(databaseUrl as string);
    problem = mysqlProblem(driverError, target);
    where = `MariaDB at ${target.where}, database '${target.database}'`;
  } else {
    const file = path.resolve(sqliteFilename(databaseUrl, dataDir));
    problem = sqliteProblem(driverError, file, databaseUrl ? 'DATABASE_URL (sqlite:/path/to/file.sqlite)' : 'DATA_DIR');
    where = `SQLite file ${file}`;
  }
  // Any other refusal by the database or the file system (a migration's statement the server
  // rejects, say): still one line. Errors of the service's own making keep their stack.
  if (!problem && isDriverError(driverError))
    problem = `the database (${where}) cannot be used: ${reasonOf(driverError)} (${driverError.code})`;
  return problem ? new DatabaseUnusable(problem, error) : error;
}
