// OAuth 2.0 error responses (RFC 6749 section 5.2) of POST /auth/token.
import { HttpError } from '../errors.js';

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type';

export class OAuthError extends HttpError {
  constructor(
    readonly status: 400 | 401,
    readonly code: OAuthErrorCode,
    readonly description?: string,
  ) {
    super(description ?? code);
    this.headers['Cache-Control'] = 'no-store';
    if (status === 401) this.headers['WWW-Authenticate'] = 'Basic realm="spanledger", charset="UTF-8"';
  }

  override body(): unknown {
    return this.description ? { error: this.code, error_description: this.description } : { error: this.code };
  }
}
