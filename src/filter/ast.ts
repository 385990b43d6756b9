// The validated filter tree of engine requests as a discriminated union, the operator
// vocabulary (openapi/engine.yaml, FilterOperator) and the documented limits of a filter.
// What a filter means is written in docs/filter-semantics.md.
import type { components } from '../generated/engine.js';
import type { ResolvedField } from './fields.js';
import type { RegexTree } from './regex-syntax.js';

type DocumentOperator = components['schemas']['FilterOperator'];

/** The operators, in the order of the document's enum (test/filter/ast.test.ts). */
export const OPERATORS = [
  'eq',
  'neq',
  'contains',
  'starts_with',
  'ends_with',
  'gt',
  'lt',
  'gte',
  'lte',
  'in',
  'not_in',
  'exists',
  'not_exists',
  'regex',
] as const satisfies readonly DocumentOperator[];
export type Operator = (typeof OPERATORS)[number];

// Every operator of the document is listed: this fails to compile when one is left out above.
type MissingOperator = Exclude<DocumentOperator, Operator>;
const everyOperatorListed: [MissingOperator] extends [never] ? true : MissingOperator = true;
void everyOperatorListed;

/** The operators that read text only: a literal substring, prefix or suffix, or an RE2 pattern (`regex`). */
export const STRING_OPERATORS = ['contains', 'starts_with', 'ends_with', 'regex'] as const satisfies readonly Operator[];
export const NUMERIC_OPERATORS = ['gt', 'lt', 'gte', 'lte'] as const satisfies readonly Operator[];
/** The operators whose value is a list of strings, each compared as `eq` compares it. */
export const LIST_OPERATORS = ['in', 'not_in'] as const satisfies readonly Operator[];
/** The operators that take no value. */
export const PRESENCE_OPERATORS = ['exists', 'not_exists'] as const satisfies readonly Operator[];
export type ListOperator = (typeof LIST_OPERATORS)[number];
export type PresenceOperator = (typeof PRESENCE_OPERATORS)[number];
export type ValueOperator = Exclude<Operator, ListOperator | PresenceOperator>;

/**
 * The largest integer a JSON number may be: the body parser reads JSON numbers as doubles, which
 * hold every integer up to 2^53 − 1 exactly and round larger ones silently, so a larger integer
 * must come as a string (openapi/engine.yaml, FilterCondition.value).
 */
export const MAX_JSON_INTEGER = Number.MAX_SAFE_INTEGER;

/** The most values an `in` / `not_in` list holds (openapi/engine.yaml, FilterCondition.value). */
export const MAX_LIST_VALUES = 1000;

interface ConditionBase {
  kind: 'condition';
  field: string;
  /** What `field` reads (fields.ts). */
  resolved: ResolvedField;
}

/** One comparison with one value, as the caller sent it, with what validation made of it. */
export interface ValueCondition extends ConditionBase {
  op: ValueOperator;
  /** The value as sent; a JSON number as its JavaScript text (`250`). */
  value: string;
  /** `value` as a number, for every numeric comparison: any operator on a number field, gt/lt/gte/lte on an attribute, a JSON number. */
  number?: number;
  /** The caller sent a JSON number: `eq` / `neq` on an attribute compare its numeric reading. */
  numberGiven?: true;
  /** `regex`: the accepted pattern's tree (./regex-syntax.ts); `value` is the pattern as sent. */
  regex?: RegexTree;
}

/**
 * `in` / `not_in`: any `eq` / every `neq` of the elements. On a number field every element is a
 * number; on an attribute, strings compare with its text form and JSON numbers with its numeric
 * reading; on a text field every element is a string.
 */
export interface ListCondition extends ConditionBase {
  op: ListOperator;
  /** The elements compared as text. */
  values: string[];
  /** The elements compared as numbers. */
  numbers: number[];
}

/** `exists` / `not_exists`: whether the field holds a value. */
export interface PresenceCondition extends ConditionBase {
  op: PresenceOperator;
}

export type Condition = ValueCondition | ListCondition | PresenceCondition;

export interface Group {
  kind: 'and' | 'or';
  children: FilterNode[];
}

/** Matches exactly where `child` does not match (absent values included). */
export interface Not {
  kind: 'not';
  child: FilterNode;
}

export type FilterNode = Condition | Group | Not;

/** Documented limits (openapi/engine.yaml, FilterNode): beyond them the answer is 422. */
export const MAX_FILTER_DEPTH = 100;
export const MAX_FILTER_NODES = 2000;

/**
 * The JSON-number grammar (RFC 8259): what a numeric filter value must be, and what a string
 * attribute must be to have a numeric reading. `200`, `-1.5`, `2e3` are numbers; ` 200`, `+5`,
 * `.5`, `05`, `0x1F`, `1_000` are not.
 */
export const JSON_NUMBER = /^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][-+]?[0-9]+)?$/;
