// The span insert's layout of a row's values: every column, in the order the statement names them.
import { expect } from 'chai';
import { layOutSpanRow } from '../../../../src/storage/spans/writes/span-insert.js';
import { SPAN_ROW_COLUMNS, type SpanRow } from '../../../../src/storage/spans/span-row.js';

describe('span insert values', () => {
  it('lays out each column of a row at its place in SPAN_ROW_COLUMNS, from the offset given', () => {
    // Every field holds its own column's name: a value at the wrong place shows which one it is.
    const row = Object.fromEntries(SPAN_ROW_COLUMNS.map((column) => [column, column])) as unknown as SpanRow;
    const values: unknown[] = ['before', 'before'];
    layOutSpanRow(row, values, 2);
    expect(values).to.deep.equal(['before', 'before', ...SPAN_ROW_COLUMNS]);
  });
});
