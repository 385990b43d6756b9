// Whether a `regex` filter value is a pattern the service runs: a valid RE2 pattern (re2js,
// the JavaScript port of RE2, decides), within the accepted part of RE2's syntax
// (./regex-syntax.ts), short enough, and free of the shapes that make a backtracking engine
// (MariaDB's PCRE2) take exponential time. SQLite runs the pattern with RE2 itself, in linear
// time; the same rules apply there so that a filter answers the same on every database.
import { RE2JS } from 're2js';
import { parseRegex, UnsupportedRegex, type RegexTree } from './regex-syntax.js';

/** The longest pattern, in characters (code points). */
export const MAX_REGEX_LENGTH = 1000;

/** The most unbounded quantifiers (`*`, `+`, `{n,}`) in one pattern: past three, a backtracking engine's worst case grows too fast. */
export const MAX_UNBOUNDED_QUANTIFIERS = 3;

export type RegexCheck = { ok: true; tree: RegexTree } | { ok: false; msg: string; type: 'value_error' | 'too_long' };

function refused(msg: string): RegexCheck {
  return { ok: false, msg, type: 'value_error' };
}

/** Whether a tree holds a quantifier or an alternation anywhere. */
function branchesOrRepeats(tree: RegexTree): boolean {
  if (tree.kind === 'repeat' || tree.kind === 'alternate') return true;
  if (tree.kind === 'group') return branchesOrRepeats(tree.body);
  if (tree.kind === 'concat') return tree.items.some(branchesOrRepeats);
  return false;
}

/** The first backtracking hazard of a tree, as the reason to refuse it; the count of unbounded quantifiers. */
function hazards(tree: RegexTree, found: { unbounded: number; reason?: string }): void {
  if (tree.kind === 'repeat') {
    if (tree.max === null) found.unbounded += 1;
    if (branchesOrRepeats(tree.body)) {
      found.reason ??=
        'a quantifier over a group that itself holds a quantifier or an alternation (as in (a+)+ or (a|aa)*) can take exponential time on a backtracking engine; rewrite it without the nesting, e.g. [ab]* for (a|b)*';
    }
    hazards(tree.body, found);
  } else if (tree.kind === 'group') hazards(tree.body, found);
  else if (tree.kind === 'concat') tree.items.forEach((item) => hazards(item, found));
  else if (tree.kind === 'alternate') tree.branches.forEach((branch) => hazards(branch, found));
}

/** Checks a `regex` value; the message of a refusal says why. */
export function checkRegex(pattern: string): RegexCheck {
  if (Array.from(pattern).length > MAX_REGEX_LENGTH)
    return { ok: false, msg: `a regex pattern may be at most ${MAX_REGEX_LENGTH} characters long`, type: 'too_long' };
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    return refused(`not an RE2 regular expression: ${(error as Error).message}`);
  }
  let tree: RegexTree;
  try {
    tree = parseRegex(pattern);
  } catch (error) {
    if (error instanceof UnsupportedRegex) return refused(`not supported in a regex filter: ${error.message}`);
    throw error;
  }
  const found: { unbounded: number; reason?: string } = { unbounded: 0 };
  hazards(tree, found);
  if (found.reason) return refused(found.reason);
  if (found.unbounded > MAX_UNBOUNDED_QUANTIFIERS) {
    return refused(
      `a regex pattern may hold at most ${MAX_UNBOUNDED_QUANTIFIERS} unbounded quantifiers (*, +, {n,}); this one holds ${found.unbounded}, whose worst case on a backtracking engine grows too fast`,
    );
  }
  return { ok: true, tree };
}
