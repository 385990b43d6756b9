// Koa middleware that hands a request to the API whose document declares its path and writes the
// handler's reply (a JSON body, or an event stream through ./sse.ts), and answers the paths no
// document declares: 405 with `Allow` when another method has the path (a document operation or a
// route outside the documents), 404 otherwise. HEAD is answered wherever GET is, as GET without
// its content (RFC 9110 §9.3.2: every general-purpose server supports GET and HEAD).
import type { OpenAPIBackend } from 'openapi-backend';
import type { Context as KoaContext } from 'koa';
import type { Logger } from 'pino';
import type { BuiltApi } from '../api/build-api.js';
import { NotFoundError } from '../errors.js';
import { isEventStream, type Reply } from '../operations/handler.js';
import { MethodNotAllowedError } from './edge-errors.js';
import { EVENT_STREAM_HEADERS, writeEventStream } from './sse.js';

/** In the order an `Allow` header lists them. */
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'] as const;

/** The methods a document declares for a path, matched the way the router matches requests; HEAD wherever GET. */
function methodsOf(backend: OpenAPIBackend, path: string): string[] {
  const declared = HTTP_METHODS.filter((method) => backend.router.matchOperation({ method, path, headers: {} }) !== undefined);
  return declared.includes('GET') ? [...declared, 'HEAD'] : declared;
}

/** The methods of the @koa/router operations routes whose path matched (`ctx.matched`). */
function opsRouteMethods(ctx: KoaContext): string[] {
  const layers = (ctx as KoaContext & { matched?: Array<{ methods: string[] }> }).matched ?? [];
  return layers.flatMap((layer) => layer.methods);
}

type RouteMatch = 'match' | 'wrong-method' | 'none';

function matchRoute(api: BuiltApi, method: string, path: string): RouteMatch {
  try {
    return api.backend.router.matchOperation({ method, path, headers: {} }, true) ? 'match' : 'none';
  } catch (error) {
    return error instanceof Error && error.message.startsWith('405') ? 'wrong-method' : 'none';
  }
}

function writeReply(ctx: KoaContext, reply: Reply, logger: Logger | undefined): void {
  // HEAD of a stream: its status and headers, without opening the stream.
  if (isEventStream(reply) && ctx.method === 'HEAD') {
    ctx.status = reply.status;
    ctx.set(EVENT_STREAM_HEADERS);
    return;
  }
  if (isEventStream(reply)) return writeEventStream(ctx, reply, ctx.state.log ?? logger);
  ctx.status = reply.status;
  if (reply.headers) ctx.set(reply.headers);
  if (reply.body !== undefined) ctx.body = reply.body;
}

/** `logger` serves where no request logger is on ctx.state (a chain without src/http/request-context.ts). */
export function dispatchTo(apis: BuiltApi[], logger?: Logger) {
  return async function dispatch(ctx: KoaContext): Promise<void> {
    // HEAD runs the GET operation; Koa then sends its status and headers without the body.
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const matches = apis.map((api) => [api, matchRoute(api, method, ctx.path)] as const);
    const target = matches.find(([, match]) => match === 'match');
    if (!target) {
      const allowed = new Set([
        ...opsRouteMethods(ctx),
        ...matches.filter(([, match]) => match === 'wrong-method').flatMap(([api]) => methodsOf(api.backend, ctx.path)),
      ]);
      if (allowed.size > 0) throw new MethodNotAllowedError(HTTP_METHODS.filter((method) => allowed.has(method)));
      throw new NotFoundError();
    }
    const reply = await target[0].handle(
      {
        method,
        path: ctx.path,
        query: ctx.query as Record<string, string | string[]>,
        headers: ctx.headers as Record<string, string | string[]>,
        body: ctx.request.body,
      },
      ctx,
    );
    writeReply(ctx, reply, logger);
  };
}
