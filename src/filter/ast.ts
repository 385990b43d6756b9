// The filter tree of engine requests as a discriminated union, and the operator vocabulary.

export const OPERATORS = ['eq', 'neq', 'contains', 'starts_with', 'ends_with', 'gt', 'lt', 'gte', 'lte'] as const;
export type Operator = (typeof OPERATORS)[number];

export const STRING_OPERATORS = ['contains', 'starts_with', 'ends_with'] as const satisfies readonly Operator[];
export const NUMERIC_OPERATORS = ['gt', 'lt', 'gte', 'lte'] as const satisfies readonly Operator[];

export interface Condition {
  kind: 'condition';
  field: string;
  op: Operator;
  value: string;
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
