// The SQL a query builder sends, per dialect, without a database: Knex instances with no
// connection (one per client; `knex.client.config.client` picks the dialect, see
// src/storage/sql/index.ts), and the table-test case type of the SQL tests under test/storage/.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import type { FilterNode } from '../../src/filter/ast.js';
import { validateFilter, type FilterOptions } from '../../src/filter/validate.js';
import type { DialectName } from '../../src/storage/sql/index.js';
import type { SqlDialect } from '../../src/storage/sql/dialect.js';
import { mysqlDialect } from '../../src/storage/sql/mysql.js';
import { sqliteDialect } from '../../src/storage/sql/sqlite.js';

/** A statement as Knex compiles it: SQL text with `?` placeholders, and the values bound to them. */
export interface Sql {
  sql: string;
  bindings: unknown[];
}

/** What selectSpanColumns (src/storage/spans/stored-span.ts) selects from `spans as s`, per dialect. */
const STORED_COLUMNS =
  '`s`.`trace_id`, `s`.`span_id`, `s`.`parent_span_id`, `s`.`span_kind`, `s`.`status_code`, `s`.`span_name`, `s`.`service_name`, `s`.`unit`, `s`.`parent_unit`, ' +
  '`s`.`billing_resource_type`, `s`.`billing_resource_name`, `s`.`billing_service_id`, `s`.`billing_service_name`, `s`.`billing_sku_id`, `s`.`billing_sku_name`, ' +
  '`s`.`billing_region`, `s`.`usage_unit`, `s`.`status_message`, `s`.`scope_name`, `s`.`scope_version`, `s`.`model`, `s`.`provider`, ' +
  '`s`.`duration_ms`, `s`.`cost`, `s`.`usage_amount`, ' +
  '`s`.`input_tokens`, `s`.`output_tokens`, `s`.`cache_read_tokens`, `s`.`cache_creation_tokens`, `s`.`total_tokens`, ' +
  '`s`.`cost_source`, `s`.`price_model`, `s`.`price_provider`, `s`.`price_book`, `s`.`unpriced_reason`, `s`.`price_entry_id`, `s`.`price_currency`, ' +
  '`s`.`dropped_attributes_count`, `s`.`dropped_events_count`, `s`.`dropped_links_count`';
export const SELECT_STORED_SPANS: Record<DialectName, string> = {
  sqlite:
    `select ${STORED_COLUMNS}, CAST(s.seq AS TEXT) as \`seq\`, CAST(s.start_time_unix_nano AS TEXT) as \`start_time_unix_nano\`, CAST(s.end_time_unix_nano AS TEXT) as \`end_time_unix_nano\`, ` +
    's.resource_attributes as `resource_attributes`, s.span_attributes as `span_attributes`, s.events as `events`, s.links as `links` from `spans` as `s`',
  mysql:
    `select ${STORED_COLUMNS}, CAST(s.seq AS CHAR) as \`seq\`, CAST(s.start_time_unix_nano AS CHAR) as \`start_time_unix_nano\`, CAST(s.end_time_unix_nano AS CHAR) as \`end_time_unix_nano\`, ` +
    'CAST(s.resource_attributes AS CHAR) as `resource_attributes`, CAST(s.span_attributes AS CHAR) as `span_attributes`, CAST(s.events AS CHAR) as `events`, CAST(s.links AS CHAR) as `links` from `spans` as `s`',
};

/** One row of a table test: a name, the input, and the statement wanted on each database. */
export type SqlCase<I> = [name: string, input: I, want: Record<DialectName, Sql>];

/** The Knex client and the dialect module of each database. */
const DIALECTS: Array<[name: DialectName, settings: Knex.Config, dialect: SqlDialect]> = [
  ['sqlite', { client: 'better-sqlite3', useNullAsDefault: true }, sqliteDialect],
  ['mysql', { client: 'mysql2' }, mysqlDialect],
];

/**
 * Declares `body`'s tests once per dialect, each inside `describe(name)` with a connection-less
 * Knex instance of that dialect's client, destroyed after them.
 */
export function forEachDialect(body: (knex: Knex, dialect: SqlDialect, name: DialectName) => void): void {
  for (const [name, settings, dialect] of DIALECTS) {
    describe(name, () => {
      const knex = knexFactory(settings);
      after(() => knex.destroy());
      body(knex, dialect, name);
    });
  }
}

/** The SQL and bindings of a builder or a raw statement. */
export function sqlOf(statement: Knex.QueryBuilder | Knex.Raw): Sql {
  const { sql, bindings } = statement.toSQL();
  return { sql, bindings: [...bindings] };
}

/** One test per case and dialect: `build` makes the statement of the input, which must compile to the case's SQL. */
export function sqlCases<I>(cases: Array<SqlCase<I>>, build: (knex: Knex, input: I) => Knex.QueryBuilder | Knex.Raw): void {
  forEachDialect((knex, _dialect, name) => {
    for (const [caseName, input, want] of cases) {
      it(caseName, () => {
        expect(sqlOf(build(knex, input))).to.deep.equal(want[name]);
      });
    }
  });
}

/** A filter as the API hands it to storage: validated, or the test fails. */
export function validFilter(filter: unknown, options?: FilterOptions): FilterNode | null {
  const validated = validateFilter(filter, options);
  if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
  return validated.filter;
}
