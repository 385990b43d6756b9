// What an operation handler receives and returns. Handlers are plain functions of the validated
// request; the dispatcher writes their reply to Koa.
import type { Context as OpenApiContext } from 'openapi-backend';
import type { Context as KoaContext } from 'koa';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type OperationHandler = (request: OpenApiContext, ctx: KoaContext) => Promise<Reply | void>;

/** Handlers keyed by operationId; an operation without one answers 501. */
export type HandlerMap = Record<string, OperationHandler>;
