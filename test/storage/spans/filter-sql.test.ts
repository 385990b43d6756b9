// Steps 2 and 3 of the filter compiler without a database: for each dialect, the SQL and the
// bindings a filter becomes (table-driven, as Knex's own query-builder tests do). Values are
// always bound; only trusted column names appear in the SQL text.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { MAX_FILTER_DEPTH, MAX_FILTER_NODES } from '../../../src/filter/ast.js';
import { compileFilter } from '../../../src/storage/spans/filter-sql.js';
import type { SqlDialect } from '../../../src/storage/sql/dialect.js';
import { escapeLike, LIKE_VALUE_LIMIT } from '../../../src/storage/sql/mysql.js';
import { escapeGlob, GLOB_PATTERN_LIMIT, sqliteDialect } from '../../../src/storage/sql/sqlite.js';
import { storedSpanKind, targetOfResolved } from '../../../src/storage/spans/filter-targets.js';
import { resolveField } from '../../../src/filter/fields.js';
import { validateFilter } from '../../../src/filter/validate.js';
import { forEachDialect, sqlOf, type Sql, type SqlCase } from '../../support/sql-cases.js';

const c = (field: string, op: string, value: string) => ({ field, op, value });
const PATH = '$."http.method"';
const NUMBER_PATH = '$."k8s.replicas"';
/** A value whose pattern passes SQLite's GLOB limit (50,000 bytes): `*` and `%` stay literal. */
const LONG = `${'*%_'.repeat(17_000)}🚀`;

const SQLITE_TEXT = `(CASE json_type(s.span_attributes, ?) WHEN 'text' THEN json_extract(s.span_attributes, ?) WHEN 'null' THEN NULL ELSE s.span_attributes -> ? END)`;
const SQLITE_NUMBER =
  `(CASE json_type(s.resource_attributes, ?) WHEN 'integer' THEN CAST(json_extract(s.resource_attributes, ?) AS REAL) WHEN 'real' THEN json_extract(s.resource_attributes, ?) ` +
  `WHEN 'text' THEN (CASE WHEN json_extract(s.resource_attributes, ?) NOT GLOB '*[^-+.0-9eE]*' AND json_valid(json_extract(s.resource_attributes, ?)) THEN CAST(json_extract(s.resource_attributes, ?) AS REAL) END) END)`;
const MYSQL_TEXT =
  `CONVERT(CASE JSON_TYPE(JSON_EXTRACT(s.span_attributes, ?)) WHEN 'STRING' THEN JSON_VALUE(s.span_attributes, ?) WHEN 'ARRAY' THEN JSON_COMPACT(JSON_EXTRACT(s.span_attributes, ?)) ` +
  `WHEN 'OBJECT' THEN JSON_COMPACT(JSON_EXTRACT(s.span_attributes, ?)) WHEN 'NULL' THEN NULL ELSE JSON_EXTRACT(s.span_attributes, ?) END USING utf8mb4) COLLATE utf8mb4_bin`;
const MYSQL_DOUBLE = 'CAST(JSON_VALUE(s.resource_attributes, ?) AS DOUBLE)';
const MYSQL_NUMBER =
  `(CASE JSON_TYPE(JSON_EXTRACT(s.resource_attributes, ?)) WHEN 'INTEGER' THEN ${MYSQL_DOUBLE} WHEN 'DOUBLE' THEN ${MYSQL_DOUBLE} ` +
  `WHEN 'UNSIGNED INTEGER' THEN ${MYSQL_DOUBLE} WHEN 'DECIMAL' THEN ${MYSQL_DOUBLE} ` +
  `WHEN 'STRING' THEN (CASE WHEN JSON_VALUE(s.resource_attributes, ?) REGEXP ? THEN ${MYSQL_DOUBLE} END) END)`;
const MYSQL_NUMBER_REGEXP = '^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][-+]?[0-9]+)?\\z';

/** Five equal siblings as the compiler joins them: a balanced tree in their order, in Knex's parentheses. */
const balancedFive = (sql: string, op: string) => `((${sql} ${op} ${sql}) ${op} (${sql} ${op} (${sql} ${op} ${sql})))`;

/** How deeply the parentheses of an SQL text nest: the depth of the AND/OR tree the database parses. */
function parenthesisDepth(sql: string): number {
  let depth = 0;
  let deepest = 0;
  for (const character of sql.replace(/'[^']*'/g, '')) {
    if (character === '(') deepest = Math.max(deepest, ++depth);
    else if (character === ')') depth -= 1;
  }
  return deepest;
}
const CASES: Array<SqlCase<unknown>> = [
  [
    'text eq',
    c('span_name', 'eq', 'GET /a'),
    {
      sqlite: { sql: '(s.span_name = ?)', bindings: ['GET /a'] },
      mysql: { sql: "((s.span_name = ? AND s.span_name LIKE ? ESCAPE '!'))", bindings: ['GET /a', 'GET /a'] },
    },
  ],
  [
    'text neq',
    c('billing.sku_name', 'neq', 'x_y'),
    {
      sqlite: { sql: '(s.billing_sku_name <> ?)', bindings: ['x_y'] },
      mysql: { sql: "(s.billing_sku_name NOT LIKE ? ESCAPE '!')", bindings: ['x!_y'] },
    },
  ],
  [
    'contains with every special character',
    c('span_name', 'contains', '50%_a\\b!*?['),
    {
      sqlite: { sql: '(s.span_name GLOB ?)', bindings: ['*50%_a\\b![*][?][[]*'] },
      mysql: { sql: "(s.span_name LIKE ? ESCAPE '!')", bindings: ['%50!%!_a\\b!!*?[%'] },
    },
  ],
  [
    'starts_with',
    c('usage.unit', 'starts_with', 'tok'),
    {
      sqlite: { sql: '(s.usage_unit GLOB ?)', bindings: ['tok*'] },
      mysql: { sql: "(s.usage_unit LIKE ? ESCAPE '!')", bindings: ['tok%'] },
    },
  ],
  [
    'ends_with',
    c('trace_id', 'ends_with', 'ab'),
    {
      sqlite: { sql: '(s.trace_id GLOB ?)', bindings: ['*ab'] },
      mysql: { sql: "(s.trace_id LIKE ? ESCAPE '!')", bindings: ['%ab'] },
    },
  ],
  [
    'span_kind short name, eq',
    c('span_kind', 'eq', 'SERVER'),
    {
      sqlite: { sql: '(s.span_kind = ?)', bindings: ['SPAN_KIND_SERVER'] },
      mysql: { sql: "((s.span_kind = ? AND s.span_kind LIKE ? ESCAPE '!'))", bindings: ['SPAN_KIND_SERVER', 'SPAN!_KIND!_SERVER'] },
    },
  ],
  [
    'span_kind short name, other operators as given',
    c('span_kind', 'contains', 'SERVER'),
    {
      sqlite: { sql: '(s.span_kind GLOB ?)', bindings: ['*SERVER*'] },
      mysql: { sql: "(s.span_kind LIKE ? ESCAPE '!')", bindings: ['%SERVER%'] },
    },
  ],
  [
    'numeric field, value bound as a number',
    c('usage.amount', 'gte', '1e3'),
    {
      sqlite: { sql: '(s.usage_amount >= ?)', bindings: [1000] },
      mysql: { sql: '(s.usage_amount >= ?)', bindings: [1000] },
    },
  ],
  [
    'numeric field eq and neq',
    { or: [c('cost', 'eq', '0.5'), c('duration_ms', 'neq', '-2')] },
    {
      sqlite: { sql: '(s.cost = ? or s.duration_ms <> ?)', bindings: [0.5, -2] },
      mysql: { sql: '(s.cost = ? or s.duration_ms <> ?)', bindings: [0.5, -2] },
    },
  ],
  [
    'attribute eq a text only a string can have: one JSON read on MariaDB',
    c('span_attributes.http.method', 'eq', 'GET_1'),
    {
      sqlite: { sql: `(${SQLITE_TEXT} = ?)`, bindings: [PATH, PATH, PATH, 'GET_1'] },
      mysql: {
        sql: "(CONVERT(JSON_VALUE(s.span_attributes, ?) USING utf8mb4) COLLATE utf8mb4_bin LIKE ? ESCAPE '!')",
        bindings: [PATH, 'GET!_1'],
      },
    },
  ],
  [
    'attribute eq a text a number, boolean, array or object can have: the text form',
    { or: ['200', '-1.5e3', 'true', '[1]', '{}'].map((value) => c('span_attributes.http.method', 'eq', value)) },
    {
      sqlite: {
        sql: balancedFive(`${SQLITE_TEXT} = ?`, 'or'),
        bindings: ['200', '-1.5e3', 'true', '[1]', '{}'].flatMap((value) => [PATH, PATH, PATH, value]),
      },
      mysql: {
        sql: balancedFive(`${MYSQL_TEXT} LIKE ? ESCAPE '!'`, 'or'),
        bindings: ['200', '-1.5e3', 'true', '[1]', '{}'].flatMap((value) => [PATH, PATH, PATH, PATH, PATH, value]),
      },
    },
  ],
  [
    'attribute, text form, neq',
    c('span_attributes.http.method', 'neq', 'GET'),
    {
      sqlite: { sql: `(${SQLITE_TEXT} <> ?)`, bindings: [PATH, PATH, PATH, 'GET'] },
      mysql: { sql: `(${MYSQL_TEXT} NOT LIKE ? ESCAPE '!')`, bindings: [PATH, PATH, PATH, PATH, PATH, 'GET'] },
    },
  ],
  [
    'attribute, numeric reading',
    c('resource_attributes.k8s.replicas', 'lt', '3'),
    {
      sqlite: { sql: `(${SQLITE_NUMBER} < ?)`, bindings: [...Array(6).fill(NUMBER_PATH), 3] },
      mysql: { sql: `(${MYSQL_NUMBER} < ?)`, bindings: [...Array(6).fill(NUMBER_PATH), MYSQL_NUMBER_REGEXP, NUMBER_PATH, 3] },
    },
  ],
  [
    'empty groups are constants; nested groups are parenthesised; a deeper child is joined nearer the top',
    { or: [{ and: [] }, { or: [] }, { and: [c('unit', 'eq', 'a'), c('parent_unit', 'neq', 'b')] }] },
    {
      sqlite: { sql: '((1 = 1 or 1 = 0) or (s.unit = ? and s.parent_unit <> ?))', bindings: ['a', 'b'] },
      mysql: {
        sql: "((1 = 1 or 1 = 0) or ((s.unit = ? AND s.unit LIKE ? ESCAPE '!') and s.parent_unit NOT LIKE ? ESCAPE '!'))",
        bindings: ['a', 'a', 'b'],
      },
    },
  ],
  [
    'a group of one is its member',
    { and: [{ or: [c('unit', 'eq', 'a')] }] },
    {
      sqlite: { sql: '(s.unit = ?)', bindings: ['a'] },
      mysql: { sql: "((s.unit = ? AND s.unit LIKE ? ESCAPE '!'))", bindings: ['a', 'a'] },
    },
  ],
  [
    'siblings keep their order',
    { and: ['a', 'b', 'c', 'd'].map((value) => c('span_name', 'neq', value)) },
    {
      sqlite: {
        sql: '((s.span_name <> ? and s.span_name <> ?) and (s.span_name <> ? and s.span_name <> ?))',
        bindings: ['a', 'b', 'c', 'd'],
      },
      mysql: {
        sql: "((s.span_name NOT LIKE ? ESCAPE '!' and s.span_name NOT LIKE ? ESCAPE '!') and (s.span_name NOT LIKE ? ESCAPE '!' and s.span_name NOT LIKE ? ESCAPE '!'))",
        bindings: ['a', 'b', 'c', 'd'],
      },
    },
  ],
  [
    'contains past the GLOB pattern limit (SQLite) and LIKE_VALUE_LIMIT (MariaDB): no pattern',
    c('span_name', 'contains', LONG),
    {
      sqlite: { sql: '(instr(s.span_name, ?) > 0)', bindings: [LONG] },
      mysql: { sql: '(LOCATE(CAST(? AS BINARY), CAST(s.span_name AS BINARY)) > 0)', bindings: [LONG] },
    },
  ],
  [
    'starts_with past the limits',
    c('span_name', 'starts_with', LONG),
    {
      sqlite: { sql: '(instr(s.span_name, ?) = 1)', bindings: [LONG] },
      mysql: { sql: '(LEFT(CAST(s.span_name AS BINARY), LENGTH(?)) = CAST(? AS BINARY))', bindings: [LONG, LONG] },
    },
  ],
  [
    'ends_with past the limits, on an attribute',
    c('span_attributes.http.method', 'ends_with', LONG),
    {
      sqlite: { sql: `(substr(${SQLITE_TEXT}, -length(?)) = ?)`, bindings: [PATH, PATH, PATH, LONG, LONG] },
      mysql: {
        sql: `(RIGHT(CAST(${MYSQL_TEXT} AS BINARY), LENGTH(?)) = CAST(? AS BINARY))`,
        bindings: [PATH, PATH, PATH, PATH, PATH, LONG, LONG],
      },
    },
  ],
  [
    'a pattern of exactly the GLOB limit stays GLOB; a value past 1000 bytes leaves LIKE',
    c('span_name', 'contains', 'x'.repeat(GLOB_PATTERN_LIMIT - 2)),
    {
      sqlite: { sql: '(s.span_name GLOB ?)', bindings: [`*${'x'.repeat(GLOB_PATTERN_LIMIT - 2)}*`] },
      mysql: { sql: '(LOCATE(CAST(? AS BINARY), CAST(s.span_name AS BINARY)) > 0)', bindings: ['x'.repeat(GLOB_PATTERN_LIMIT - 2)] },
    },
  ],
  [
    '1000 bytes of 2-byte characters stay LIKE',
    c('span_name', 'ends_with', 'é'.repeat(LIKE_VALUE_LIMIT / 2)),
    {
      sqlite: { sql: '(s.span_name GLOB ?)', bindings: [`*${'é'.repeat(LIKE_VALUE_LIMIT / 2)}`] },
      mysql: { sql: "(s.span_name LIKE ? ESCAPE '!')", bindings: [`%${'é'.repeat(LIKE_VALUE_LIMIT / 2)}`] },
    },
  ],
  [
    'in on a text column, short span kinds spelled out as for eq',
    { field: 'span_kind', op: 'in', value: ['SERVER', 'SPAN_KIND_CLIENT', 'a_b'] },
    {
      sqlite: { sql: '(s.span_kind IN (?, ?, ?))', bindings: ['SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'a_b'] },
      mysql: {
        sql: '((s.span_kind IN (?, ?, ?) AND CAST(s.span_kind AS BINARY) IN (CAST(? AS BINARY), CAST(? AS BINARY), CAST(? AS BINARY))))',
        bindings: ['SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'a_b', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'a_b'],
      },
    },
  ],
  [
    'not_in on a text column: binary on MariaDB (no padding)',
    { field: 'status_code', op: 'not_in', value: ['ERROR', '%'] },
    {
      sqlite: { sql: '(s.status_code NOT IN (?, ?))', bindings: ['STATUS_CODE_ERROR', '%'] },
      mysql: { sql: '(CAST(s.status_code AS BINARY) NOT IN (CAST(? AS BINARY), CAST(? AS BINARY)))', bindings: ['STATUS_CODE_ERROR', '%'] },
    },
  ],
  [
    'in on a number field, values bound as numbers',
    { field: 'cost', op: 'in', value: ['1', '-2.5e1'] },
    {
      sqlite: { sql: '(s.cost IN (?, ?))', bindings: [1, -25] },
      mysql: { sql: '(s.cost IN (?, ?))', bindings: [1, -25] },
    },
  ],
  [
    'not_in on an attribute: its text form',
    { field: 'span_attributes.http.method', op: 'not_in', value: ['GET'] },
    {
      sqlite: { sql: `(${SQLITE_TEXT} NOT IN (?))`, bindings: [PATH, PATH, PATH, 'GET'] },
      mysql: { sql: `(CAST(${MYSQL_TEXT} AS BINARY) NOT IN (CAST(? AS BINARY)))`, bindings: [PATH, PATH, PATH, PATH, PATH, 'GET'] },
    },
  ],
  [
    'exists and not_exists',
    {
      and: [
        { field: 'cost', op: 'exists' },
        { field: 'span_attributes.http.method', op: 'not_exists' },
      ],
    },
    {
      sqlite: { sql: `(s.cost IS NOT NULL and ${SQLITE_TEXT} IS NULL)`, bindings: [PATH, PATH, PATH] },
      mysql: { sql: `(s.cost IS NOT NULL and ${MYSQL_TEXT} IS NULL)`, bindings: [PATH, PATH, PATH, PATH, PATH] },
    },
  ],
  [
    'not: TRUE for FALSE and NULL alike, parenthesised as an operand',
    { or: [{ not: c('span_name', 'neq', 'a') }, { not: { and: [c('cost', 'gt', '1'), c('cost', 'lt', '2')] } }] },
    {
      sqlite: { sql: '(((s.span_name <> ?) IS NOT TRUE) or ((s.cost > ? and s.cost < ?) IS NOT TRUE))', bindings: ['a', 1, 2] },
      mysql: {
        sql: "(((s.span_name NOT LIKE ? ESCAPE '!') IS NOT TRUE) or ((s.cost > ? and s.cost < ?) IS NOT TRUE))",
        bindings: ['a', 1, 2],
      },
    },
  ],
  [
    'JSON number: eq on an attribute compares its numeric reading',
    { field: 'resource_attributes.k8s.replicas', op: 'eq', value: 3 },
    {
      sqlite: { sql: `(${SQLITE_NUMBER} = ?)`, bindings: [...Array(6).fill(NUMBER_PATH), 3] },
      mysql: { sql: `(${MYSQL_NUMBER} = ?)`, bindings: [...Array(6).fill(NUMBER_PATH), MYSQL_NUMBER_REGEXP, NUMBER_PATH, 3] },
    },
  ],
  [
    'JSON number on a number field: as its string',
    { field: 'cost', op: 'gt', value: 0.5 },
    {
      sqlite: { sql: '(s.cost > ?)', bindings: [0.5] },
      mysql: { sql: '(s.cost > ?)', bindings: [0.5] },
    },
  ],
  [
    'not_in on an attribute with a string and a JSON number: every neq',
    { field: 'resource_attributes.k8s.replicas', op: 'not_in', value: ['3', 3] },
    {
      sqlite: {
        sql: `((${SQLITE_TEXT.replaceAll('span_attributes', 'resource_attributes')} NOT IN (?) AND ${SQLITE_NUMBER} NOT IN (?)))`,
        bindings: [...Array(3).fill(NUMBER_PATH), '3', ...Array(6).fill(NUMBER_PATH), 3],
      },
      mysql: {
        sql: `((CAST(${MYSQL_TEXT.replaceAll('span_attributes', 'resource_attributes')} AS BINARY) NOT IN (CAST(? AS BINARY)) AND ${MYSQL_NUMBER} NOT IN (?)))`,
        bindings: [...Array(5).fill(NUMBER_PATH), '3', ...Array(6).fill(NUMBER_PATH), MYSQL_NUMBER_REGEXP, NUMBER_PATH, 3],
      },
    },
  ],
  ['a top-level empty and', { and: [] }, { sqlite: { sql: '(1 = 1)', bindings: [] }, mysql: { sql: '(1 = 1)', bindings: [] } }],
  ['a top-level empty or', { or: [] }, { sqlite: { sql: '(1 = 0)', bindings: [] }, mysql: { sql: '(1 = 0)', bindings: [] } }],
];

function compiled(knex: Knex, dialect: SqlDialect, filter: unknown): Sql {
  const validated = validateFilter(filter);
  if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
  const where = compileFilter(validated.filter, { dialect, column: (name) => `s.${name}`, indexedSlots: [] });
  if (!where) throw new Error('no where-callback');
  const { sql, bindings } = sqlOf(knex.queryBuilder().where(where));
  return { sql: sql.replace(/^select \* where /, ''), bindings };
}

describe('filter compiler: SQL and bindings per dialect', () => {
  forEachDialect((knex, dialect, dialectName) => {
    for (const [name, filter, want] of CASES) {
      it(name, () => {
        expect(compiled(knex, dialect, filter)).to.deep.equal(want[dialectName]);
      });
    }

    it('reads trace-level fields from the trace summary the caller names, and refuses them without one', () => {
      const validated = validateFilter(
        {
          or: [
            { field: 'trace.error_count', op: 'gt', value: 0 },
            { field: 'trace.spans_count', op: 'in', value: ['1', '2'] },
          ],
        },
        { traceFields: true },
      );
      if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
      const where = compileFilter(validated.filter, {
        dialect,
        column: (name) => `s.${name}`,
        traceColumn: (name) => `t.${name}`,
        indexedSlots: [],
      });
      expect(sqlOf(knex.queryBuilder().where(where as (builder: Knex.QueryBuilder) => void))).to.deep.equal({
        sql: 'select * where (t.error_count > ? or t.spans_count IN (?, ?))',
        bindings: [0, 1, 2],
      });
      expect(() => compileFilter(validated.filter, { dialect, column: (name) => `s.${name}`, indexedSlots: [] })).to.throw(
        'outside a read of traces',
      );
    });

    it('binds a hostile value and never writes it into the SQL', () => {
      const hostile = "x'); DROP TABLE spans; --";
      const { sql, bindings } = compiled(knex, dialect, {
        or: [c('span_name', 'eq', hostile), c('span_attributes.a', 'contains', hostile)],
      });
      expect(sql).not.to.include('DROP');
      expect(bindings.some((binding) => String(binding).includes('DROP TABLE'))).to.equal(true);
    });

    // SQLite parses `a OR b OR c ...` into a tree as deep as the chain (its limit: 1000).
    it('joins siblings as a tree about log2(siblings) deep, never as a chain', () => {
      const wide = {
        and: [
          { or: Array.from({ length: 999 }, (_, index) => c('span_name', 'eq', `v${index}`)) },
          { or: Array.from({ length: 998 }, (_, index) => c('unit', 'neq', `u${index}`)) },
        ],
      };
      const { sql } = compiled(knex, dialect, wide);
      const conditionDepth = dialectName === 'sqlite' ? 0 : 1;
      expect(parenthesisDepth(sql)).to.be.at.most(1 + 1 + 10 + conditionDepth);
      expect(sql.match(/ or /g)).to.have.length(999 - 1 + 998 - 1);
    });

    it(`keeps the worst shapes within the limits about ${MAX_FILTER_DEPTH} levels deep`, () => {
      // Every level a group of siblings and one deeper group; 20 nodes a level, 100 levels.
      let deep: unknown = { or: Array.from({ length: 19 }, (_, index) => c('span_name', 'eq', `x${index}`)) };
      for (let level = 2; level < MAX_FILTER_DEPTH; level += 1) {
        deep = {
          [level % 2 ? 'or' : 'and']: [
            ...Array.from({ length: 19 }, (_, index) => c('span_attributes.k', 'neq', `${level}-${index}`)),
            deep,
          ],
        };
      }
      expect(validateFilter(deep).ok).to.equal(true);
      // 99 single-member groups, then the remaining nodes as siblings at the deepest level.
      let narrow: unknown = {
        and: Array.from({ length: MAX_FILTER_NODES - MAX_FILTER_DEPTH }, (_, index) => c('cost', 'neq', String(index))),
      };
      for (let level = 2; level < MAX_FILTER_DEPTH; level += 1) narrow = { or: [narrow] };
      expect(validateFilter(narrow).ok).to.equal(true);
      for (const filter of [deep, narrow]) {
        expect(parenthesisDepth(compiled(knex, dialect, filter).sql)).to.be.at.most(MAX_FILTER_DEPTH + 20);
      }
    });

    it('compiles 100 levels of nesting', () => {
      let node: unknown = c('span_name', 'eq', 'x');
      for (let level = 1; level < 100; level += 1) node = level % 2 ? { and: [node] } : { or: [node] };
      expect(compiled(knex, dialect, node).bindings).to.have.length(dialectName === 'sqlite' ? 1 : 2);
    });
  });

  it('takes no filter as no clause', () => {
    expect(compileFilter(null, { dialect: sqliteDialect, column: (name) => name, indexedSlots: [] })).to.equal(undefined);
  });
});

describe('filter compiler: field table', () => {
  // Storage takes fields resolved by validation, never names: a name reaches a target only through resolveField.
  const targetOf = (field: string) => {
    const resolution = resolveField(field);
    if (!resolution.ok) throw new Error(`not a filterable field: ${field}`);
    return targetOfResolved(resolution.field);
  };
  const CASES: Array<[string, ReturnType<typeof targetOf>]> = [
    ['span_name', { kind: 'text', column: 'span_name' }],
    ['service_name', { kind: 'text', column: 'service_name' }],
    ['billing.sku_id', { kind: 'text', column: 'billing_sku_id' }],
    ['usage.unit', { kind: 'text', column: 'usage_unit' }],
    ['usage.amount', { kind: 'number', column: 'usage_amount' }],
    ['duration_ms', { kind: 'number', column: 'duration_ms' }],
    ['span_attributes.http.response.status_code', { kind: 'attribute', source: 'span_attributes', key: 'http.response.status_code' }],
    ['resource_attributes.service.name', { kind: 'attribute', source: 'resource_attributes', key: 'service.name' }],
  ];
  for (const [field, target] of CASES) {
    it(`${field} → ${JSON.stringify(target)}`, () => expect(targetOf(field)).to.deep.equal(target));
  }

  it('refuses a field that validation would have refused', () => {
    expect(() => targetOf('colour')).to.throw();
    expect(() => targetOf('span_attributes.a-b')).to.throw();
  });

  it('maps the short span kinds, and only those', () => {
    expect(['SERVER', 'CLIENT', 'INTERNAL', 'PRODUCER', 'CONSUMER', 'UNSPECIFIED'].map(storedSpanKind)).to.deep.equal([
      'SPAN_KIND_SERVER',
      'SPAN_KIND_CLIENT',
      'SPAN_KIND_INTERNAL',
      'SPAN_KIND_PRODUCER',
      'SPAN_KIND_CONSUMER',
      'SPAN_KIND_UNSPECIFIED',
    ]);
    expect(['server', 'SPAN_KIND_SERVER', 'KIND_SERVER', ''].map(storedSpanKind)).to.deep.equal([
      'server',
      'SPAN_KIND_SERVER',
      'KIND_SERVER',
      '',
    ]);
  });

  it('escapes LIKE and GLOB patterns', () => {
    expect(escapeLike('a%b_c!d\\e')).to.equal('a!%b!_c!!d\\e');
    expect(escapeGlob('a*b?c[d]e')).to.equal('a[*]b[?]c[[]d]e');
  });
});
