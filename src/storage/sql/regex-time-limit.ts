// The time limit on a statement whose filter holds a `regex` condition (REGEX_STATEMENT_TIMEOUT_MS,
// src/config.ts): what a connection is told, and the one failure both databases report when a
// statement runs past it (sqlite-regexp.ts, mysql-regex-limit.ts), for the HTTP edge to answer.

export interface StatementLimits {
  /** How long one statement may spend on regex conditions, in milliseconds. */
  regexStatementTimeoutMs: number;
}

export const DEFAULT_STATEMENT_LIMITS: StatementLimits = { regexStatementTimeoutMs: 10_000 };

/** A statement with a regex condition ran past the limit and was stopped. */
export class RegexTimeLimitExceeded extends Error {
  constructor(
    readonly limitMs: number,
    options?: { cause: unknown },
  ) {
    super(`the statement ran past the regex statement time limit of ${limitMs} ms`, options);
  }
}
