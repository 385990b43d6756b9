// Management 422 refinements: Ajv reports `region` or `pricing_plan` in a PATCH of an application
// as an unknown property; the caller should learn that the field exists but is immutable.
import type { ValidationIssue } from '../errors.js';
import type { RejectedRequest } from '../operations/handler.js';

const IMMUTABLE_APPLICATION_FIELDS = new Set(['region', 'pricing_plan']);

function isImmutableApplicationField(issue: ValidationIssue): boolean {
  return (
    issue.type === 'extra_forbidden' &&
    issue.loc.length === 2 &&
    issue.loc[0] === 'body' &&
    IMMUTABLE_APPLICATION_FIELDS.has(String(issue.loc[1]))
  );
}

export function refineManagementIssues(issues: ValidationIssue[], request: RejectedRequest): ValidationIssue[] {
  if (request.operationId !== 'updateApplication') return issues;
  return issues.map((issue) =>
    isImmutableApplicationField(issue)
      ? { loc: issue.loc, msg: `${String(issue.loc[1])} cannot be changed after creation`, type: 'frozen_field' }
      : issue,
  );
}
