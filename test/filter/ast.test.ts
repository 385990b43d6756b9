// The operator list of src/filter/ast.ts is the document's FilterOperator enum.
import { expect } from 'chai';
import { NUMERIC_OPERATORS, OPERATORS, STRING_OPERATORS } from '../../src/filter/ast.js';
import { documentEnum } from '../support/engine-document.js';

describe('filter operators', () => {
  it('lists the operators of the document, in its order', () => {
    expect([...OPERATORS]).to.deep.equal(documentEnum('FilterOperator'));
  });

  it('keeps the text-only and numeric-only operators apart', () => {
    expect(STRING_OPERATORS.filter((op) => (NUMERIC_OPERATORS as readonly string[]).includes(op))).to.deep.equal([]);
  });
});
