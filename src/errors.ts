// The service's small vocabulary of client-facing errors. They are translated to HTTP in
// one place (error-middleware.ts); anything else is a 500 whose cause goes only to the log.

export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export abstract class HttpError extends Error {
  abstract readonly status: number;
  readonly headers: Record<string, string> = {};

  /** The JSON body sent to the client. */
  body(): unknown {
    return { detail: this.message };
  }
}

/** 422: the request does not match the document or the contract's rules. */
export class RequestValidationError extends HttpError {
  readonly status = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
  override body(): unknown {
    return { detail: this.issues };
  }
}

export class BadRequestError extends HttpError {
  readonly status = 400;
}

export class UnauthorizedError extends HttpError {
  readonly status = 401;
  constructor(message = 'Not authenticated', challenge = 'Bearer') {
    super(message);
    this.headers['WWW-Authenticate'] = challenge;
  }
}

export class ForbiddenError extends HttpError {
  readonly status = 403;
}

export class NotFoundError extends HttpError {
  readonly status = 404;
  constructor(message = 'Not Found') {
    super(message);
  }
}

/** 405, with the `Allow` header RFC 9110 requires: the methods the path does support. */
export class MethodNotAllowedError extends HttpError {
  readonly status = 405;
  constructor(readonly allowed: readonly string[]) {
    super('Method Not Allowed');
    this.headers.Allow = allowed.join(', ');
  }
}

export class ConflictError extends HttpError {
  readonly status = 409;
}

export class PayloadTooLargeError extends HttpError {
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends HttpError {
  readonly status = 415;
}

export class NotImplementedError extends HttpError {
  readonly status = 501;
  constructor(operationId: string) {
    super(`${operationId} is not implemented yet`);
  }
}

export class ServiceUnavailableError extends HttpError {
  readonly status = 503;
  constructor(message = 'Service temporarily unavailable, retry later', retryAfterSeconds = 5) {
    super(message);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}
