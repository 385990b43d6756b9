// parseJsonExact: JSON.parse, except that bare integers of 16+ digits keep every digit (as strings).
import { expect } from 'chai';
import { parseJsonExact } from '../../src/ingest/parse-json-exact.js';

const CASES: Array<[name: string, { given: string; want: unknown }]> = [
  ['a 19-digit integer', { given: '{"t":1795355100123456789}', want: { t: '1795355100123456789' } }],
  ['a negative big integer', { given: '[-9223372036854775808]', want: ['-9223372036854775808'] }],
  ['a 15-digit integer stays a number', { given: '[123456789012345]', want: [123456789012345] }],
  ['a big decimal stays a number', { given: '[1234567890123456.5]', want: [1234567890123456.5] }],
  ['a big integer with an exponent stays a number', { given: '[1234567890123456e2]', want: [1234567890123456e2] }],
  ['a long exponent stays a number', { given: '[1e1234567890123456789]', want: [Infinity] }],
  [
    'digits inside strings are left alone',
    {
      given: '{"id":"12345678901234567890","q":"a\\"1234567890123456789"}',
      want: { id: '12345678901234567890', q: 'a"1234567890123456789' },
    },
  ],
  ['no big integers at all', { given: '{"a":[1,2.5,-3,true,null]}', want: { a: [1, 2.5, -3, true, null] } }],
];

describe('parseJsonExact', () => {
  for (const [name, { given, want }] of CASES) {
    it(name, () => {
      expect(parseJsonExact(given)).to.deep.equal(want);
    });
  }

  it('throws SyntaxError on malformed JSON, like JSON.parse', () => {
    expect(() => parseJsonExact('{"t": 1795355100123456789')).to.throw(SyntaxError);
    expect(() => parseJsonExact('')).to.throw(SyntaxError);
  });
});
