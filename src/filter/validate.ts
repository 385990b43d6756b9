// Step 1 of the filter compiler: checks an untrusted filter value and turns it into the
// validated tree (ast.ts), each condition carrying its resolved field and, for a numeric
// comparison, its parsed number, so that the compiler looks nothing up again. Every problem is
// reported once, at the node where it is, as a 422 `detail` entry.
import type { ValidationIssue } from '../errors.js';
import {
  JSON_NUMBER,
  LIST_OPERATORS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  MAX_JSON_INTEGER,
  MAX_LIST_VALUES,
  NUMERIC_OPERATORS,
  OPERATORS,
  PRESENCE_OPERATORS,
  STRING_OPERATORS,
  type FilterNode,
  type ListOperator,
  type Operator,
  type PresenceOperator,
  type ValueOperator,
} from './ast.js';
import { checkRegex } from './regex.js';
import { NUMBER_FIELDS, resolveField, TEXT_FIELDS, TRACE_FIELDS, type ResolvedField } from './fields.js';

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

/** A number field or a trace-level field: every comparison is numeric. */
function holdsNumbers(resolved: ResolvedField): boolean {
  return resolved.kind === 'number' || resolved.kind === 'trace';
}

export interface FilterOptions {
  /**
   * Whether the trace-level fields (`trace.duration_ms`, ...) may be used: only where traces are
   * read (POST /traces, POST /engine/metrics).
   */
  traceFields: boolean;
}

class FilterValidator {
  readonly issues: ValidationIssue[] = [];

  constructor(private readonly options: FilterOptions) {}
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
      return this.fail(loc, 'must be a condition {field, op, value}, a group {and: [...]} / {or: [...]} or {not: <node>}', 'model_type');
    }
    const keys = Object.keys(value);
    const groupKey = keys.find((key) => key === 'and' || key === 'or');
    if (groupKey) return this.group(value, groupKey as 'and' | 'or', loc, depth);
    if (keys.includes('not')) return this.not(value, loc, depth);
    return this.condition(value, loc);
  }

  private not(value: Record<string, unknown>, loc: Loc, depth: number): FilterNode | undefined {
    const extra = Object.keys(value).filter((key) => key !== 'not');
    if (extra.length > 0) {
      return this.fail([...loc, extra[0] as string], `a not node holds only "not"; unexpected "${extra[0]}"`, 'extra_forbidden');
    }
    const child = this.node(value.not, [...loc, 'not'], depth + 1);
    return child ? { kind: 'not', child } : undefined;
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
    // A string value is checked with field and op, as before `in` and `exists` (engine API 1.1),
    // unless the operator is one that takes a list or no value.
    const takesString =
      !(LIST_OPERATORS as readonly unknown[]).includes(value.op) && !(PRESENCE_OPERATORS as readonly unknown[]).includes(value.op);
    for (const key of takesString ? CONDITION_KEYS : ['field', 'op']) {
      if (!(key in value)) this.fail([...loc, key], 'Field required', 'missing');
      // Since engine API 1.2 a value may also be a JSON number.
      else if (typeof value[key] !== 'string' && !(key === 'value' && typeof value[key] === 'number')) {
        this.fail([...loc, key], key === 'value' ? 'must be a string or a number' : 'must be a string', 'string_type');
      }
    }
    if (this.issues.length > before) return undefined;
    const field = value.field as string;
    const op = value.op as string;
    const lookup = resolveField(field);
    if (!lookup.ok) {
      const msg =
        lookup.reason === 'bad_path'
          ? `attribute path "${field}" may use only letters, digits, dots and underscores`
          : `unknown field "${field}"; use one of ${[...TEXT_FIELDS, ...NUMBER_FIELDS].join(', ')}, span_attributes.<path> or resource_attributes.<path>${this.options.traceFields ? `, or ${TRACE_FIELDS.join(', ')}` : ''}`;
      return this.fail([...loc, 'field'], msg, lookup.reason === 'bad_path' ? 'string_pattern_mismatch' : 'enum');
    }
    if (!(OPERATORS as readonly string[]).includes(op)) {
      return this.fail([...loc, 'op'], `unknown operator "${op}"; use one of ${OPERATORS.join(', ')}`, 'enum');
    }
    const operator = op as Operator;
    const resolved = lookup.field;
    if (resolved.kind === 'trace' && !this.options.traceFields) {
      return this.fail(
        [...loc, 'field'],
        `"${field}" reads the summary of a trace: it is usable in POST /traces, POST /engine/metrics and trace-grain POST /engine/analytics, not in a read of spans`,
        'value_error',
      );
    }
    if ((PRESENCE_OPERATORS as readonly string[]).includes(operator)) {
      if ('value' in value) return this.fail([...loc, 'value'], `operator "${op}" takes no value`, 'extra_forbidden');
      return { kind: 'condition', field, op: operator as PresenceOperator, resolved };
    }
    if ((LIST_OPERATORS as readonly string[]).includes(operator)) {
      if (!('value' in value)) return this.fail([...loc, 'value'], 'Field required', 'missing');
      return this.list(field, operator as ListOperator, resolved, value.value, loc);
    }
    return this.single(field, operator as ValueOperator, resolved, value.value as string | number, loc);
  }

  /**
   * A JSON number: finite, an integer only within ±MAX_JSON_INTEGER (a larger one may have been
   * rounded by the body parser), and only where a number can be compared.
   */
  private jsonNumber(field: string, op: Operator, resolved: ResolvedField, number: number, at: Loc): number | undefined {
    if (resolved.kind === 'text') {
      return this.fail(at, `"${field}" holds text: send the value as a string, not the JSON number ${number}`, 'value_error');
    }
    if ((STRING_OPERATORS as readonly string[]).includes(op)) {
      return this.fail(at, `operator "${op}" compares text: send the value as a string, not the JSON number ${number}`, 'value_error');
    }
    if (!Number.isFinite(number)) return this.fail(at, `"${op}" on "${field}" needs a finite number, got ${number}`, 'float_parsing');
    if (Number.isInteger(number) && Math.abs(number) > MAX_JSON_INTEGER) {
      return this.fail(
        at,
        `a JSON number beyond ±${MAX_JSON_INTEGER} may have lost digits when the body was read; send it as a string (it compares as the nearest double)`,
        'value_error',
      );
    }
    return number;
  }

  /** `in` / `not_in`: a non-empty list of strings (each a number on a number field) and JSON numbers. */
  private list(field: string, op: ListOperator, resolved: ResolvedField, list: unknown, loc: Loc): FilterNode | undefined {
    const at = [...loc, 'value'];
    if (!Array.isArray(list)) return this.fail(at, `operator "${op}" needs an array of strings`, 'list_type');
    if (list.length === 0) return this.fail(at, `operator "${op}" needs at least one value`, 'too_short');
    if (list.length > MAX_LIST_VALUES) return this.fail(at, `operator "${op}" takes at most ${MAX_LIST_VALUES} values`, 'too_long');
    const before = this.issues.length;
    const values: string[] = [];
    const numbers: number[] = [];
    list.forEach((item: unknown, index) => {
      if (typeof item === 'number') {
        const number = this.jsonNumber(field, op, resolved, item, [...at, index]);
        if (number !== undefined) numbers.push(number);
      } else if (typeof item !== 'string') this.fail([...at, index], 'must be a string or a number', 'string_type');
      else if (!holdsNumbers(resolved)) values.push(item);
      else if (isFiniteNumberText(item)) numbers.push(Number(item));
      else this.fail([...at, index], `"${op}" on "${field}" needs finite numbers, got "${item}"`, 'float_parsing');
    });
    if (this.issues.length > before) return undefined;
    return { kind: 'condition', field, op, resolved, values, numbers };
  }

  private single(field: string, op: ValueOperator, resolved: ResolvedField, raw: string | number, loc: Loc): FilterNode | undefined {
    if (typeof raw === 'number') {
      const number = this.jsonNumber(field, op, resolved, raw, [...loc, 'value']);
      if (number === undefined) return undefined;
      return { kind: 'condition', field, op, value: String(number), resolved, number, numberGiven: true };
    }
    const text = raw;
    const numericOp = (NUMERIC_OPERATORS as readonly string[]).includes(op);
    const stringOp = (STRING_OPERATORS as readonly string[]).includes(op);
    if (resolved.kind === 'text' && numericOp) {
      return this.fail([...loc, 'op'], `operator "${op}" compares numbers; "${field}" holds text`, 'value_error');
    }
    if (holdsNumbers(resolved) && stringOp) {
      return this.fail([...loc, 'op'], `operator "${op}" compares text; "${field}" holds numbers`, 'value_error');
    }
    if (op === 'regex') {
      const check = checkRegex(text);
      if (!check.ok) return this.fail([...loc, 'value'], check.msg, check.type);
      return { kind: 'condition', field, op, value: text, resolved, regex: check.tree };
    }
    const needsNumber = numericOp || holdsNumbers(resolved);
    if (!needsNumber) return { kind: 'condition', field, op, value: text, resolved };
    if (!isFiniteNumberText(text)) {
      return this.fail([...loc, 'value'], `"${op}" on "${field}" needs a finite number, got "${text}"`, 'float_parsing');
    }
    return { kind: 'condition', field, op, value: text, resolved, number: Number(text) };
  }
}

/** Validates the `filter` of an engine request body; null or absent means "match everything". */
export function validateFilter(filter: unknown, options: FilterOptions = { traceFields: false }): FilterValidation {
  if (filter === null || filter === undefined) return { ok: true, filter: null };
  const validator = new FilterValidator(options);
  const node = validator.node(filter, ['body', 'filter'], 1);
  if (validator.issues.length > 0 || !node) return { ok: false, issues: validator.issues };
  return { ok: true, filter: node };
}
