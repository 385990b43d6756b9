// Step 3 of the filter compiler: the validated AST (step 1) becomes a Knex where-callback.
// Fields resolve through the field table (targets.ts) to trusted column names; every value a
// caller sent is bound as a parameter, never written into the SQL text. Dialect differences
// come from one small module per database (dialects/).
//
// Semantics (decisions.md, "Spans: querying"): `and: []` is true and `or: []` false; a condition
// on an absent value (NULL column, missing or JSON-null attribute) is NULL, which the filter
// language can never negate (it has no `not`), so it matches nothing, `neq` included.
import type { Knex } from 'knex';
import type { Condition, FilterNode, Operator } from './ast.js';
import { fragment, type FilterDialect, type SqlFragment, type TextMatch } from './dialects/dialect.js';
import { storedSpanKind, targetOf, type FilterColumn } from './targets.js';

export interface CompileOptions {
  dialect: FilterDialect;
  /** The qualified SQL name of a `spans` column in the query at hand, e.g. `s.span_name`. */
  column(name: FilterColumn): string;
}

const COMPARISON: Record<'eq' | 'neq' | 'gt' | 'lt' | 'gte' | 'lte', string> = { eq: '=', neq: '<>', gt: '>', lt: '<', gte: '>=', lte: '<=' };

function isTextMatch(op: Operator): op is TextMatch {
  return op === 'contains' || op === 'starts_with' || op === 'ends_with';
}

function compare(expression: SqlFragment, op: keyof typeof COMPARISON, value: number): SqlFragment {
  return fragment(`${expression.sql} ${COMPARISON[op]} ?`, ...expression.bindings, value);
}

/** One condition as SQL; the value is bound. */
export function conditionSql(condition: Condition, { dialect, column }: CompileOptions): SqlFragment {
  const { op, value } = condition;
  const target = targetOf(condition.field);

  if (target.kind === 'number') {
    // Validation guarantees a finite number for every operator allowed here.
    if (isTextMatch(op)) throw new Error(`operator ${op} on numeric field ${condition.field}`);
    return compare(fragment(column(target.column)), op, Number(value));
  }

  if (target.kind === 'text') {
    const expression = fragment(column(target.column));
    if (isTextMatch(op)) return dialect.textMatches(expression, op, value);
    if (op !== 'eq' && op !== 'neq') throw new Error(`operator ${op} on text field ${condition.field}`);
    const compared = target.column === 'span_kind' ? storedSpanKind(value) : value;
    return dialect.textEquals(expression, compared, op === 'neq', true);
  }

  const source = column(target.source);
  if (op === 'eq') return dialect.attributeEquals?.(source, target.key, value) ?? dialect.textEquals(dialect.attributeText(source, target.key), value, false, false);
  if (op === 'neq') return dialect.textEquals(dialect.attributeText(source, target.key), value, true, false);
  if (isTextMatch(op)) return dialect.textMatches(dialect.attributeText(source, target.key), op, value);
  return compare(dialect.attributeNumber(source, target.key), op, Number(value));
}

function applyNode(builder: Knex.QueryBuilder, node: FilterNode, options: CompileOptions): void {
  if (node.kind === 'condition') {
    const { sql, bindings } = conditionSql(node, options);
    builder.whereRaw(sql, bindings);
    return;
  }
  if (node.children.length === 0) {
    builder.whereRaw(node.kind === 'and' ? '1 = 1' : '1 = 0');
    return;
  }
  for (const child of node.children) {
    const nested = (inner: Knex.QueryBuilder) => applyNode(inner, child, options);
    if (node.kind === 'and') {
      if (child.kind === 'condition') applyNode(builder, child, options);
      else builder.where(nested);
    } else if (child.kind === 'condition') {
      const { sql, bindings } = conditionSql(child, options);
      builder.orWhereRaw(sql, bindings);
    } else {
      builder.orWhere(nested);
    }
  }
}

/**
 * The filter as a where-callback (`query.where(compileFilter(filter, options))`); undefined for
 * no filter (match everything), so the caller can leave the clause out.
 */
export function compileFilter(filter: FilterNode | null, options: CompileOptions): ((builder: Knex.QueryBuilder) => void) | undefined {
  if (filter === null) return undefined;
  return (builder: Knex.QueryBuilder) => applyNode(builder, filter, options);
}
