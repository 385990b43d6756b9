// The token endpoint follows OAuth 2.0 (RFC 6749 section 5.2): a malformed request (a body that
// fails the schema, cannot be parsed, nests too deep, or is of another media type) is
// 400 {"error":"invalid_request"}, not the API's usual 422 or 415.
import { type ServiceError, RequestValidationError } from '../errors.js';
import { OAuthError } from '../errors.js';

function describe(error: ServiceError): string {
  if (!(error instanceof RequestValidationError)) return error.message;
  return error.issues.map((issue) => `${issue.loc.slice(1).join('.') || 'body'}: ${issue.msg}`).join('; ');
}

export const managementRequestFailures: Record<string, (error: ServiceError) => Error> = {
  createAccessToken: (error) => new OAuthError('invalid_request', describe(error)),
};
