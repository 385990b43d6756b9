// The `regex` pattern check (src/filter/regex.ts): RE2's refusals, the constructs left out, the
// backtracking rules, the length limit, and the tree the accepted subset parses into.
import { expect } from 'chai';
import { RE2JS } from 're2js';
import { checkRegex, MAX_REGEX_LENGTH } from '../../src/filter/regex.js';
import { complement, parseRegex, type CodePointRange, type RegexTree } from '../../src/filter/regex-syntax.js';

/** Every code point but the surrogates, in order: what RE2 folds is found by searching it. */
const EVERY_CODE_POINT = Array.from({ length: 0x110000 }, (_, codePoint) => codePoint)
  .filter((codePoint) => codePoint < 0xd800 || codePoint > 0xdfff)
  .map((codePoint) => String.fromCodePoint(codePoint))
  .join('');

/** The code points a one-character pattern matches in RE2 (re2js), found among every code point. */
function re2Matches(pattern: string): Set<number> {
  const matcher = RE2JS.compile(pattern).matcher(EVERY_CODE_POINT);
  const found = new Set<number>();
  while (matcher.find()) found.add(matcher.group()?.codePointAt(0) as number);
  return found;
}

function setOf(pattern: string): CodePointRange[] {
  const tree = parseRegex(pattern) as RegexTree;
  if (tree.kind !== 'set') throw new Error(`${pattern} is no set`);
  return tree.ranges;
}

const inSet = (ranges: readonly CodePointRange[], codePoint: number) => ranges.some(([low, high]) => codePoint >= low && codePoint <= high);

function refusal(pattern: string): string {
  const check = checkRegex(pattern);
  if (check.ok) throw new Error(`accepted ${pattern}`);
  return check.msg;
}

describe('regex pattern check', () => {
  it('accepts RE2 patterns within the subset', () => {
    for (const pattern of [
      '',
      'abc',
      '(?i)error',
      '(?i:ab)c',
      '(?-i)a',
      '(?mi)^x$',
      '(?i)[^a-z]+',
      '(?i)\\Qa.b\\E',
      '^a.c$',
      '[a-z]+\\d{2,3}',
      '(?m)^x$',
      '(?s:a.)b',
      '(?P<n>ab)c',
      '\\bword\\B',
      '[[:^alpha:]]',
      '\\Q(*)\\E',
      'a{,2}',
      '(ab)*c',
      'x|y|z',
      '.*a.*b.*c',
    ]) {
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
    expect(refusal('(?i)é'))
      .to.include('under the case-insensitive flag (?i), only ASCII characters are folded the same on every database')
      .and.include('é (U+00E9) is not ASCII; end the flag before it');
    expect(refusal('(?i:a[\\x{100}-\\x{200}])')).to.include('(?i)').and.include('U+0100');
    expect(refusal('(?i)\\Qé\\E')).to.include('(?i)');
    expect(refusal('\\pL')).to.include('Unicode classes (\\p, \\P) are not supported').and.include('PCRE2');
    expect(refusal('[\\p{Greek}]')).to.include('Unicode classes (\\p, \\P) are not supported');
    expect(refusal('(?i)\\P{Lu}')).to.include('Unicode classes (\\p, \\P) are not supported');
    expect(refusal('\\012')).to.include('octal escapes');
    expect(refusal('^*a')).to.include('quantifier on an anchor');
  });

  it('refuses nested quantifiers, quantified alternations and more than 3 unbounded quantifiers', () => {
    for (const pattern of ['(a+)+', '(a|aa)*', '(ab?)*', '((a)*)?', '(?:x{2})+', '(a|b){2}'])
      expect(refusal(pattern), pattern).to.include('exponential time');
    expect(refusal('a*b*c*d*')).to.include('at most 3 unbounded quantifiers (*, +, {n,}); this one holds 4');
    expect(refusal('a+|b+|c{2,}|d*')).to.include('holds 4');
    expect(checkRegex('a*b*c*d?e{2,9}').ok).to.equal(true);
  });

  it('limits a pattern to 1000 characters (code points)', () => {
    expect(checkRegex('é'.repeat(MAX_REGEX_LENGTH)).ok).to.equal(true);
    expect(checkRegex('a'.repeat(MAX_REGEX_LENGTH + 1))).to.deep.equal({
      ok: false,
      msg: 'a regex pattern may be at most 1000 characters long',
      type: 'too_long',
    });
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
        {
          kind: 'repeat',
          body: {
            kind: 'set',
            ranges: complement([
              [0x30, 0x39],
              [0x61, 0x63],
            ]),
          },
          min: 2,
          max: null,
        },
      ],
    });
    expect(parseRegex('a{,2}')).to.deep.equal({
      kind: 'concat',
      items: ['a', '{', ',', '2', '}'].map((char) => ({ kind: 'set', ranges: [[char.codePointAt(0), char.codePointAt(0)]] })),
    });
    expect(parseRegex('😀|\\x{1F600}')).to.deep.equal({
      kind: 'alternate',
      branches: [
        { kind: 'set', ranges: [[0x1f600, 0x1f600]] },
        { kind: 'set', ranges: [[0x1f600, 0x1f600]] },
      ],
    });
  });

  it('folds case under (?i) as RE2 does: ASCII letters with their other case, s with ſ, k with the Kelvin sign', () => {
    // Proof that nothing else folds with ASCII: everything (?i)[\x00-\x7f] finds among every code point.
    const foldable = [...re2Matches('(?i)[\\x00-\\x7f]')].sort((a, b) => a - b);
    expect(foldable).to.deep.equal([...Array.from({ length: 0x80 }, (_, codePoint) => codePoint), 0x17f, 0x212a]);
    // Each of those alone, and in classes, negated or not: the parsed set is what RE2 matches.
    const patterns = [
      ...foldable.map((codePoint) => `(?i)\\x{${codePoint.toString(16)}}`),
      '(?i)[a-z]',
      '(?i)[^k]',
      '(?i)[^\\x{17f}]',
      '(?i)\\w',
      '(?i)\\W',
      '(?i)[^\\W]',
      '(?i)[[:upper:]]',
      '(?i)[[:^lower:]]',
      '(?i)[\\d_S-Z]',
      '(?i)[K]',
      '(?i)(?-i)k',
      '(?i-i)[s]',
    ];
    // Elsewhere a set is all or nothing of each stretch between them: its ends tell.
    const elsewhere = complement([
      [0, 0x7f],
      [0x17f, 0x17f],
      [0x212a, 0x212a],
    ]).flat();
    for (const pattern of patterns) {
      const ranges = setOf(pattern);
      const compiled = RE2JS.compile(pattern);
      const wrong = [...foldable, ...elsewhere].filter(
        (codePoint) => inSet(ranges, codePoint) !== compiled.matches(String.fromCodePoint(codePoint)),
      );
      expect(wrong, pattern).to.deep.equal([]);
    }
    expect(setOf('(?i)k')).to.deep.equal([
      [0x4b, 0x4b],
      [0x6b, 0x6b],
      [0x212a, 0x212a],
    ]);
    expect(setOf('(?i)\\x{17f}')).to.deep.equal([
      [0x53, 0x53],
      [0x73, 0x73],
      [0x17f, 0x17f],
    ]);
    expect(setOf('(?i)(?-i)k')).to.deep.equal([[0x6b, 0x6b]]);
  });

  it('leaves out the surrogates when complementing, as no stored text holds one alone', () => {
    expect(complement([])).to.deep.equal([
      [0, 0xd7ff],
      [0xe000, 0x10ffff],
    ]);
  });
});
