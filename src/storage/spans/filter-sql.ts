// Step 3 of the filter compiler: the validated tree (step 1, src/filter/validate.ts) becomes
// one SQL fragment, applied by a Knex where-callback; its groups are balanced trees
// (joinBalanced). Each condition's resolved field maps through the field table
// (filter-targets.ts) to a trusted column name or an attribute read; every value a caller sent
// is bound as a parameter, never written into the SQL text, and numbers are the ones validation
// parsed. Dialect differences come from one small module per database (src/storage/sql/).
//
// Semantics (docs/filter-semantics.md): `and: []` is true and `or: []` false; a condition on an
// absent value (NULL column, missing or JSON-null attribute) is NULL, so it matches nothing,
// `neq` and `not_in` included. AND/OR keep NULL as "no match" (a NULL operand can make neither
// TRUE), and a `not` node is the dialect's notMatching, TRUE for FALSE and NULL alike, so every
// node answers "matches" two-valued where it counts.
//
// Indexed attribute slots (indexed-slots.ts): `eq` / `in` on the key of a ready slot, with
// values only a string can have as its text form and a slot keeps, compare the slot column
// instead of the attribute's text form: the same answer (the slot holds exactly the strings
// such a value can equal, NULL otherwise), without parsing the JSON (span_slot_values lists the
// spans holding each value: slots/span-slot-values.ts).
import type { Knex } from 'knex';
import type { Condition, FilterNode, ListCondition, Operator, PresenceCondition, ValueCondition } from '../../filter/ast.js';
import { fragment, placeholders, type SqlDialect, type SqlFragment, type TextMatch } from '../sql/dialect.js';
import { storedEnumValue, targetOfResolved, type FilterColumn, type TraceSummaryColumn } from './filter-targets.js';
import { answerableBySlot, slotColumn, slotFor, type IndexedSlot } from './indexed-slots.js';

export interface CompileOptions {
  dialect: SqlDialect;
  /** The qualified SQL name of a `spans` column in the query at hand, e.g. `s.span_name`. */
  column(name: FilterColumn): string;
  /**
   * The qualified SQL name of a column of the span's trace summary (`traces`), e.g.
   * `t.duration_ms`; absent where spans are read, which validation keeps trace fields out of.
   */
  traceColumn?(name: TraceSummaryColumn): string;
  /** The application's ready indexed attribute slots (none: every attribute is read from its JSON). */
  indexedSlots: readonly IndexedSlot[];
}

/**
 * The slot column that answers `eq`/`in` with these string values on this attribute, when a
 * ready slot keeps it and every value is one the slot can answer; undefined otherwise.
 */
function slotLookup(
  target: { source: 'span_attributes' | 'resource_attributes'; key: string },
  values: readonly string[],
  options: CompileOptions,
): SqlFragment | undefined {
  const slot = slotFor(options.indexedSlots, target.source, target.key);
  if (!slot || values.length === 0 || !values.every(answerableBySlot)) return undefined;
  return fragment(options.column(slotColumn(slot.slot)));
}

/** The SQL name of the column a column target reads. */
function columnSql(
  target: { kind: 'text' | 'number'; column: FilterColumn } | { kind: 'trace'; column: TraceSummaryColumn },
  options: CompileOptions,
): string {
  if (target.kind !== 'trace') return options.column(target.column);
  if (!options.traceColumn) throw new Error(`trace field ${target.column} outside a read of traces`);
  return options.traceColumn(target.column);
}

const COMPARISON: Record<'eq' | 'neq' | 'gt' | 'lt' | 'gte' | 'lte', string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  lt: '<',
  gte: '>=',
  lte: '<=',
};

function isTextMatch(op: Operator): op is TextMatch {
  return op === 'contains' || op === 'starts_with' || op === 'ends_with';
}

function compare(expression: SqlFragment, op: keyof typeof COMPARISON, value: number): SqlFragment {
  return fragment(`${expression.sql} ${COMPARISON[op]} ?`, ...expression.bindings, value);
}

/** The number validation parsed for a numeric comparison. */
function numberOf(condition: ValueCondition): number {
  if (condition.number === undefined) throw new Error(`no number for ${condition.op} on ${condition.field}`);
  return condition.number;
}

/** The expression a condition reads: a column, or an attribute's text form. */
function readExpression(condition: Condition, options: CompileOptions): { expression: SqlFragment; plainColumn: boolean } {
  const target = targetOfResolved(condition.resolved);
  if (target.kind === 'attribute')
    return { expression: options.dialect.attributeText(options.column(target.source), target.key), plainColumn: false };
  return { expression: fragment(columnSql(target, options)), plainColumn: true };
}

/** `exists` / `not_exists`: two-valued already (IS NULL is never NULL). */
function presenceSql(condition: PresenceCondition, options: CompileOptions): SqlFragment {
  const { expression } = readExpression(condition, options);
  return fragment(`${expression.sql} ${condition.op === 'exists' ? 'IS NOT NULL' : 'IS NULL'}`, ...expression.bindings);
}

function numberIn(expression: SqlFragment, numbers: number[], negate: boolean): SqlFragment {
  return fragment(`${expression.sql} ${negate ? 'NOT IN' : 'IN'} (${placeholders(numbers.length)})`, ...expression.bindings, ...numbers);
}

/**
 * `in` / `not_in`: any `eq` / every `neq` of the elements (NULL on an absent value). On an
 * attribute, the strings test its text form and the JSON numbers its numeric reading.
 */
function listSql(condition: ListCondition, options: CompileOptions): SqlFragment {
  const negate = condition.op === 'not_in';
  const target = targetOfResolved(condition.resolved);
  const { expression, plainColumn } = readExpression(condition, options);
  if (target.kind === 'number' || target.kind === 'trace') return numberIn(expression, condition.numbers, negate);
  const values = target.kind === 'text' ? condition.values.map((value) => storedEnumValue(target.column, value)) : condition.values;
  if (target.kind === 'attribute' && !negate && condition.numbers.length === 0) {
    const slot = slotLookup(target, values, options);
    if (slot) return options.dialect.textIn(slot, values, false, true);
  }
  const parts: SqlFragment[] = [];
  if (values.length > 0) parts.push(options.dialect.textIn(expression, values, negate, plainColumn));
  if (target.kind === 'attribute' && condition.numbers.length > 0) {
    parts.push(numberIn(options.dialect.attributeNumber(options.column(target.source), target.key), condition.numbers, negate));
  }
  if (parts.length === 1) return parts[0] as SqlFragment;
  return fragment(`(${parts.map((part) => part.sql).join(negate ? ' AND ' : ' OR ')})`, ...parts.flatMap((part) => part.bindings));
}

/** One condition as SQL; the values are bound. */
function conditionSql(condition: Condition, options: CompileOptions): SqlFragment {
  if (condition.op === 'exists' || condition.op === 'not_exists') return presenceSql(condition as PresenceCondition, options);
  if (condition.op === 'in' || condition.op === 'not_in') return listSql(condition as ListCondition, options);
  return valueSql(condition as ValueCondition, options);
}

/** `regex`: RE2's search of the pattern in a text column or an attribute's text form. */
function regexSql(condition: ValueCondition, options: CompileOptions): SqlFragment {
  const target = targetOfResolved(condition.resolved);
  if (!condition.regex || target.kind === 'number' || target.kind === 'trace')
    throw new Error(`regex on ${condition.field} without a checked text pattern`);
  const pattern = { source: condition.value, tree: condition.regex };
  if (target.kind === 'text') return options.dialect.regexMatches(fragment(options.column(target.column)), pattern);
  return options.dialect.regexMatches(options.dialect.attributeText(options.column(target.source), target.key), pattern);
}

function valueSql(condition: ValueCondition, options: CompileOptions): SqlFragment {
  const { dialect, column } = options;
  const { op, value } = condition;
  const target = targetOfResolved(condition.resolved);
  if (op === 'regex') return regexSql(condition, options);

  if (target.kind === 'number' || target.kind === 'trace') {
    if (isTextMatch(op)) throw new Error(`operator ${op} on numeric field ${condition.field}`);
    return compare(fragment(columnSql(target, options)), op, numberOf(condition));
  }

  if (target.kind === 'text') {
    const expression = fragment(column(target.column));
    if (isTextMatch(op)) return dialect.textMatches(expression, op, value);
    if (op !== 'eq' && op !== 'neq') throw new Error(`operator ${op} on text field ${condition.field}`);
    return dialect.textEquals(expression, storedEnumValue(target.column, value), op === 'neq', true);
  }

  const source = column(target.source);
  // A JSON number: `eq` / `neq` compare the attribute's numeric reading, like gt/lt do.
  if (condition.numberGiven && (op === 'eq' || op === 'neq'))
    return compare(dialect.attributeNumber(source, target.key), op, numberOf(condition));
  if (op === 'eq') {
    const slot = slotLookup(target, [value], options);
    if (slot) return dialect.textEquals(slot, value, false, true);
  }
  if (op === 'eq')
    return (
      dialect.attributeEquals?.(source, target.key, value) ??
      dialect.textEquals(dialect.attributeText(source, target.key), value, false, false)
    );
  if (op === 'neq') return dialect.textEquals(dialect.attributeText(source, target.key), value, true, false);
  if (isTextMatch(op)) return dialect.textMatches(dialect.attributeText(source, target.key), op, value);
  return compare(dialect.attributeNumber(source, target.key), op, numberOf(condition));
}

/** A compiled node: its SQL, and how many AND/OR levels deep its expression tree is. */
interface Compiled extends SqlFragment {
  height: number;
}

/** As an operand of AND/OR: a group's own expression in parentheses (they shape the parse tree). */
function operand(node: Compiled): string {
  return node.height > 0 ? `(${node.sql})` : node.sql;
}

/**
 * The children of a group joined by one operator as a binary tree that keeps their order and is
 * split where half of the weight 2^height lies on each side. A chain `a OR b OR c ...` parses as
 * deep as it is long, past SQLite's expression depth of 1000 at 999 siblings; this tree is about
 * log2(Σ 2^height) deep, so that a filter within the documented limits stays near 100 levels
 * whatever its shape (a deep child sits near the top, shallow siblings share the rest).
 */
function joinBalanced(children: Compiled[], operator: 'and' | 'or', weights: number[], from: number, to: number): Compiled {
  if (to - from === 1) return children[from] as Compiled;
  let total = 0;
  for (let index = from; index < to; index += 1) total += weights[index] as number;
  let split = from + 1;
  let left = weights[from] as number;
  while (split < to - 1 && left + (weights[split] as number) / 2 < total / 2) {
    left += weights[split] as number;
    split += 1;
  }
  const head = joinBalanced(children, operator, weights, from, split);
  const tail = joinBalanced(children, operator, weights, split, to);
  return {
    sql: `${operand(head)} ${operator} ${operand(tail)}`,
    bindings: [...head.bindings, ...tail.bindings],
    height: Math.max(head.height, tail.height) + 1,
  };
}

function compileNode(node: FilterNode, options: CompileOptions): Compiled {
  if (node.kind === 'condition') return { ...conditionSql(node, options), height: 0 };
  if (node.kind === 'not') {
    const child = compileNode(node.child, options);
    // One level more, so that it is parenthesised as an operand of AND/OR.
    return { ...options.dialect.notMatching(child), height: child.height + 1 };
  }
  if (node.children.length === 0) return { sql: node.kind === 'and' ? '1 = 1' : '1 = 0', bindings: [], height: 0 };
  const children = node.children.map((child) => compileNode(child, options));
  return joinBalanced(
    children,
    node.kind,
    children.map((child) => 2 ** child.height),
    0,
    children.length,
  );
}

/**
 * The filter as a where-callback (`query.where(compileFilter(filter, options))`); undefined for
 * no filter (match everything), so the caller can leave the clause out.
 */
export function compileFilter(filter: FilterNode | null, options: CompileOptions): ((builder: Knex.QueryBuilder) => void) | undefined {
  if (filter === null) return undefined;
  const { sql, bindings } = compileNode(filter, options);
  return (builder: Knex.QueryBuilder) => builder.whereRaw(sql, bindings);
}
