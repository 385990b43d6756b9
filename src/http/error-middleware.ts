// The top of the middleware chain and the one map from the service's failures (src/errors.ts,
// ./edge-errors.ts) to HTTP: status, headers and the JSON body. Anything else is a 500 whose
// cause goes only to the log.
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import {
  ConflictError,
  FilterTimeLimitError,
  GoneError,
  MalformedRequestError,
  NotAuthenticatedError,
  NotFoundError,
  OAuthError,
  PermissionDeniedError,
  QuotaExceededError,
  RequestValidationError,
  ServiceError,
  TooLargeError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import { RegexTimeLimitExceeded } from '../storage/sql/regex-time-limit.js';
import { isDatabaseUnavailable } from '../storage/unavailable.js';
import { MethodNotAllowedError, NotImplementedError } from './edge-errors.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The headers that advertise what a method's body may be (W3C LDP Accept-Post, RFC 5789 Accept-Patch). */
const ACCEPT_HEADERS: Record<string, string> = { POST: 'Accept-Post', PATCH: 'Accept-Patch' };

/** The HTTP answer to a failure of a request with this method. */
export function httpAnswerOf(error: ServiceError, method: string): HttpAnswer {
  const detail = { detail: error.message };
  if (error instanceof RequestValidationError) return { status: 422, headers: {}, body: { detail: error.issues } };
  // A 422 in the validation shape, at the filter: the request is too expensive as written.
  if (error instanceof FilterTimeLimitError)
    return { status: 422, headers: {}, body: { detail: [{ loc: ['body', 'filter'], msg: error.message, type: 'time_limit' }] } };
  if (error instanceof MalformedRequestError) return { status: 400, headers: {}, body: detail };
  if (error instanceof NotAuthenticatedError) return { status: 401, headers: { 'WWW-Authenticate': error.challenge }, body: detail };
  if (error instanceof PermissionDeniedError) return { status: 403, headers: {}, body: detail };
  if (error instanceof NotFoundError) return { status: 404, headers: {}, body: detail };
  if (error instanceof MethodNotAllowedError) return { status: 405, headers: { Allow: error.allowed.join(', ') }, body: detail };
  if (error instanceof ConflictError)
    return { status: 409, headers: {}, body: error.code === undefined ? detail : { ...detail, code: error.code, ...error.fields } };
  if (error instanceof GoneError) return { status: 410, headers: {}, body: { ...detail, code: error.code, ...error.fields } };
  if (error instanceof TooLargeError) return { status: 413, headers: {}, body: detail };
  if (error instanceof UnsupportedMediaTypeError) {
    const header = ACCEPT_HEADERS[method];
    return { status: 415, headers: header && error.accepted.length > 0 ? { [header]: error.accepted.join(', ') } : {}, body: detail };
  }
  if (error instanceof QuotaExceededError)
    return { status: 429, headers: { 'Retry-After': String(error.retryAfterSeconds) }, body: detail };
  if (error instanceof NotImplementedError) return { status: 501, headers: {}, body: detail };
  if (error instanceof UnavailableError) return { status: 503, headers: { 'Retry-After': String(error.retryAfterSeconds) }, body: detail };
  if (error instanceof OAuthError) {
    // RFC 6749 §5.2: invalid_client is a 401 with a challenge for the client authentication used.
    const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
    if (error.code === 'invalid_client') headers['WWW-Authenticate'] = 'Basic realm="spanledger", charset="UTF-8"';
    const body = error.description ? { error: error.code, error_description: error.description } : { error: error.code };
    return { status: error.code === 'invalid_client' ? 401 : 400, headers, body };
  }
  return { status: 500, headers: {}, body: { detail: 'Internal Server Error' } };
}

export function errorMiddleware(logger: Logger) {
  return async function translateErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (caught) {
      let error = caught;
      if (error instanceof RegexTimeLimitExceeded) error = new FilterTimeLimitError(error.limitMs);
      else if (isDatabaseUnavailable(error)) {
        (ctx.state.log ?? logger).warn({ err: error }, 'database unavailable');
        error = new UnavailableError('The database is unavailable; retry later');
      }
      if (error instanceof ServiceError) {
        // The token endpoint authenticates its client itself: its reason goes on the access-log line too.
        if (error instanceof OAuthError && error.clientFailure) ctx.state.authFailure = error.clientFailure;
        const answer = httpAnswerOf(error, ctx.method);
        ctx.status = answer.status;
        ctx.set(answer.headers);
        ctx.body = answer.body;
        return;
      }
      (ctx.state.log ?? logger).error({ err: error }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { detail: 'Internal Server Error' };
    }
  };
}
