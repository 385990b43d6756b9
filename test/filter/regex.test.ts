// The `regex` pattern check (src/filter/regex.ts): RE2's refusals, the constructs left out, the
// backtracking rules, the length limit, and the tree the accepted subset parses into.
import { expect } from 'chai';
import { checkRegex, MAX_REGEX_LENGTH } from '../../src/filter/regex.js';
import { complement, parseRegex } from '../../src/filter/regex-syntax.js';

function refusal(pattern: string): string {
  const check = checkRegex(pattern);
  if (check.ok) throw new Error(`accepted ${pattern}`);
  return check.msg;
}

describe('regex pattern check', () => {
  it('accepts RE2 patterns within the subset', () => {
    for (const pattern of ['', 'abc', '^a.c$', '[a-z]+\\d{2,3}', '(?m)^x$', '(?s:a.)b', '(?P<n>ab)c', '\\bword\\B', '[[:^alpha:]]', '\\Q(*)\\E', 'a{,2}', '(ab)*c', 'x|y|z', '.*a.*b.*c']) {
      expect(checkRegex(pattern).ok, pattern).to.equal(true);
    }
  });

  it('refuses what RE2 refuses, with its message', () => {
    expect(refusal('a(b')).to.equal('not an RE2 regular expression: error parsing regexp: missing closing ): `a(b`');
    expect(refusal('(a)\\1')).to.match(/^not an RE2 regular expression: .*\\1/);
    expect(refusal('(?=a)')).to.match(/^not an RE2 regular expression/);
    expect(refusal('(?<!a)b')).to.match(/^not an RE2 regular expression/);
    expect(refusal('a**')).to.match(/^not an RE2 regular expression/);
  });

  it('refuses the constructs left out, saying which', () => {
    expect(refusal('(?i)a')).to.include('(?i) is not supported');
    expect(refusal('(?i:a)')).to.include('(?i) is not supported');
    expect(refusal('\\pL')).to.include('Unicode classes');
    expect(refusal('[\\p{Greek}]')).to.include('Unicode classes');
    expect(refusal('\\012')).to.include('octal escapes');
    expect(refusal('^*a')).to.include('quantifier on an anchor');
  });

  it('refuses nested quantifiers, quantified alternations and more than 3 unbounded quantifiers', () => {
    for (const pattern of ['(a+)+', '(a|aa)*', '(ab?)*', '((a)*)?', '(?:x{2})+', '(a|b){2}']) expect(refusal(pattern), pattern).to.include('exponential time');
    expect(refusal('a*b*c*d*')).to.include('at most 3 unbounded quantifiers (*, +, {n,}); this one holds 4');
    expect(refusal('a+|b+|c{2,}|d*')).to.include('holds 4');
    expect(checkRegex('a*b*c*d?e{2,9}').ok).to.equal(true);
  });

  it('limits a pattern to 1000 characters (code points)', () => {
    expect(checkRegex('é'.repeat(MAX_REGEX_LENGTH)).ok).to.equal(true);
    expect(checkRegex('a'.repeat(MAX_REGEX_LENGTH + 1))).to.deep.equal({ ok: false, msg: 'a regex pattern may be at most 1000 characters long', type: 'too_long' });
  });

  it('parses into code-point sets, anchors, groups and repetitions', () => {
    expect(parseRegex('a.$')).to.deep.equal({
      kind: 'concat',
      items: [
        { kind: 'set', ranges: [[0x61, 0x61]] },
        { kind: 'set', ranges: complement([[0x0a, 0x0a]]) },
        { kind: 'anchor', anchor: 'text_end' },
      ],
    });
    expect(parseRegex('(?m)^[^a-c\\d]{2,}?')).to.deep.equal({
      kind: 'concat',
      items: [
        { kind: 'anchor', anchor: 'line_start' },
        { kind: 'repeat', body: { kind: 'set', ranges: complement([[0x30, 0x39], [0x61, 0x63]]) }, min: 2, max: null },
      ],
    });
    expect(parseRegex('a{,2}')).to.deep.equal({ kind: 'concat', items: ['a', '{', ',', '2', '}'].map((char) => ({ kind: 'set', ranges: [[char.codePointAt(0), char.codePointAt(0)]] })) });
    expect(parseRegex('😀|\\x{1F600}')).to.deep.equal({ kind: 'alternate', branches: [{ kind: 'set', ranges: [[0x1f600, 0x1f600]] }, { kind: 'set', ranges: [[0x1f600, 0x1f600]] }] });
  });

  it('leaves out the surrogates when complementing, as no stored text holds one alone', () => {
    expect(complement([])).to.deep.equal([
      [0, 0xd7ff],
      [0xe000, 0x10ffff],
    ]);
  });
});
