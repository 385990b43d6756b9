// The service's vocabulary of failures a caller is told about, in the domain's own terms and
// without any transport: the HTTP edge (src/http/error-middleware.ts) and the gRPC edge
// (src/grpc/status.ts) each translate them in one place. Anything else thrown is a bug, answered
// as an internal error whose cause goes only to the log.

/** One problem with a request, located from its root (`["body", "filter", "field"]`). */
export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** A failure the caller is told about; its message is what the caller reads. */
export abstract class ServiceError extends Error {}

/** The request breaks the contract's rules: every problem found, by location. */
export class RequestValidationError extends ServiceError {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}

/** The request cannot be read at all (a message that does not decode, a body cut short). */
export class MalformedRequestError extends ServiceError {}

/** The caller is not known. `challenge` is the authentication challenge to answer with (RFC 9110 §11.6.1). */
export class NotAuthenticatedError extends ServiceError {
  constructor(
    message = 'Not authenticated',
    readonly challenge = 'Bearer',
  ) {
    super(message);
  }
}

/** The caller is known but may not do this. */
export class PermissionDeniedError extends ServiceError {}

export class NotFoundError extends ServiceError {
  constructor(message = 'Not Found') {
    super(message);
  }
}

/**
 * The change would break a rule of the stored state (a duplicate, the last owner leaving). A
 * `code` and `fields` (ids of what is in the way), where given, are told to the caller beside
 * the message, for a client to act on without reading it.
 */
export class ConflictError extends ServiceError {
  constructor(
    message: string,
    readonly code?: string,
    readonly fields: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/**
 * What the request names existed and is gone for good (an export whose result expired, or that
 * has no result); `code` and `fields` as for ConflictError.
 */
export class GoneError extends ServiceError {
  constructor(
    message: string,
    readonly code: string,
    readonly fields: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** The request is larger than the service takes. */
export class TooLargeError extends ServiceError {}

/** A body in a format (media type or content coding) the operation does not take. */
export class UnsupportedMediaTypeError extends ServiceError {
  /** The media types the operation does take, when the failure is the media type. */
  constructor(
    message: string,
    readonly accepted: readonly string[] = [],
  ) {
    super(message);
  }
}

/** The service cannot answer now (the database is down or saturated); the same request may succeed later. */
export class UnavailableError extends ServiceError {
  constructor(
    message = 'Service temporarily unavailable, retry later',
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

/**
 * The application has used up a quota (its daily span quota): refused until it renews, which
 * the caller is told to wait for (HTTP 429 with Retry-After, gRPC RESOURCE_EXHAUSTED with RetryInfo).
 */
export class QuotaExceededError extends ServiceError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * A read whose filter holds a `regex` condition ran past the regex statement time limit: the
 * request is too expensive as written (a narrower window or filter may pass).
 */
export class FilterTimeLimitError extends ServiceError {
  constructor(readonly limitMs: number) {
    super(
      `the filter's regex conditions ran past the time limit of ${limitMs} ms for one statement; narrow the time window, add conditions that exclude spans before the regex, or simplify the pattern`,
    );
  }
}

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type';

/** A refusal of the token endpoint in OAuth 2.0's own terms (RFC 6749 §5.2). */
export class OAuthError extends ServiceError {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description?: string,
    /** For invalid_client: why the client was refused, for the access-log line only (`auth_failure`). */
    readonly clientFailure?: 'missing' | 'malformed' | 'unknown_key' | 'wrong_secret' | 'expired_key',
  ) {
    super(description ?? code);
  }
}
