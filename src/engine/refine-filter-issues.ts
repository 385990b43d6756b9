// Ajv reports one bad node deep in the recursive filter schema as a dozen errors, one per
// oneOf branch it tried. The filter validator names the real problem once, at its real place.
import type { ValidationIssue } from '../errors.js';
import { validateFilter } from '../filter/validate.js';
import type { RejectedRequest } from '../operations/handler.js';

function isFilterIssue(issue: ValidationIssue): boolean {
  return issue.loc[0] === 'body' && issue.loc[1] === 'filter';
}

export function refineFilterIssues(issues: ValidationIssue[], request: RejectedRequest): ValidationIssue[] {
  if (!issues.some(isFilterIssue)) return issues;
  const { body } = request;
  // Trace fields are allowed here: where they are not, the handler says so (engine-request.ts).
  const result = validateFilter(typeof body === 'object' && body !== null && 'filter' in body ? body.filter : undefined, {
    traceFields: true,
  });
  if (result.ok) return issues; // the validator saw nothing: keep Ajv's account rather than none
  return [...issues.filter((issue) => !isFilterIssue(issue)), ...result.issues];
}
