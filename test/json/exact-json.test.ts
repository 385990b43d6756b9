// exactJson: JSON.stringify's output, except that big integers keep every digit.
import { expect } from 'chai';
import { exactJson, JsonInteger, RawJson } from '../../src/json/exact-json.js';

describe('exact JSON', () => {
  const CASES: Array<[string, unknown]> = [
    ['scalars', [1, 0.1, -2.5e-7, 'a"b\n\u2028é🚀', true, false, null]],
    ['objects with undefined members and nesting', { a: 1, b: undefined, c: { d: [1, { e: 'x' }] }, 'f.g': null }],
    ['arrays with undefined items', [1, undefined, 2]],
    ['non-finite numbers', [Number.NaN, Number.POSITIVE_INFINITY]],
    ['empty containers', { a: [], b: {} }],
  ];
  for (const [name, value] of CASES) {
    it(`writes ${name} exactly as JSON.stringify does`, () => expect(exactJson(value)).to.equal(JSON.stringify(value)));
  }

  it('writes 19-digit integers digit for digit', () => {
    const text = exactJson({ start: new JsonInteger('1763800000123456789'), end: 1763800000987654321n, list: [new JsonInteger('-5')] });
    expect(text).to.equal('{"start":1763800000123456789,"end":1763800000987654321,"list":[-5]}');
  });

  it('embeds stored JSON text verbatim', () => {
    expect(exactJson({ attributes: new RawJson('{"big":12345678901234567890}') })).to.equal('{"attributes":{"big":12345678901234567890}}');
  });

  it('refuses anything but integer digits as a JsonInteger', () => {
    for (const bad of ['1.5', '1e3', '', '01', '12a', ' 1']) expect(() => new JsonInteger(bad)).to.throw();
  });
});
