// What differs between the databases when a filter becomes SQL: JSON access, the text form and
// the numeric reading of an attribute value, literal string matching (LIKE/GLOB escaping,
// collation, trailing-space padding) and exact 64-bit integer parameters. One small module per
// dialect implements it; the compiler (compile.ts) is shared.
import type { Knex } from 'knex';

/** SQL text with `?` placeholders and the values bound to them, in order. */
export interface SqlFragment {
  sql: string;
  bindings: Knex.Value[];
}

export type TextMatch = 'contains' | 'starts_with' | 'ends_with';

export interface FilterDialect {
  readonly name: 'sqlite' | 'mysql';
  /**
   * The text form of an attribute (`GET`, `200`, `true`, arrays and objects as compact JSON),
   * NULL when the attribute is missing or JSON null. `column` is a trusted, qualified name.
   */
  attributeText(column: string, key: string): SqlFragment;
  /** The numeric reading of an attribute as a double, NULL when it has none. */
  attributeNumber(column: string, key: string): SqlFragment;
  /**
   * A cheaper test for "the attribute's text form equals value" where the dialect has one for
   * this value; undefined means: compare attributeText.
   */
  attributeEquals?(column: string, key: string, value: string): SqlFragment | undefined;
  /**
   * Exact, case-sensitive equality of a text expression with a value (`negate`: inequality);
   * NULL (so: no match) when the expression is NULL. `plainColumn` says the expression is a
   * bare column, so that an index on it can serve the comparison.
   */
  textEquals(expression: SqlFragment, value: string, negate: boolean, plainColumn: boolean): SqlFragment;
  /** Case-sensitive literal substring, prefix or suffix test (no wildcards, no escapes). */
  textMatches(expression: SqlFragment, match: TextMatch, value: string): SqlFragment;
  /** A placeholder that reads a decimal string as an exact 64-bit integer. */
  readonly exactInteger: string;
  /** An expression as a double (averages of integers must not become decimals). */
  asDouble(expression: string): string;
  /** Integer division of two non-negative integer expressions. */
  integerDivision(dividend: string, divisor: string): string;
  /** `table AS alias`, read through the named index (a trusted name). */
  tableThroughIndex(table: string, alias: string, index: string): string;
}

/** The JSON path of one flat dotted attribute key: `$."http.method"` (keys never hold quotes). */
export function attributePath(key: string): string {
  return `$."${key}"`;
}

export function fragment(sql: string, ...bindings: Knex.Value[]): SqlFragment {
  return { sql, bindings };
}
