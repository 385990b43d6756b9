// The PCRE2 text MariaDB's REGEXP receives for a `regex` pattern (src/storage/sql/pcre-pattern.ts):
// nothing left to PCRE2's defaults. test/storage/sql/regex-dialects.test.ts checks the answers.
import { expect } from 'chai';
import { checkRegex } from '../../../src/filter/regex.js';
import { pcrePattern } from '../../../src/storage/sql/pcre-pattern.js';

function pcre(pattern: string): string {
  const check = checkRegex(pattern);
  if (!check.ok) throw new Error(check.msg);
  return pcrePattern(check.tree);
}

const NOT_NEWLINE = '[\\x{0}-\\x{9}\\x{b}-\\x{d7ff}\\x{e000}-\\x{10ffff}]';
const WORD = '[\\x{30}-\\x{39}\\x{41}-\\x{5a}\\x{5f}\\x{61}-\\x{7a}]';

describe('regex patterns in PCRE2 for MariaDB', () => {
  it('writes letters and digits as themselves and every other character as a hex escape', () => {
    expect(pcre('aZ9')).to.equal('aZ9');
    expect(pcre('%_\\\\\\.é')).to.equal('\\x{25}\\x{5f}\\x{5c}\\x{2e}\\x{e9}');
    expect(pcre('a{,2}')).to.equal('a\\x{7b}\\x{2c}2\\x{7d}');
  });

  it('anchors at the ends of the text: $ never before a final newline', () => {
    expect(pcre('^a$')).to.equal('\\Aa\\z');
    expect(pcre('(?m)^a$')).to.equal('(?:\\A|(?<=\\n))a(?=\\n|\\z)');
  });

  it('spells out ., the Perl classes and \\b as ASCII code-point sets', () => {
    expect(pcre('.')).to.equal(NOT_NEWLINE);
    expect(pcre('(?s).')).to.equal('[\\x{0}-\\x{d7ff}\\x{e000}-\\x{10ffff}]');
    expect(pcre('\\d')).to.equal('[\\x{30}-\\x{39}]');
    expect(pcre('\\w')).to.equal(WORD);
    expect(pcre('\\b')).to.equal(`(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`);
  });

  it('makes every group non-capturing and keeps quantifiers and alternation', () => {
    expect(pcre('(?P<n>ab)+c{2,}d{1,3}?|e?')).to.equal('(?:ab)+c{2,}d{1,3}|e?');
    expect(pcre('')).to.equal('(?:)');
    expect(pcre('a|')).to.equal('a|(?:)');
  });
});
