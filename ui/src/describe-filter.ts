// A filter tree (openapi/engine.yaml, FilterNode) as one line of text a person can read, for views
// that show the active filter without editing it (the metrics view). Values are quoted as JSON so
// that spaces and empty strings stay visible; the text is rendered as text, never as HTML.
const OPERATORS: Record<string, string> = {
  eq: '=',
  neq: '≠',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  contains: 'contains',
  starts_with: 'starts with',
  ends_with: 'ends with',
  regex: 'matches',
  in: 'in',
  not_in: 'not in',
};

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(describeValue).join(', ')}]`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function describeMembers(members: unknown[], joiner: string, empty: string): string {
  if (members.length === 0) return empty;
  if (members.length === 1) return describeFilter(members[0]);
  return `(${members.map(describeFilter).join(` ${joiner} `)})`;
}

/** Takes any JSON (the URL may hold anything): what is not a filter node is shown as its JSON. */
export function describeFilter(node: unknown): string {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return JSON.stringify(node);
  const fields = node as Record<string, unknown>;
  if (Array.isArray(fields.and)) return describeMembers(fields.and, 'AND', 'everything');
  if (Array.isArray(fields.or)) return describeMembers(fields.or, 'OR', 'nothing');
  if ('not' in fields) return `NOT ${describeFilter(fields.not)}`;
  if (typeof fields.field !== 'string' || typeof fields.op !== 'string') return JSON.stringify(node);
  if (fields.op === 'exists') return `${fields.field} exists`;
  if (fields.op === 'not_exists') return `${fields.field} does not exist`;
  return `${fields.field} ${OPERATORS[fields.op] ?? fields.op} ${describeValue(fields.value)}`;
}
