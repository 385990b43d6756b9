// The validated filter tree of engine requests as a discriminated union, the operator
// vocabulary (openapi/engine.yaml, FilterOperator) and the documented limits of a filter.
// What a filter means is written in docs/filter-semantics.md.
import type { components } from '../generated/engine.js';
import type { ResolvedField } from './fields.js';

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
] as const satisfies readonly DocumentOperator[];
export type Operator = (typeof OPERATORS)[number];

// Every operator of the document is listed: this fails to compile when one is left out above.
type MissingOperator = Exclude<DocumentOperator, Operator>;
const everyOperatorListed: [MissingOperator] extends [never] ? true : MissingOperator = true;
void everyOperatorListed;

export const STRING_OPERATORS = ['contains', 'starts_with', 'ends_with'] as const satisfies readonly Operator[];
export const NUMERIC_OPERATORS = ['gt', 'lt', 'gte', 'lte'] as const satisfies readonly Operator[];
/** The operators whose value is a list of strings, each compared as `eq` compares it. */
export const LIST_OPERATORS = ['in', 'not_in'] as const satisfies readonly Operator[];
/** The operators that take no value. */
export const PRESENCE_OPERATORS = ['exists', 'not_exists'] as const satisfies readonly Operator[];
export type ListOperator = (typeof LIST_OPERATORS)[number];
export type PresenceOperator = (typeof PRESENCE_OPERATORS)[number];
export type ValueOperator = Exclude<Operator, ListOperator | PresenceOperator>;

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
  value: string;
  /** `value` as a number, for every numeric comparison: any operator on a number field, gt/lt/gte/lte on an attribute. */
  number?: number;
}

/** `in` / `not_in`: equality with any / none of the values. */
export interface ListCondition extends ConditionBase {
  op: ListOperator;
  values: string[];
  /** The values as numbers, on a number field. */
  numbers?: number[];
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
