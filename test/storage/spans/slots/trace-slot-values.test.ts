// trace_slot_values' statements per dialect, without a database: the rows of a match (exact
// comparison, MariaDB's PAD SPACE ruled out), the times copied from the summaries, the rows no
// span supports any more, a backfill batch's values, and any-span trace searches reading the
// table; and which filters the table answers at all (slotValueMatch).
import { expect } from 'chai';
import { matchingTraces } from '../../../../src/storage/spans/traces/trace-pages.js';
import {
  dropUnsupportedQuery,
  matchRows,
  slotValueMatch,
  spanValuesQuery,
  syncTimesQuery,
} from '../../../../src/storage/spans/slots/trace-slot-values.js';
import type { IndexedSlot } from '../../../../src/storage/spans/indexed-slots.js';
import { sqlCases, validFilter } from '../../../support/sql-cases.js';

const MODEL = 'span_attributes.gen_ai.request.model';
const SLOTS: IndexedSlot[] = [{ slot: 2, source: 'span_attributes', key: 'gen_ai.request.model', generation: 7 }];
const ROWS =
  'select `v`.`trace_id` from `trace_slot_values` as `v` where `v`.`application_id` = ? and `v`.`slot` = ? and `v`.`generation` = ? and';
const FROM_SUMMARY = (column: string) =>
  `(SELECT t.${column} FROM traces t WHERE t.application_id = trace_slot_values.application_id AND t.trace_id = trace_slot_values.trace_id)`;
const SYNC = `update \`trace_slot_values\` set \`root_start_time_unix_nano\` = ${FROM_SUMMARY('root_start_time_unix_nano')}, \`min_start_time_unix_nano\` = COALESCE(${FROM_SUMMARY('min_start_time_unix_nano')}, 0) where \`application_id\` = ? and \`trace_id\` in (?, ?)`;
const DROP =
  'delete from `trace_slot_values` where `application_id` = ? and `trace_id` in (?) and not exists (select 1 from `spans` as `s` where s.application_id = trace_slot_values.application_id and s.trace_id = trace_slot_values.trace_id and CASE trace_slot_values.slot WHEN 1 THEN s.indexed_value_1 WHEN 2 THEN s.indexed_value_2 WHEN 3 THEN s.indexed_value_3 END = trace_slot_values.value)';

describe('trace_slot_values statements', () => {
  describe('the rows of two values', () => {
    sqlCases(
      [
        [
          'exact, each value once',
          { slot: 2 as const, generation: 1795000000000, values: ['gpt', 'gpt '] },
          {
            sqlite: { sql: `${ROWS} v.value IN (?, ?)`, bindings: ['app_a', 2, 1795000000000, 'gpt', 'gpt '] },
            mysql: {
              sql: `${ROWS} (v.value IN (?, ?) AND CAST(v.value AS BINARY) IN (CAST(? AS BINARY), CAST(? AS BINARY)))`,
              bindings: ['app_a', 2, 1795000000000, 'gpt', 'gpt ', 'gpt', 'gpt '],
            },
          },
        ],
      ],
      (knex, match) => matchRows(knex, 'app_a', match, 'v').select('v.trace_id'),
    );
  });

  describe('the times copied from the summaries, and the rows without a span', () => {
    sqlCases(
      [
        [
          'sync',
          ['t1', 't2'],
          { sqlite: { sql: SYNC, bindings: ['app_a', 't1', 't2'] }, mysql: { sql: SYNC, bindings: ['app_a', 't1', 't2'] } },
        ],
      ],
      (knex, ids) => syncTimesQuery(knex, 'app_a', ids),
    );
    sqlCases(
      [['drop', ['t1'], { sqlite: { sql: DROP, bindings: ['app_a', 't1'] }, mysql: { sql: DROP, bindings: ['app_a', 't1'] } }]],
      (knex, ids) => dropUnsupportedQuery(knex, 'app_a', ids),
    );
  });

  describe("a backfill batch's values, along the receive order", () => {
    const where = 'where `s`.`application_id` = ? and s.seq >';
    sqlCases(
      [
        [
          'seq in (10, 20]',
          ['10', '20'] as [string, string],
          {
            sqlite: {
              sql: `select \`s\`.\`trace_id\`, \`s\`.\`indexed_value_1\` as \`value\` from spans AS s INDEXED BY spans_by_receipt ${where} CAST(? AS INTEGER) and \`s\`.\`indexed_value_1\` is not null and s.seq <= CAST(? AS INTEGER)`,
              bindings: ['app_a', '10', '20'],
            },
            mysql: {
              sql: `select \`s\`.\`trace_id\`, \`s\`.\`indexed_value_1\` as \`value\` from spans AS s FORCE INDEX (spans_by_receipt) ${where} CAST(? AS UNSIGNED) and \`s\`.\`indexed_value_1\` is not null and s.seq <= CAST(? AS UNSIGNED)`,
              bindings: ['app_a', '10', '20'],
            },
          },
        ],
      ],
      (knex, [after, last]) => spanValuesQuery(knex, 'app_a', 1, after, last),
    );
  });

  describe('an any-span search for a slot value reads the table', () => {
    const traces = (cast: string) =>
      `select * from \`traces\` as \`t\` where \`t\`.\`application_id\` = ? and \`t\`.\`root_start_time_unix_nano\` is not null and t.root_start_time_unix_nano >= CAST(? AS ${cast}) and t.root_start_time_unix_nano < CAST(? AS ${cast}) and \`t\`.\`trace_id\` in (${ROWS}`;
    sqlCases(
      [
        [
          'eq',
          validFilter({ field: MODEL, op: 'eq', value: 'gpt' }),
          {
            sqlite: { sql: `${traces('INTEGER')} v.value IN (?))`, bindings: ['app_a', '1', '2', 'app_a', 2, 7, 'gpt'] },
            mysql: {
              sql: `${traces('SIGNED')} (v.value IN (?) AND CAST(v.value AS BINARY) IN (CAST(? AS BINARY))))`,
              bindings: ['app_a', '1', '2', 'app_a', 2, 7, 'gpt', 'gpt'],
            },
          },
        ],
      ],
      (knex, filter) =>
        matchingTraces(knex, { applicationId: 'app_a', startNs: 1n, endNs: 2n, filter, indexedSlots: SLOTS, searchChildSpans: true }),
    );
  });

  it('answers only one eq/in of strings a ready slot keeps', () => {
    const match = (filter: unknown, slots: IndexedSlot[] = SLOTS) => slotValueMatch(validFilter(filter), slots);
    expect(match({ field: MODEL, op: 'eq', value: 'gpt' })).to.deep.equal({ slot: 2, generation: 7, values: ['gpt'] });
    expect(match({ field: MODEL, op: 'in', value: ['a', 'b', 'a'] })).to.deep.equal({ slot: 2, generation: 7, values: ['a', 'b'] });
    expect(match({ field: MODEL, op: 'eq', value: 5 }), 'a JSON number').to.equal(undefined);
    expect(match({ field: MODEL, op: 'eq', value: '200' }), 'text a number also has').to.equal(undefined);
    expect(match({ field: MODEL, op: 'in', value: ['a', 5] }), 'a list with a number').to.equal(undefined);
    expect(match({ field: MODEL, op: 'eq', value: 'x'.repeat(256) }), 'longer than a slot keeps').to.equal(undefined);
    expect(match({ field: MODEL, op: 'neq', value: 'gpt' })).to.equal(undefined);
    expect(match({ and: [{ field: MODEL, op: 'eq', value: 'gpt' }] }), 'inside a group').to.equal(undefined);
    expect(match({ field: 'span_attributes.other', op: 'eq', value: 'gpt' }), 'another key').to.equal(undefined);
    expect(match({ field: MODEL, op: 'eq', value: 'gpt' }, []), 'no ready slot').to.equal(undefined);
  });
});
