// The span kind and status code lists of src/span-enums.ts are the document's enums, in OTLP
// number order, and the short names filters accept spell out to them.
import { expect } from 'chai';
import {
  SPAN_KINDS,
  STATUS_CODES,
  spanKindName,
  spanKindNumber,
  spelledOutSpanKind,
  spelledOutStatusCode,
  statusCodeName,
  statusCodeNumber,
} from '../src/span-enums.js';
import { documentEnum } from './support/engine-document.js';

describe('span kinds and status codes', () => {
  it('lists the span kinds of the document, in its order', () => {
    expect([...SPAN_KINDS]).to.deep.equal(documentEnum('SpanKind'));
  });

  it('lists the status codes of the document, in its order', () => {
    expect([...STATUS_CODES]).to.deep.equal(documentEnum('StatusCode'));
  });

  it('maps OTLP numbers to names and back; unknown ones read as 0', () => {
    expect([0, 1, 2, 3, 4, 5].map(spanKindName)).to.deep.equal([...SPAN_KINDS]);
    expect([6, -1].map(spanKindName)).to.deep.equal(['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_UNSPECIFIED']);
    expect(SPAN_KINDS.map(spanKindNumber)).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(spanKindNumber('SPAN_KIND_SOMETHING')).to.equal(0);
    expect([0, 1, 2, 3].map(statusCodeName)).to.deep.equal([...STATUS_CODES, 'STATUS_CODE_UNSET']);
    expect(STATUS_CODES.map(statusCodeNumber)).to.deep.equal([0, 1, 2]);
    expect(statusCodeNumber('STATUS_CODE_MAYBE')).to.equal(0);
  });

  it('spells out the short names, and only those', () => {
    expect(spelledOutSpanKind('CONSUMER')).to.equal('SPAN_KIND_CONSUMER');
    expect(['server', 'SPAN_KIND_SERVER', 'KIND_SERVER', ''].map(spelledOutSpanKind)).to.deep.equal([
      'server',
      'SPAN_KIND_SERVER',
      'KIND_SERVER',
      '',
    ]);
    expect(['UNSET', 'OK', 'ERROR'].map(spelledOutStatusCode)).to.deep.equal([...STATUS_CODES]);
    expect(['error', 'STATUS_CODE_ERROR', 'CODE_ERROR', ''].map(spelledOutStatusCode)).to.deep.equal([
      'error',
      'STATUS_CODE_ERROR',
      'CODE_ERROR',
      '',
    ]);
  });
});
