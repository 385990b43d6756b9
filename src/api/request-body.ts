// The request body as the matched operation sees it, once the caller is authenticated and before
// validation: a body that is present must be of a media type the operation declares (415
// otherwise: a filter sent as text/plain used to be skipped by the parser and the query answered every span), and a body the
// parser could not read is answered now that the operation, and so its error shape, is known.
import type { Context as KoaContext } from 'koa';
import type { Operation } from 'openapi-backend';
import { UnsupportedMediaTypeError, type ServiceError } from '../errors.js';

/** An empty body (no Content-Length, or 0, and not chunked) needs no type: it is no body. */
function hasBody(ctx: KoaContext): boolean {
  return Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}

export function requestBodyFailure(operation: Operation, ctx: KoaContext): ServiceError | undefined {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
  if (content && hasBody(ctx)) {
    const accepted = Object.keys(content);
    if (!ctx.is(accepted)) {
      const mediaType = ctx.get('Content-Type').split(';')[0]?.trim().toLowerCase();
      return new UnsupportedMediaTypeError(`unsupported content type ${mediaType || '(none)'}; use ${accepted.join(' or ')}`, accepted);
    }
  }
  return ctx.state.bodyFailure;
}
