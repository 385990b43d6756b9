// MariaDB/MySQL tables use a binary collation so that strings compare case-sensitively and
// byte for byte, exactly as on SQLite.
import type { Knex } from 'knex';
import { isMysql } from '../sql/index.js';

export function binaryCollation(knex: Knex, table: Knex.CreateTableBuilder): void {
  if (!isMysql(knex)) return;
  table.charset('utf8mb4');
  table.collate('utf8mb4_bin');
}
