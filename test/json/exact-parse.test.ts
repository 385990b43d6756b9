// parseExactJson (src/json/exact-parse.ts): what JSON.parse reads, except that integers beyond
// ±(2^53 − 1) are bigints, which exactJson writes back digit for digit.
import { expect } from 'chai';
import { exactJson } from '../../src/json/exact-json.js';
import { parseExactJson } from '../../src/json/exact-parse.js';

describe('parseExactJson', () => {
  const cases: Array<[string, string]> = [
    ['{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e-7}}', '{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e-7}}'],
    [
      '{"t":1795355101600000000,"n":-9007199254740993,"ok":9007199254740991}',
      '{"t":1795355101600000000,"n":-9007199254740993,"ok":9007199254740991}',
    ],
    ['[1e21,12345678901234567,0,-0.0,"\\u00e9\\n\\"",{}]', '[1e+21,12345678901234567,0,0,"é\\n\\"",{}]'],
    [' { "spaced" : [ 1 , 2 ], "big" : 1234567890123456789 } ', '{"spaced":[1,2],"big":1234567890123456789}'],
  ];
  for (const [given, written] of cases) {
    it(`reads ${given} with its big integers exact`, () => {
      expect(exactJson(parseExactJson(given))).to.equal(written);
    });
  }

  it('keeps a 19-digit integer exact, safe integers as numbers, and __proto__ an ordinary key', () => {
    const value = parseExactJson('{"t":1795355101600000000,"small":12345678901234,"__proto__":{"x":1}}') as Record<string, unknown>;
    expect(value.t).to.equal(1795355101600000000n);
    expect(value.small).to.equal(12345678901234);
    expect(Object.keys(value)).to.deep.equal(['t', 'small', '__proto__']);
    expect(Object.getPrototypeOf(value)).to.equal(Object.prototype);
  });

  it('refuses what is not JSON', () => {
    for (const text of ['{"a":12345678901234567,}', '[12345678901234567', '12345678901234567 x', '{"a" 12345678901234567}']) {
      expect(() => parseExactJson(text), text).to.throw(SyntaxError);
    }
  });
});
