// Step 1 of the filter compiler: checks an untrusted filter value and turns it into the
// validated tree (ast.ts), each condition carrying its resolved field and, for a numeric
// comparison, its parsed number, so that the compiler looks nothing up again. Every problem is
// reported once, at the node where it is, as a 422 `detail` entry.
import type { ValidationIssue } from '../errors.js';
import {
  JSON_NUMBER,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  NUMERIC_OPERATORS,
  OPERATORS,
  STRING_OPERATORS,
  type FilterNode,
  type Operator,
} from './ast.js';
import { NUMBER_FIELDS, resolveField, TEXT_FIELDS } from './fields.js';

export type FilterValidation = { ok: true; filter: FilterNode | null } | { ok: false; issues: ValidationIssue[] };

type Loc = Array<string | number>;

const CONDITION_KEYS = ['field', 'op', 'value'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Number() alone also reads ` 5`, `+5` and `0x10` (as 16); `1e400` is the grammar's but infinite.
function isFiniteNumberText(value: string): boolean {
  return JSON_NUMBER.test(value) && Number.isFinite(Number(value));
}

class FilterValidator {
  readonly issues: ValidationIssue[] = [];
  private nodes = 0;

  private fail(loc: Loc, msg: string, type: string): undefined {
    this.issues.push({ loc, msg, type });
    return undefined;
  }

  node(value: unknown, loc: Loc, depth: number): FilterNode | undefined {
    this.nodes += 1;
    if (this.nodes > MAX_FILTER_NODES) {
      if (this.nodes === MAX_FILTER_NODES + 1) {
        this.fail(['body', 'filter'], `filter holds more than ${MAX_FILTER_NODES} nodes`, 'too_long');
      }
      return undefined;
    }
    if (depth > MAX_FILTER_DEPTH) {
      return this.fail(loc, `filter nests deeper than ${MAX_FILTER_DEPTH} levels`, 'too_deep');
    }
    if (!isPlainObject(value)) {
      return this.fail(loc, 'must be a condition {field, op, value} or a group {and: [...]} / {or: [...]}', 'model_type');
    }
    const keys = Object.keys(value);
    const groupKey = keys.find((key) => key === 'and' || key === 'or');
    if (groupKey) return this.group(value, groupKey as 'and' | 'or', loc, depth);
    return this.condition(value, loc);
  }

  private group(value: Record<string, unknown>, kind: 'and' | 'or', loc: Loc, depth: number): FilterNode | undefined {
    const extra = Object.keys(value).filter((key) => key !== kind);
    if (extra.length > 0) {
      return this.fail([...loc, extra[0] as string], `a group holds only "${kind}"; unexpected "${extra[0]}"`, 'extra_forbidden');
    }
    const items = value[kind];
    if (!Array.isArray(items)) return this.fail([...loc, kind], 'must be an array of filter nodes', 'list_type');
    const children: FilterNode[] = [];
    items.forEach((item, index) => {
      const child = this.node(item, [...loc, kind, index], depth + 1);
      if (child) children.push(child);
    });
    return { kind, children };
  }

  private condition(value: Record<string, unknown>, loc: Loc): FilterNode | undefined {
    const before = this.issues.length;
    for (const key of Object.keys(value)) {
      if (!CONDITION_KEYS.includes(key)) this.fail([...loc, key], `unexpected property "${key}"`, 'extra_forbidden');
    }
    for (const key of CONDITION_KEYS) {
      if (!(key in value)) this.fail([...loc, key], 'Field required', 'missing');
      else if (typeof value[key] !== 'string') this.fail([...loc, key], 'must be a string', 'string_type');
    }
    if (this.issues.length > before) return undefined;
    const field = value.field as string;
    const op = value.op as string;
    const text = value.value as string;
    const lookup = resolveField(field);
    if (!lookup.ok) {
      const msg =
        lookup.reason === 'bad_path'
          ? `attribute path "${field}" may use only letters, digits, dots and underscores`
          : `unknown field "${field}"; use one of ${[...TEXT_FIELDS, ...NUMBER_FIELDS].join(', ')}, span_attributes.<path> or resource_attributes.<path>`;
      return this.fail([...loc, 'field'], msg, lookup.reason === 'bad_path' ? 'string_pattern_mismatch' : 'enum');
    }
    if (!(OPERATORS as readonly string[]).includes(op)) {
      return this.fail([...loc, 'op'], `unknown operator "${op}"; use one of ${OPERATORS.join(', ')}`, 'enum');
    }
    const operator = op as Operator;
    const numericOp = (NUMERIC_OPERATORS as readonly string[]).includes(operator);
    const stringOp = (STRING_OPERATORS as readonly string[]).includes(operator);
    const resolved = lookup.field;
    if (resolved.kind === 'text' && numericOp) {
      return this.fail([...loc, 'op'], `operator "${op}" compares numbers; "${field}" holds text`, 'value_error');
    }
    if (resolved.kind === 'number' && stringOp) {
      return this.fail([...loc, 'op'], `operator "${op}" compares text; "${field}" holds numbers`, 'value_error');
    }
    const needsNumber = numericOp || resolved.kind === 'number';
    if (!needsNumber) return { kind: 'condition', field, op: operator, value: text, resolved };
    if (!isFiniteNumberText(text)) {
      return this.fail([...loc, 'value'], `"${op}" on "${field}" needs a finite number, got "${text}"`, 'float_parsing');
    }
    return { kind: 'condition', field, op: operator, value: text, resolved, number: Number(text) };
  }
}

/** Validates the `filter` of an engine request body; null or absent means "match everything". */
export function validateFilter(filter: unknown): FilterValidation {
  if (filter === null || filter === undefined) return { ok: true, filter: null };
  const validator = new FilterValidator();
  const node = validator.node(filter, ['body', 'filter'], 1);
  if (validator.issues.length > 0 || !node) return { ok: false, issues: validator.issues };
  return { ok: true, filter: node };
}
