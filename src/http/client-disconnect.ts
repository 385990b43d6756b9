// Koa's 'error' event: errors that escape the middleware chain, in practice only a streamed
// response that could not be written. A client that goes away mid-stream (a closed tab, an
// aborted fetch, a proxy timing out) is the normal end of a live stream, not a fault.
import type { Context } from 'koa';
import type { Logger } from 'pino';

const DISCONNECT_CODES = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** True when the error only says the client closed the connection before the response ended. */
export function isClientDisconnect(error: unknown, ctx: Context | undefined): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !DISCONNECT_CODES.has(code)) return false;
  // The response's socket is gone: the peer left (a server-side failure leaves it open).
  return ctx !== undefined && (ctx.res.destroyed || ctx.req.destroyed);
}

export function logKoaError(logger: Logger) {
  return (error: unknown, ctx?: Context): void => {
    const log = ctx?.state.log ?? logger;
    if (isClientDisconnect(error, ctx)) log.debug({ err: error }, 'client disconnected before the response ended');
    else log.error({ err: error }, 'koa error');
  };
}
