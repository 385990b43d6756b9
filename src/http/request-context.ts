// Gives every request an id (the caller's X-Request-Id when it is sane), echoes it, and
// writes one access-log line per request with a logger that carries the id.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(logger: Logger) {
  return async function withRequestContext(ctx: Context, next: Next): Promise<void> {
    const offered = ctx.get('X-Request-Id');
    const requestId = SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    const log = logger.child({ request_id: requestId });
    ctx.state.log = log;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      log.info(
        {
          method: ctx.method,
          path: ctx.path,
          operation: ctx.state.operationId,
          status: ctx.status,
          // Set by authentication on a 401: why the token was refused, for the operator.
          auth_failure: ctx.state.authFailure,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
        },
        'request',
      );
    }
  };
}
