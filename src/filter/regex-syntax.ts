// The `regex` operator's pattern language: the part of RE2's syntax that answers the same on
// every database, parsed into a small tree that says what each piece matches (code-point sets,
// anchors, groups, repetitions). RE2 itself (the re2js package) decides what is a valid RE2
// pattern first (./regex.ts); this parser then refuses, with a reason, the valid constructs that
// are left out (Unicode classes, case folding of characters outside ASCII, octal escapes) and
// gives the tree from which the backtracking checks (./regex.ts) and the MariaDB translation
// (src/storage/sql/pcre-pattern.ts) work. Case folding (`(?i)`) is spelled out in the tree's sets,
// so MariaDB's PCRE2 never folds by its own tables. What is accepted is listed in
// docs/filter-semantics.md.

/** An inclusive range of code points. */
export type CodePointRange = readonly [number, number];

export type RegexAnchor = 'text_start' | 'text_end' | 'line_start' | 'line_end' | 'word_boundary' | 'not_word_boundary';

export type RegexTree =
  /** One code point out of a set (a literal is a set of one). */
  | { kind: 'set'; ranges: CodePointRange[] }
  /** A zero-width test. */
  | { kind: 'anchor'; anchor: RegexAnchor }
  | { kind: 'concat'; items: RegexTree[] }
  | { kind: 'alternate'; branches: RegexTree[] }
  /** `max` null: unbounded (`*`, `+`, `{n,}`). */
  | { kind: 'repeat'; body: RegexTree; min: number; max: number | null }
  | { kind: 'group'; body: RegexTree };

/** A valid RE2 construct this service does not accept; the message says which and why. */
export class UnsupportedRegex extends Error {}

export const MAX_CODE_POINT = 0x10ffff;
const SURROGATES: CodePointRange = [0xd800, 0xdfff];

/** RE2's Perl classes, ASCII-only as in RE2; the upper-case escapes are their complements. */
const DIGIT: CodePointRange[] = [[0x30, 0x39]];
const SPACE: CodePointRange[] = [
  [0x09, 0x0a],
  [0x0c, 0x0d],
  [0x20, 0x20],
];
const WORD: CodePointRange[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
export const WORD_CHARACTERS = WORD;
const PERL_CLASSES: Record<string, CodePointRange[]> = { d: DIGIT, s: SPACE, w: WORD };

/** RE2's POSIX classes (`[[:alpha:]]`), ASCII-only as in RE2. */
const POSIX_CLASSES: Record<string, CodePointRange[]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: DIGIT,
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: WORD,
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

/** ſ (U+017F) and the Kelvin sign (U+212A): the only code points outside ASCII that RE2 folds together with ASCII letters (s, k). */
const LONG_S = 0x17f;
const KELVIN = 0x212a;

/**
 * RE2's case-folding orbits of ASCII (simple case folding): each letter with its other case, and
 * s and k with ſ and K. No other code point folds with an ASCII one (test/filter/regex.test.ts
 * checks every code point against re2js).
 */
const ASCII_ORBITS: number[][] = Array.from({ length: 26 }, (_, index) => {
  const upper = 0x41 + index;
  const orbit = [upper, upper + 0x20];
  if (upper === 0x4b) orbit.push(KELVIN);
  if (upper === 0x53) orbit.push(LONG_S);
  return orbit;
});

/** The first code point of the ranges whose case folding is not spelled out here (outside ASCII, ſ, K). */
function firstUnfoldable(ranges: readonly CodePointRange[]): number | undefined {
  for (const [low, high] of ranges) {
    let codePoint = Math.max(low, 0x80);
    while (codePoint === LONG_S || codePoint === KELVIN) codePoint += 1;
    if (codePoint <= high) return codePoint;
  }
  return undefined;
}

function describeCodePoint(codePoint: number): string {
  const name = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  return /\p{L}|\p{N}|\p{P}|\p{S}/u.test(String.fromCodePoint(codePoint)) ? `${String.fromCodePoint(codePoint)} (${name})` : name;
}

/**
 * What a positive set matches under (?i), as RE2 folds it: with the other members of each ASCII
 * orbit it touches. Outside ASCII, RE2 folds by its Unicode tables, which MariaDB's PCRE2 need
 * not share, and the service does not carry them to spell the folds out.
 */
function foldCase(ranges: readonly CodePointRange[]): CodePointRange[] {
  const outside = firstUnfoldable(ranges);
  if (outside !== undefined) {
    throw new UnsupportedRegex(
      `under the case-insensitive flag (?i), only ASCII characters are folded the same on every database (RE2 folds the others by Unicode tables that MariaDB's PCRE2 need not share), and ${describeCodePoint(outside)} is not ASCII; end the flag before it, e.g. (?i:error)[éÉ] or (?i)error(?-i)é`,
    );
  }
  const inRanges = (codePoint: number) => ranges.some(([low, high]) => codePoint >= low && codePoint <= high);
  const added = ASCII_ORBITS.filter((orbit) => orbit.some(inRanges)).flatMap((orbit) =>
    orbit.map((codePoint): CodePointRange => [codePoint, codePoint]),
  );
  return normalise([...ranges, ...added]);
}

const SINGLE_ESCAPES: Record<string, number> = { a: 0x07, f: 0x0c, t: 0x09, n: 0x0a, r: 0x0d, v: 0x0b };

/** Sorted, merged ranges. */
export function normalise(ranges: readonly CodePointRange[]): CodePointRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [low, high] of sorted) {
    const last = merged[merged.length - 1];
    if (last && low <= last[1] + 1) last[1] = Math.max(last[1], high);
    else merged.push([low, high]);
  }
  return merged;
}

/** Every code point (surrogates aside: no stored text holds one alone) outside the ranges. */
export function complement(ranges: readonly CodePointRange[]): CodePointRange[] {
  const out: CodePointRange[] = [];
  let next = 0;
  for (const [low, high] of normalise([...ranges, SURROGATES])) {
    if (low > next) out.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

interface Flags {
  multiLine: boolean;
  dotAll: boolean;
  foldCase: boolean;
}

/** A positive set as the flags make it match. */
function folded(ranges: CodePointRange[], flags: Flags): CodePointRange[] {
  return flags.foldCase ? foldCase(ranges) : ranges;
}

/** A class item: one code point (which may start a range) or a finished set (a Perl class). */
type ClassItem = { kind: 'point'; codePoint: number } | { kind: 'set'; ranges: CodePointRange[] };

const PUNCTUATION = /^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/;

class RegexParser {
  private readonly chars: string[];
  private at = 0;

  constructor(pattern: string) {
    this.chars = Array.from(pattern);
  }

  parse(): RegexTree {
    const tree = this.alternation({ multiLine: false, dotAll: false, foldCase: false });
    if (this.at < this.chars.length) throw new UnsupportedRegex(`unexpected "${this.peek()}"`);
    return tree;
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.at + offset];
  }

  private take(): string {
    const char = this.chars[this.at];
    if (char === undefined) throw new UnsupportedRegex('the pattern ends too early');
    this.at += 1;
    return char;
  }

  /** Branches separated by `|`, up to `)` or the end; flags set inside last to the group's end. */
  private alternation(outer: Flags): RegexTree {
    const flags = { ...outer };
    const branches: RegexTree[] = [this.concatenation(flags)];
    while (this.peek() === '|') {
      this.at += 1;
      branches.push(this.concatenation(flags));
    }
    return branches.length === 1 ? (branches[0] as RegexTree) : { kind: 'alternate', branches };
  }

  private concatenation(flags: Flags): RegexTree {
    const items: RegexTree[] = [];
    for (let char = this.peek(); char !== undefined && char !== '|' && char !== ')'; char = this.peek()) {
      if (char === '(' && this.peek(1) === '?' && this.flagGroup(flags)) continue;
      if (char === '\\' && this.peek(1) === 'Q') {
        // A quantifier after `\E` repeats the last quoted character, as in RE2.
        const quoted = this.quoted(flags);
        const last = quoted.pop();
        items.push(...quoted);
        if (last) items.push(this.repetition(last));
        continue;
      }
      const atom = this.atom(flags);
      items.push(this.repetition(atom));
    }
    return items.length === 1 ? (items[0] as RegexTree) : { kind: 'concat', items };
  }

  /** `\Q...\E`: every character up to `\E` (or the end) stands for itself. */
  private quoted(flags: Flags): RegexTree[] {
    this.at += 2;
    const items: RegexTree[] = [];
    while (this.at < this.chars.length && !(this.peek() === '\\' && this.peek(1) === 'E')) items.push(literal(this.take(), flags));
    if (this.at < this.chars.length) this.at += 2;
    return items;
  }

  /** `(?flags)` (true: consumed) or the start of a `(?flags:...)` / named group (false). */
  private flagGroup(flags: Flags): boolean {
    let index = this.at + 2;
    let negate = false;
    const changes: Partial<Flags> = {};
    for (;;) {
      const char = this.chars[index];
      if (char === ')' || char === ':') break;
      if (char === '-') negate = true;
      else if (char === 'i') changes.foldCase = !negate;
      else if (char === 'm') changes.multiLine = !negate;
      else if (char === 's') changes.dotAll = !negate;
      else if (char === 'U') {
        // Ungreedy changes which match is found, never whether one is: nothing to keep.
      } else return false; // `(?P<name>` or `(?<name>`
      index += 1;
    }
    if (this.chars[index] === ':') return false;
    Object.assign(flags, changes);
    this.at = index + 1;
    return true;
  }

  private atom(flags: Flags): RegexTree {
    const char = this.take();
    if (char === '(') return this.group(flags);
    if (char === '[') return this.characterClass(flags);
    if (char === '.') return { kind: 'set', ranges: flags.dotAll ? complement([]) : complement([[0x0a, 0x0a]]) };
    if (char === '^') return { kind: 'anchor', anchor: flags.multiLine ? 'line_start' : 'text_start' };
    if (char === '$') return { kind: 'anchor', anchor: flags.multiLine ? 'line_end' : 'text_end' };
    if (char === '\\') return this.escape(flags);
    if (char === '*' || char === '+' || char === '?') throw new UnsupportedRegex(`"${char}" repeats nothing`);
    return literal(char, flags);
  }

  private group(flags: Flags): RegexTree {
    if (this.peek() === '?') {
      this.at += 1;
      if (this.peek() === 'P' || this.peek() === '<') {
        // A named group matches as a plain group: names only label captures.
        while (this.take() !== '>');
      } else {
        const inner = { ...flags };
        for (let negate = false, char = this.take(); char !== ':'; char = this.take()) {
          if (char === '-') negate = true;
          else if (char === 'm') inner.multiLine = !negate;
          else if (char === 's') inner.dotAll = !negate;
          else if (char === 'i') inner.foldCase = !negate;
        }
        return this.closeGroup(inner);
      }
    }
    return this.closeGroup(flags);
  }

  private closeGroup(flags: Flags): RegexTree {
    const body = this.alternation(flags);
    if (this.take() !== ')') throw new UnsupportedRegex('a group is not closed');
    return { kind: 'group', body };
  }

  /** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally lazy (`?`), which changes nothing here. */
  private repetition(atom: RegexTree): RegexTree {
    const char = this.peek();
    let bounds: [number, number | null] | undefined;
    if (char === '*') bounds = [0, null];
    else if (char === '+') bounds = [1, null];
    else if (char === '?') bounds = [0, 1];
    if (bounds) this.at += 1;
    else if (char === '{') bounds = this.counted();
    if (!bounds) return atom;
    if (this.peek() === '?') this.at += 1;
    if (atom.kind === 'anchor') throw new UnsupportedRegex('a quantifier on an anchor (^, $, \\A, \\z, \\b, \\B) is not supported');
    return { kind: 'repeat', body: atom, min: bounds[0], max: bounds[1] };
  }

  /** `{n}`, `{n,}`, `{n,m}`; anything else after `{` leaves it a literal brace, as in RE2. */
  private counted(): [number, number | null] | undefined {
    const rest = this.chars.slice(this.at, this.at + 12).join('');
    const match = /^\{([0-9]+)(,([0-9]*))?\}/.exec(rest);
    if (!match) return undefined;
    this.at += Array.from(match[0]).length;
    const min = Number(match[1]);
    if (match[2] === undefined) return [min, min];
    return [min, match[3] === '' ? null : Number(match[3])];
  }

  private escape(flags: Flags): RegexTree {
    const char = this.take();
    if (char === 'A') return { kind: 'anchor', anchor: 'text_start' };
    if (char === 'z') return { kind: 'anchor', anchor: 'text_end' };
    if (char === 'b') return { kind: 'anchor', anchor: 'word_boundary' };
    if (char === 'B') return { kind: 'anchor', anchor: 'not_word_boundary' };
    const item = this.escapedItem(char, flags);
    return { kind: 'set', ranges: item.kind === 'set' ? item.ranges : folded(point(item.codePoint), flags) };
  }

  /** What an escape stands for (after the backslash), outside or inside a class. */
  private escapedItem(char: string, flags: Flags): ClassItem {
    const perl = PERL_CLASSES[char.toLowerCase()];
    // A negated class under (?i) is the complement of the folded class, as in RE2.
    if (perl) return { kind: 'set', ranges: char === char.toLowerCase() ? folded(perl, flags) : complement(folded(perl, flags)) };
    if (char in SINGLE_ESCAPES) return { kind: 'point', codePoint: SINGLE_ESCAPES[char] as number };
    if (char === 'x') return { kind: 'point', codePoint: this.hexEscape() };
    if (char === 'p' || char === 'P') {
      throw new UnsupportedRegex(
        "Unicode classes (\\p, \\P) are not supported: MariaDB's engine (PCRE2) reads them from its own Unicode tables, whose version need not be RE2's, and the service does not carry RE2's tables to spell them out; list the ranges, e.g. [\\x{0370}-\\x{03FF}]",
      );
    }
    if (/[0-9]/.test(char)) throw new UnsupportedRegex('octal escapes are not supported; write the character as \\x{…}');
    if (PUNCTUATION.test(char)) return { kind: 'point', codePoint: char.codePointAt(0) as number };
    throw new UnsupportedRegex(`the escape \\${char} is not supported`);
  }

  /** `\x41` or `\x{1F600}`. */
  private hexEscape(): number {
    let digits = '';
    if (this.peek() === '{') {
      this.at += 1;
      for (let char = this.take(); char !== '}'; char = this.take()) digits += char;
    } else digits = this.take() + this.take();
    const value = Number.parseInt(digits, 16);
    if (!/^[0-9A-Fa-f]+$/.test(digits) || value > MAX_CODE_POINT) throw new UnsupportedRegex(`invalid hexadecimal escape \\x${digits}`);
    if (value >= SURROGATES[0] && value <= SURROGATES[1]) throw new UnsupportedRegex('a surrogate code point cannot occur in stored text');
    return value;
  }

  /** `[...]` or `[^...]`, as the set of code points it matches; under (?i) each item is folded, then the class negated, as in RE2. */
  private characterClass(flags: Flags): RegexTree {
    const negated = this.peek() === '^';
    if (negated) this.at += 1;
    const ranges: CodePointRange[] = [];
    let first = true;
    while (this.peek() !== ']' || first) {
      first = false;
      const posix = this.posixClass(flags);
      if (posix) {
        ranges.push(...posix);
        continue;
      }
      const low = this.classItem(flags);
      if (low.kind === 'point' && this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.at += 1;
        const high = this.classItem(flags);
        if (high.kind !== 'point') throw new UnsupportedRegex('a class range must end in one character');
        ranges.push(...folded([[low.codePoint, high.codePoint]], flags));
      } else ranges.push(...(low.kind === 'set' ? low.ranges : folded(point(low.codePoint), flags)));
    }
    this.at += 1;
    return { kind: 'set', ranges: negated ? complement(ranges) : normalise(ranges) };
  }

  private posixClass(flags: Flags): CodePointRange[] | undefined {
    if (this.peek() !== '[' || this.peek(1) !== ':') return undefined;
    const rest = this.chars.slice(this.at).join('');
    const match = /^\[:(\^?)([a-z]+):\]/.exec(rest);
    if (!match) return undefined;
    const ranges = POSIX_CLASSES[match[2] as string];
    if (!ranges) throw new UnsupportedRegex(`unknown POSIX class [:${match[2]}:]`);
    this.at += match[0].length;
    return match[1] ? complement(folded(ranges, flags)) : folded(ranges, flags);
  }

  /** One character, escape or Perl class inside brackets. */
  private classItem(flags: Flags): ClassItem {
    const char = this.take();
    if (char !== '\\') return { kind: 'point', codePoint: char.codePointAt(0) as number };
    return this.escapedItem(this.take(), flags);
  }
}

function point(codePoint: number): CodePointRange[] {
  return [[codePoint, codePoint]];
}

function literal(char: string, flags: Flags): RegexTree {
  return { kind: 'set', ranges: folded(point(char.codePointAt(0) as number), flags) };
}

/**
 * The tree of a pattern RE2 has accepted; throws UnsupportedRegex for a construct outside the
 * accepted part of RE2's syntax.
 */
export function parseRegex(pattern: string): RegexTree {
  return new RegexParser(pattern).parse();
}
