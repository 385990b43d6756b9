// A 422's issues in words for the people filling a form: the validator's phrasing ("List should
// have at least 1 items") becomes a sentence that says what to do, and a place in a filter is
// written with 1-based rows ("row 2 of the OR group") rather than the JSON path. The service's
// own sentences (a conflict, a rule of the domain) pass unchanged. Pure: no DOM, tested as is.
import { filterLocText } from './filter-tree.js';

type Rewrite = [pattern: RegExp, words: (...groups: string[]) => string];

const REWRITES: Rewrite[] = [
  [/^Field required$/, () => 'This is required.'],
  [/^List should have at least 1 items?$/, () => 'Choose at least one.'],
  [/^List should have at least (\d+) items$/, (count) => `Choose at least ${count}.`],
  [/^List should have at most (\d+) items?$/, (count) => `Choose at most ${count}.`],
  [/^List items should be unique$/, () => 'Each value may appear once only.'],
  [/^String should have at least 1 characters?$/, () => 'This cannot be empty.'],
  [/^String should have at least (\d+) characters$/, (count) => `Use at least ${count} characters.`],
  [/^String should have at most (\d+) characters?$/, (count) => `Use at most ${count} characters.`],
  [/^String should match pattern '.*'$/s, () => 'This is not in the expected format.'],
  [/^Input should be greater than or equal to (.+)$/, (limit) => `Use a number of at least ${limit}.`],
  [/^Input should be less than or equal to (.+)$/, (limit) => `Use a number of at most ${limit}.`],
  [/^Input should be greater than (.+)$/, (limit) => `Use a number greater than ${limit}.`],
  [/^Input should be less than (.+)$/, (limit) => `Use a number less than ${limit}.`],
  [/^Input should be of type integer$/, () => 'Use a whole number.'],
  [/^Input should be of type number$/, () => 'Use a number.'],
  [/^Input should be a valid email$/, () => 'Enter an e-mail address, such as name@example.com.'],
  [/^Input should be a valid date-time$/, () => 'Enter a date and time.'],
  [/^Input should be a valid uri$/, () => 'Enter a URL, such as https://example.com/hook.'],
  [/^Input should be one of (.+)$/, (choices) => `Choose one of ${choices}.`],
  [/^Extra inputs are not permitted$/, () => 'This is not a field the service takes.'],
];

/** The validator's message in words for a form; any other message as the service wrote it. */
export function humanMessage(msg: string): string {
  for (const [pattern, words] of REWRITES) {
    const match = pattern.exec(msg);
    if (match) return words(...match.slice(1));
  }
  return msg;
}

/** Where an issue is, for a message that is not shown beside its field: `filter, row 2 of the OR group, value`. */
export function locText(loc: ReadonlyArray<string | number>): string {
  const [, ...path] = loc;
  if (path[0] === 'filter') {
    const inFilter = filterLocText(path.slice(1));
    return inFilter ? `filter, ${inFilter}` : 'filter';
  }
  return path.map((part) => (typeof part === 'number' ? `item ${part + 1}` : part)).join(', ');
}

/** One issue as a line: where, then what to do. */
export function issueText(issue: { loc: ReadonlyArray<string | number>; msg: string }): string {
  const where = locText(issue.loc);
  return where ? `${where}: ${humanMessage(issue.msg)}` : humanMessage(issue.msg);
}

/**
 * A 422's issues split between the fields a form shows (by the body property `loc` names, in
 * words) and the rest, which the form lists above its buttons.
 */
export function placeIssues<Field extends string>(
  issues: ReadonlyArray<{ loc: ReadonlyArray<string | number>; msg: string }>,
  fields: readonly Field[],
): { byField: Partial<Record<Field, string>>; rest: string[] } {
  const byField: Partial<Record<Field, string>> = {};
  const rest: string[] = [];
  for (const issue of issues) {
    const field =
      issue.loc[0] === 'body' ? (fields as readonly (string | number | undefined)[]).find((name) => name === issue.loc[1]) : undefined;
    if (field === undefined) rest.push(issueText(issue));
    else
      byField[field as Field] = byField[field as Field] ? `${byField[field as Field]} ${humanMessage(issue.msg)}` : humanMessage(issue.msg);
  }
  return { byField, rest };
}
