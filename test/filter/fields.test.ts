// The field list of src/filter/fields.ts is the document's FilterField enum, and a field name
// resolves to what it reads.
import { expect } from 'chai';
import { FILTER_FIELDS, NUMBER_FIELDS, resolveField, TEXT_FIELDS, TRACE_FIELDS } from '../../src/filter/fields.js';
import { documentEnum } from '../support/engine-document.js';

describe('filter fields', () => {
  it('lists the fixed fields of the document, in its order', () => {
    expect([...FILTER_FIELDS]).to.deep.equal(documentEnum('FilterField'));
  });

  it('lists the trace-level fields of the document, in its order', () => {
    expect([...TRACE_FIELDS]).to.deep.equal(documentEnum('TraceFilterField'));
  });

  it('splits them into text and number fields', () => {
    expect([...TEXT_FIELDS, ...NUMBER_FIELDS].sort()).to.deep.equal([...FILTER_FIELDS].sort());
    expect(NUMBER_FIELDS).to.deep.equal([
      'duration_ms',
      'cost',
      'usage.amount',
      'tokens.input',
      'tokens.output',
      'tokens.cache_read',
      'tokens.cache_creation',
      'tokens.total',
    ]);
  });

  const CASES: Array<[string, ReturnType<typeof resolveField>]> = [
    ['span_kind', { ok: true, field: { kind: 'text', name: 'span_kind' } }],
    ['usage.amount', { ok: true, field: { kind: 'number', name: 'usage.amount' } }],
    ['model', { ok: true, field: { kind: 'text', name: 'model' } }],
    ['tokens.cache_read', { ok: true, field: { kind: 'number', name: 'tokens.cache_read' } }],
    ['tokens.reasoning', { ok: false, reason: 'unknown' }],
    ['trace.error_count', { ok: true, field: { kind: 'trace', name: 'trace.error_count' } }],
    ['trace.errors', { ok: false, reason: 'unknown' }],
    [
      'span_attributes.http.response.status_code',
      { ok: true, field: { kind: 'attribute', source: 'span_attributes', key: 'http.response.status_code' } },
    ],
    ['resource_attributes.service.name', { ok: true, field: { kind: 'attribute', source: 'resource_attributes', key: 'service.name' } }],
    ['span_attributes.a-b', { ok: false, reason: 'bad_path' }],
    ['span_attributes.', { ok: false, reason: 'bad_path' }],
    ['span_attributes', { ok: false, reason: 'unknown' }],
    ['colour', { ok: false, reason: 'unknown' }],
  ];
  for (const [field, resolution] of CASES) {
    it(`resolves ${JSON.stringify(field)}`, () => expect(resolveField(field)).to.deep.equal(resolution));
  }
});
