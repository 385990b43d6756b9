// Whether two answers to a bench case are the same (scripts/bench-query.ts checks the endpoint's
// against the hand-written SQL's once per case: timing two different answers is worthless).
// Answers are plain JSON values; integers must be equal, other numbers (sums, averages,
// interpolated percentiles, which the two sides may add up in different orders) within 1e-9 relative.

export type AnswerValue = null | boolean | number | string | AnswerValue[] | { [key: string]: AnswerValue };

const RELATIVE_TOLERANCE = 1e-9;

function sameNumber(a: number, b: number): boolean {
  if (Number.isInteger(a) && Number.isInteger(b)) return a === b;
  return Math.abs(a - b) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
}

function shown(value: AnswerValue): string {
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** The first difference between `a` and `b` (its path and both values), or undefined when they agree. */
export function answerDifference(a: AnswerValue, b: AnswerValue, path = '$'): string | undefined {
  if (typeof a === 'number' && typeof b === 'number') return sameNumber(a, b) ? undefined : `${path}: ${a} ≠ ${b}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: ${a.length} items ≠ ${b.length} items (${shown(a)} ≠ ${shown(b)})`;
    for (let index = 0; index < a.length; index += 1) {
      const difference = answerDifference(a[index] as AnswerValue, b[index] as AnswerValue, `${path}[${index}]`);
      if (difference) return difference;
    }
    return undefined;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      if (!(key in a) || !(key in b)) return `${path}.${key}: only on one side`;
      const difference = answerDifference(a[key] as AnswerValue, b[key] as AnswerValue, `${path}.${key}`);
      if (difference) return difference;
    }
    return undefined;
  }
  return a === b ? undefined : `${path}: ${shown(a)} ≠ ${shown(b)}`;
}
