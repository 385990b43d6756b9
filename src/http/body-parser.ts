// JSON and form bodies for the JSON APIs. Malformed JSON is a 422 on `["body"]`, an
// over-large body a 413. OTLP ingestion reads its own (binary, larger) bodies.
import type { Context, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { PayloadTooLargeError, RequestValidationError } from './errors.js';

const RAW_BODY_PATHS = new Set(['/v1/traces']);

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
    await parse(ctx, next);
  };
}
