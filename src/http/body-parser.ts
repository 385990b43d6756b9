// JSON and form bodies for the JSON APIs. An over-large body is a 413 that closes the connection
// at once. A body that cannot be read (malformed or too deep JSON, an unknown charset or content
// encoding) is not answered here: the failure is kept for the API layer, which answers it once
// the operation is known (422, 415, or the OAuth error of the token endpoint). OTLP ingestion
// reads its own (binary, larger) bodies.
import type { Context, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { type ServiceError, TooLargeError, RequestValidationError, UnsupportedMediaTypeError } from '../errors.js';

const RAW_BODY_PATHS = new Set(['/v1/traces']);

/**
 * JSON nesting allowed in a body. Schema validation recurses once per level, so without a bound a
 * deep enough body overflows the stack. The filter tree (at most 100 levels, two JSON levels
 * each) fits well inside.
 */
export const MAX_JSON_DEPTH = 256;

/** Depth of a parsed JSON value, measured without recursion. */
export function jsonDepth(value: unknown, stopAt: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > stopAt) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The parser stops reading at the limit and leaves the rest of the body (possibly gigabytes, or a
 * gzip stream that would inflate to them) on the wire; a keep-alive connection would then wait
 * for it forever. So the 413 says `Connection: close` (Node closes the socket once the answer is
 * written) and, until then, what still arrives is read and discarded: a socket closed with
 * unread input resets, and the reset can destroy the 413 before the client reads it.
 */
function tooLargeAndClose(ctx: Context, message: string): TooLargeError {
  ctx.req.unpipe(); // from the gunzip stream, when the body is compressed
  ctx.req.resume();
  ctx.set('Connection', 'close');
  return new TooLargeError(message);
}

export function jsonBodyParser(limitBytes: number) {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: `${limitBytes}b`,
    formLimit: `${limitBytes}b`,
    onerror: (error: Error & { status?: number; type?: string }, ctx: Context) => {
      if (error.status === 413)
        throw tooLargeAndClose(ctx, `request body exceeds ${limitBytes} bytes${ctx.get('Content-Encoding') ? ' after decoding' : ''}`);
      // raw-body and inflation say 415 for a charset or content encoding they cannot decode.
      if (error.status === 415)
        keepBodyFailure(ctx, new UnsupportedMediaTypeError(`${error.message}; send JSON in UTF-8, with no content encoding or gzip`));
      else
        keepBodyFailure(ctx, new RequestValidationError([{ loc: ['body'], msg: `Invalid JSON: ${error.message}`, type: 'json_invalid' }]));
    },
  });
  return async function parseBody(ctx: Context, next: Next): Promise<void> {
    if (RAW_BODY_PATHS.has(ctx.path)) return next();
    await parse(ctx, async () => {
      if (jsonDepth(ctx.request.body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
        ctx.request.body = undefined;
        keepBodyFailure(
          ctx,
          new RequestValidationError([{ loc: ['body'], msg: `JSON nests deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' }]),
        );
      }
      await next();
    });
  };
}

/** Kept for the API layer (src/api/request-body.ts), which answers it for the operation. */
function keepBodyFailure(ctx: Context, error: ServiceError): void {
  ctx.state.bodyFailure = error;
}
