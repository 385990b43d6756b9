// JSON and form bodies for the JSON APIs. Malformed JSON is a 422 on `["body"]`, an
// over-large body a 413. OTLP ingestion reads its own (binary, larger) bodies.
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

export function jsonBodyParser(limitBytes: number) {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: `${limitBytes}b`,
    formLimit: `${limitBytes}b`,
    onerror: (error: Error & { status?: number; type?: string }) => {
      if (error.status === 413) throw new PayloadTooLargeError(`request body exceeds ${limitBytes} bytes`);
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
