// The validated filter tree of engine requests as a discriminated union, the operator
// vocabulary (openapi/engine.yaml, FilterOperator) and the documented limits of a filter.
// What a filter means is written in docs/filter-semantics.md.
import type { components } from '../generated/engine.js';
import type { ResolvedField } from './fields.js';

type DocumentOperator = components['schemas']['FilterOperator'];

/** The operators, in the order of the document's enum (test/filter/ast.test.ts). */
export const OPERATORS = ['eq', 'neq', 'contains', 'starts_with', 'ends_with', 'gt', 'lt', 'gte', 'lte'] as const satisfies readonly DocumentOperator[];
export type Operator = (typeof OPERATORS)[number];

// Every operator of the document is listed: this fails to compile when one is left out above.
type MissingOperator = Exclude<DocumentOperator, Operator>;
const everyOperatorListed: [MissingOperator] extends [never] ? true : MissingOperator = true;
void everyOperatorListed;

export const STRING_OPERATORS = ['contains', 'starts_with', 'ends_with'] as const satisfies readonly Operator[];
export const NUMERIC_OPERATORS = ['gt', 'lt', 'gte', 'lte'] as const satisfies readonly Operator[];

/** One comparison as the caller sent it, with what validation made of it. */
export interface Condition {
  kind: 'condition';
  field: string;
  op: Operator;
  value: string;
  /** What `field` reads (fields.ts). */
  resolved: ResolvedField;
  /** `value` as a number, for every numeric comparison: any operator on a number field, gt/lt/gte/lte on an attribute. */
  number?: number;
}

export interface Group {
  kind: 'and' | 'or';
  children: FilterNode[];
}

export type FilterNode = Condition | Group;

/** Documented limits (openapi/engine.yaml, FilterNode): beyond them the answer is 422. */
export const MAX_FILTER_DEPTH = 100;
export const MAX_FILTER_NODES = 2000;

/**
 * The JSON-number grammar (RFC 8259): what a numeric filter value must be, and what a string
 * attribute must be to have a numeric reading. `200`, `-1.5`, `2e3` are numbers; ` 200`, `+5`,
 * `.5`, `05`, `0x1F`, `1_000` are not.
 */
export const JSON_NUMBER = /^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][-+]?[0-9]+)?$/;
