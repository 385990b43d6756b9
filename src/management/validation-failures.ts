// The token endpoint follows OAuth 2.0 (RFC 6749 section 5.2): a malformed request is
// 400 {"error":"invalid_request"}, not the API's usual 422.
import type { ValidationIssue } from '../http/errors.js';
import { OAuthError } from './oauth-error.js';

export const managementValidationFailures: Record<string, (issues: ValidationIssue[]) => Error> = {
  createAccessToken: (issues) => {
    const grantType = issues.find((issue) => issue.loc[1] === 'grant_type' && issue.type !== 'missing');
    if (grantType) return new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    return new OAuthError(400, 'invalid_request', issues.map((issue) => `${issue.loc.slice(1).join('.') || 'body'}: ${issue.msg}`).join('; '));
  },
};
