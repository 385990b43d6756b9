// The top of the middleware chain: every error becomes a response in our one shape.
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../storage/unavailable.js';
import { HttpError, ServiceUnavailableError } from '../errors.js';

export function errorMiddleware(logger: Logger) {
  return async function translateErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (caught) {
      let error = caught;
      if (isDatabaseUnavailable(error)) {
        (ctx.state.log as Logger | undefined ?? logger).warn({ err: error }, 'database unavailable');
        error = new ServiceUnavailableError('The database is unavailable; retry later');
      }
      if (error instanceof HttpError) {
        ctx.status = error.status;
        ctx.set(error.headers);
        ctx.body = error.body();
        return;
      }
      (ctx.state.log as Logger | undefined ?? logger).error({ err: error }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { detail: 'Internal Server Error' };
    }
  };
}
