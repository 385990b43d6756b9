// Koa middleware that hands a request to the API whose document declares its path, and answers
// the paths no document declares: 405 with `Allow` when another method has the path (a document
// operation or a route outside the documents), 404 otherwise.
import type { OpenAPIBackend } from 'openapi-backend';
import type { Context as KoaContext } from 'koa';
import type { BuiltApi } from '../api/build-api.js';
import { NotFoundError } from '../errors.js';
import { MethodNotAllowedError } from './edge-errors.js';

/** In the order an `Allow` header lists them. */
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'] as const;

/** The methods a document declares for a path, matched the way the router matches requests. */
function methodsOf(backend: OpenAPIBackend, path: string): string[] {
  return HTTP_METHODS.filter((method) => backend.router.matchOperation({ method, path, headers: {} }) !== undefined);
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

export function dispatchTo(apis: BuiltApi[]) {
  return async function dispatch(ctx: KoaContext): Promise<void> {
    const matches = apis.map((api) => [api, matchRoute(api, ctx.method, ctx.path)] as const);
    const target = matches.find(([, match]) => match === 'match');
    if (!target) {
      const allowed = new Set([...opsRouteMethods(ctx), ...matches.filter(([, match]) => match === 'wrong-method').flatMap(([api]) => methodsOf(api.backend, ctx.path))]);
      if (allowed.size > 0) throw new MethodNotAllowedError(HTTP_METHODS.filter((method) => allowed.has(method)));
      throw new NotFoundError();
    }
    await target[0].backend.handleRequest(
      { method: ctx.method, path: ctx.path, query: ctx.query as Record<string, string | string[]>, headers: ctx.headers as Record<string, string | string[]>, body: ctx.request.body },
      ctx,
    );
  };
}
