// Picks the filter dialect of a Knex instance.
import type { Knex } from 'knex';
import { isMysql } from '../database.js';
import type { FilterDialect } from './dialect.js';
import { mysqlDialect } from './mysql.js';
import { sqliteDialect } from './sqlite.js';

export function dialectFor(knex: Knex): FilterDialect {
  return isMysql(knex) ? mysqlDialect : sqliteDialect;
}
