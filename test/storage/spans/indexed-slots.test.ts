// Indexed attribute slots without a database: which values a slot keeps and which filter values
// it answers, how a change of paths assigns slots, when a slot's backfill may start, the SQL of
// a slot condition per dialect, and the ingestion writer's fill.
import { expect } from 'chai';
import {
  initialIndexedAttributes,
  NO_INDEXED_ATTRIBUTES,
  readySlots,
  withPaths,
  writtenSlots,
} from '../../../src/storage/accounts/indexed-attributes.js';
import { answerableBySlot, keptBySlot, slotValue } from '../../../src/storage/spans/indexed-slots.js';
import { pendingSlot } from '../../../src/storage/spans/slots/slot-backfill.js';
import { compileFilter } from '../../../src/storage/spans/filter-sql.js';
import { validateFilter } from '../../../src/filter/validate.js';
import { toSpanRows } from '../../../src/ingest/span-mapping.js';
import { forEachDialect, sqlOf } from '../../support/sql-cases.js';

const MODEL = 'span_attributes.gen_ai.request.model';

describe('indexed attribute slots', () => {
  it('keeps strings of at most 255 UTF-16 code units without lone surrogates, and nothing else', () => {
    expect(slotValue('gemini-2.5-pro')).to.equal('gemini-2.5-pro');
    expect(slotValue('')).to.equal('');
    expect(slotValue('x'.repeat(255))).to.equal('x'.repeat(255));
    expect(slotValue('x'.repeat(256))).to.equal(null);
    expect(slotValue('🚀'.repeat(128))).to.equal(null); // 256 code units, 128 characters
    expect(slotValue('a\ud800b')).to.equal(null);
    expect(slotValue('\udc00')).to.equal(null);
    expect(slotValue('😀')).to.equal('😀');
    for (const other of [200, true, null, undefined, ['a'], { a: 'b' }]) expect(slotValue(other)).to.equal(null);
    expect(keptBySlot('a b ')).to.equal(true);
  });

  it('answers only values that no number, boolean, array or object has as its text form', () => {
    for (const value of ['gemini-2.5-pro', '', ' 200', '+5', '0x1F', '007', 'null', 'TRUE', 'a[1]'])
      expect(answerableBySlot(value), value).to.equal(true);
    for (const value of ['200', '-1.5', '1e3', '2E-1', '-0', 'true', 'false', '[1,"x"]', '{"k":1}', '[', '{', 'x'.repeat(256)])
      expect(answerableBySlot(value), value).to.equal(false);
  });

  it('keeps a kept path in its slot, gives a new path the lowest free slot, not ready, and frees removed ones', () => {
    const first = initialIndexedAttributes([MODEL, 'resource_attributes.env'], 5);
    expect(first.slots.map((slot) => slot && [slot.path, slot.ready])).to.deep.equal([
      [MODEL, true],
      ['resource_attributes.env', true],
      null,
    ]);
    const changed = withPaths(first, ['span_attributes.http.route', MODEL], 9);
    expect(changed.paths).to.deep.equal(['span_attributes.http.route', MODEL]);
    expect(changed.slots.map((slot) => slot && [slot.path, slot.ready, slot.since])).to.deep.equal([
      [MODEL, true, 5],
      ['span_attributes.http.route', false, 9],
      null,
    ]);
    expect(readySlots(changed)).to.deep.equal([{ slot: 1, source: 'span_attributes', key: 'gen_ai.request.model', generation: 5 }]);
    expect(writtenSlots(changed).map((slot) => slot.slot)).to.deep.equal([1, 2]);
    expect(withPaths(changed, [], 10).slots).to.deep.equal([null, null, null]);
    expect(writtenSlots(NO_INDEXED_ATTRIBUTES)).to.deep.equal([]);
  });

  it('starts a backfill only once the change is older than the settle time', () => {
    const state = withPaths(NO_INDEXED_ATTRIBUTES, [MODEL], 1_000);
    expect(pendingSlot(state, 1_000 + 119_999, 120_000)).to.equal(undefined);
    expect(pendingSlot(state, 1_000 + 120_000, 120_000)).to.deep.equal({
      slot: 1,
      source: 'span_attributes',
      key: 'gen_ai.request.model',
      generation: 1_000,
    });
    expect(pendingSlot(initialIndexedAttributes([MODEL], 0), 10 ** 12, 0)).to.equal(undefined);
  });

  forEachDialect((knex, dialect, name) => {
    const compiled = (filter: unknown) => {
      const validated = validateFilter(filter);
      if (!validated.ok) throw new Error(JSON.stringify(validated.issues));
      const where = compileFilter(validated.filter, {
        dialect,
        column: (column) => `s.${column}`,
        indexedSlots: [{ slot: 2, source: 'span_attributes', key: 'gen_ai.request.model', generation: 0 }],
      });
      return sqlOf(knex.queryBuilder().where(where as never)).sql.replace(/^select \* where /, '');
    };
    it(`compiles eq/in with string values on a ready slot's key to the slot column (${name})`, () => {
      const eq = compiled({ field: MODEL, op: 'eq', value: 'gemini-2.5-pro' });
      const list = compiled({ field: MODEL, op: 'in', value: ['a', 'b'] });
      if (name === 'sqlite') {
        expect(eq).to.equal('(s.indexed_value_2 = ?)');
        expect(list).to.equal('(s.indexed_value_2 IN (?, ?))');
      } else {
        expect(eq).to.equal("((s.indexed_value_2 = ? AND s.indexed_value_2 LIKE ? ESCAPE '!'))");
        expect(list).to.equal(
          '((s.indexed_value_2 IN (?, ?) AND CAST(s.indexed_value_2 AS BINARY) IN (CAST(? AS BINARY), CAST(? AS BINARY))))',
        );
      }
      // Values a non-string could have, JSON numbers, other operators and other keys read the JSON.
      for (const filter of [
        { field: MODEL, op: 'eq', value: '200' },
        { field: MODEL, op: 'eq', value: 200 },
        { field: MODEL, op: 'in', value: ['a', 200] },
        { field: MODEL, op: 'in', value: ['a', 'true'] },
        { field: MODEL, op: 'neq', value: 'a' },
        { field: MODEL, op: 'not_in', value: ['a'] },
        { field: MODEL, op: 'contains', value: 'a' },
        { field: MODEL, op: 'exists' },
        { field: MODEL, op: 'eq', value: 'x'.repeat(256) },
        { field: 'resource_attributes.gen_ai.request.model', op: 'eq', value: 'a' },
        { field: 'span_attributes.other', op: 'eq', value: 'a' },
      ]) {
        expect(compiled(filter), JSON.stringify(filter)).not.to.include('indexed_value');
      }
    });
  });

  it('fills the slots at ingestion from span and resource attributes', () => {
    const span = {
      traceId: '0'.repeat(31) + '1',
      spanId: '0'.repeat(15) + '1',
      parentSpanId: '',
      name: 'call',
      kind: 3,
      startTimeUnixNano: '1795355100000000000',
      endTimeUnixNano: '1795355100005000000',
      attributes: { 'gen_ai.request.model': 'gemini-2.5-pro', 'http.status': 200, constructor: 'x' },
      statusCode: 0,
      statusMessage: '',
      scope: { name: '', version: '' },
      events: [],
      links: [],
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
    const slots = writtenSlots(
      initialIndexedAttributes([MODEL, 'resource_attributes.deployment.environment', 'span_attributes.http.status'], 0),
    );
    const { rows } = toSpanRows(
      { resourceSpans: [{ resourceAttributes: { 'deployment.environment': 'prod' }, spans: [span] }] },
      'app_1',
      0,
      slots,
    );
    expect(rows[0]).to.include({ indexed_value_1: 'gemini-2.5-pro', indexed_value_2: 'prod', indexed_value_3: null });
    const inherited = writtenSlots(initialIndexedAttributes(['span_attributes.toString'], 0));
    expect(
      toSpanRows({ resourceSpans: [{ resourceAttributes: {}, spans: [span] }] }, 'app_1', 0, inherited).rows[0]?.indexed_value_1,
    ).to.equal(null);
  });
});
