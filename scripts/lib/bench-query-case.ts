// What a case of the query bench (scripts/bench-query.ts) is: the endpoint call, the hand-written
// SQL for the same answer, the targets, and how each side's answer is read into one
// comparable form (scripts/lib/same-answer.ts) so that the bench checks they agree.
import type { AnswerValue } from './same-answer.js';

export type SqlStatement = [sql: string, bindings: unknown[]];

/** mysql2's rows of one statement, by column name. */
export type SqlRow = Record<string, unknown>;

export interface BenchCase {
  name: string;
  runs: number;
  /** The target for the endpoint's p95, in ms. */
  targetP95Ms?: number;
  /** Whether the endpoint is held to within RATIO_TARGET of the SQL (not the fixed-cost row, whose SQL finds nothing). */
  ratioTarget: boolean;
  http: { path: string; query: Record<string, string | boolean>; body: unknown };
  /** The same answer by hand: every statement, run one after another. */
  sql: SqlStatement[];
  answers: {
    /** The endpoint's answer from its response body's text. */
    endpoint: (text: string) => AnswerValue;
    /** The SQL's answer from the rows of each statement. */
    sql: (rows: SqlRow[][]) => AnswerValue;
    /** What the matches column shows of the (agreed) answer. */
    matches: (answer: AnswerValue) => string;
  };
}

/** The bound on endpoint / hand-written SQL. */
export const RATIO_TARGET = 1.2;

/** A number mysql2 hands back as a string (BIGINT, DECIMAL) or a number. */
export function sqlNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return Number(value);
}

/** The first column of a statement's first row (a COUNT). */
export function firstValue(rows: SqlRow[] | undefined): unknown {
  const row = rows?.[0];
  return row === undefined ? undefined : Object.values(row)[0];
}
