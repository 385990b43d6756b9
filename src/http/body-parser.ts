// JSON and form bodies for the JSON APIs. Malformed JSON is a 422 on `["body"]`, an
// over-large body a 413 that closes the connection. OTLP ingestion reads its own (binary,
// larger) bodies.
import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { PayloadTooLargeError, RequestValidationError } from './errors.js';

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
function tooLargeAndClose(request: IncomingMessage, message: string): PayloadTooLargeError {
  request.unpipe(); // from the gunzip stream, when the body is compressed
  request.resume();
  const error = new PayloadTooLargeError(message);
  error.headers.Connection = 'close';
  return error;
}

export function jsonBodyParser(limitBytes: number) {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: `${limitBytes}b`,
    formLimit: `${limitBytes}b`,
    onerror: (error: Error & { status?: number; type?: string }, ctx: Context) => {
      if (error.status === 413) throw tooLargeAndClose(ctx.req, `request body exceeds ${limitBytes} bytes${ctx.get('Content-Encoding') ? ' after decoding' : ''}`);
      throw new RequestValidationError([{ loc: ['body'], msg: `Invalid JSON: ${error.message}`, type: 'json_invalid' }]);
    },
  });
  return async function parseBody(ctx: Context, next: Next): Promise<void> {
    if (RAW_BODY_PATHS.has(ctx.path)) return next();
    await parse(ctx, async () => {
      if (jsonDepth(ctx.request.body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
        throw new RequestValidationError([{ loc: ['body'], msg: `JSON nests deeper than ${MAX_JSON_DEPTH} levels`, type: 'too_deep' }]);
      }
      await next();
    });
  };
}
