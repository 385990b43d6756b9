// A `regex` filter pattern (its tree, src/filter/regex-syntax.ts) written in MariaDB's REGEXP
// dialect, PCRE2, so that it matches exactly what RE2 matches. Nothing is left to a PCRE2
// default that differs from RE2 or depends on how the server was built: every character is a
// hex escape or an explicit class of code points (`.` is "anything but \n", `\d` ASCII digits),
// `^`/`$` are `\A`/`\z` (PCRE2's `$` also matches before a final newline), the multi-line
// anchors and `\b` are spelled out with lookaround on `\n` and ASCII word characters, and every
// group is non-capturing.
import { WORD_CHARACTERS, type CodePointRange, type RegexAnchor, type RegexTree } from '../../filter/regex-syntax.js';

function hex(codePoint: number): string {
  return `\\x{${codePoint.toString(16)}}`;
}

function setSql(ranges: readonly CodePointRange[]): string {
  if (ranges.length === 1 && ranges[0]?.[0] === ranges[0]?.[1]) {
    const codePoint = (ranges[0] as CodePointRange)[0];
    return /^[0-9A-Za-z]$/.test(String.fromCodePoint(codePoint)) ? String.fromCodePoint(codePoint) : hex(codePoint);
  }
  // An empty set (a class of nothing) never matches.
  if (ranges.length === 0) return '(?!)';
  return `[${ranges.map(([low, high]) => (low === high ? hex(low) : `${hex(low)}-${hex(high)}`)).join('')}]`;
}

const WORD = setSql(WORD_CHARACTERS);

const ANCHORS: Record<RegexAnchor, string> = {
  text_start: '\\A',
  text_end: '\\z',
  line_start: '(?:\\A|(?<=\\n))',
  line_end: '(?=\\n|\\z)',
  word_boundary: `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`,
  not_word_boundary: `(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`,
};

function repeatSuffix(min: number, max: number | null): string {
  if (max === null) return min === 0 ? '*' : min === 1 ? '+' : `{${min},}`;
  if (min === 0 && max === 1) return '?';
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

/** The PCRE2 text of a pattern's tree. */
export function pcrePattern(tree: RegexTree): string {
  switch (tree.kind) {
    case 'set':
      return setSql(tree.ranges);
    case 'anchor':
      return ANCHORS[tree.anchor];
    case 'group':
      return `(?:${pcrePattern(tree.body)})`;
    case 'concat':
      return tree.items.length === 0 ? '(?:)' : tree.items.map(pcrePattern).join('');
    case 'alternate':
      return tree.branches.map(pcrePattern).join('|');
    case 'repeat':
      // The body is a set or a group: one atom, which the suffix applies to (an empty set's
      // `(?!)` is an assertion, which takes no quantifier: grouped).
      return `${tree.body.kind === 'set' && tree.body.ranges.length === 0 ? '(?:(?!))' : pcrePattern(tree.body)}${repeatSuffix(tree.min, tree.max)}`;
  }
}
