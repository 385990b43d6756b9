// The `attribute` of a spend summary (src/request/spend-attribute.ts), table-driven: taken with
// group_by=attribute only, and required there.
import { expect } from 'chai';
import { RequestValidationError } from '../../src/errors.js';
import { spendAttribute, type SpendAttributeQuery } from '../../src/request/spend-attribute.js';

const TAKEN: Array<[SpendAttributeQuery, string | undefined]> = [
  [{ group_by: 'attribute', attribute: 'span_attributes.tenant' }, 'span_attributes.tenant'],
  [{ group_by: 'model' }, undefined],
  [{}, undefined],
];

const REFUSED: Array<[SpendAttributeQuery, string]> = [
  [{ group_by: 'attribute' }, 'required with group_by=attribute'],
  [{ group_by: 'model', attribute: 'span_attributes.tenant' }, 'group_by is model'],
  [{ attribute: 'span_attributes.tenant' }, 'group_by is application'],
];

describe('spend attribute', () => {
  for (const [query, want] of TAKEN)
    it(`${JSON.stringify(query)} gives ${String(want)}`, () => expect(spendAttribute(query)).to.equal(want));

  for (const [query, message] of REFUSED)
    it(`refuses ${JSON.stringify(query)} at ["query","attribute"]`, () => {
      try {
        spendAttribute(query);
        expect.fail('accepted');
      } catch (error) {
        expect(error).to.be.instanceOf(RequestValidationError);
        const issues = (error as RequestValidationError).issues;
        expect(issues.map((issue) => issue.loc)).to.deep.equal([['query', 'attribute']]);
        expect(issues[0]?.msg).to.include(message);
      }
    });
});
