// Builds one openapi-backend instance per document: routing, validation and handling are three
// named steps, and every failure is thrown as one of our HTTP errors.
import type { OpenAPIBackend, Context as OpenApiContext } from 'openapi-backend';
import type { Context as KoaContext } from 'koa';
import { NotFoundError, RequestValidationError, NotAuthenticatedError, type ServiceError, type ValidationIssue } from '../errors.js';
import { toValidationIssues } from './validation-issues.js';
import { cloneDefinition, type ApiDocument } from './documents.js';
import type { HandlerMap, OperationHandler } from '../operations/handler.js';
import { createOpenApiBackend } from './openapi-backend.js';
import { requestBodyFailure } from './request-body.js';

/** Lets a document refine the generic 422 issues (the engine replaces Ajv's filter noise). */
export type IssueRefiner = (issues: ValidationIssue[], request: OpenApiContext) => ValidationIssue[];

export interface ApiOptions {
  handlers: HandlerMap;
  /** The security handler of every scheme the document declares: the principal, or a thrown error. */
  authenticate: (ctx: KoaContext, operation: OpenApiContext['operation']) => Promise<unknown>;
  /** Runs after validation, before the operation handler (or the 501). */
  authorize: (request: OpenApiContext, ctx: KoaContext) => Promise<void>;
  refine?: IssueRefiner;
  /**
   * Operations that answer a bad request (422 validation, 415 media type, unreadable body) in
   * their own shape: OAuth's token endpoint answers 400 invalid_request.
   */
  requestFailures?: Record<string, (error: ServiceError) => Error>;
  /** The failure of an operation the document declares and no handler implements (the edge's 501). */
  notImplemented: (operationId: string) => Error;
}

export interface BuiltApi {
  name: string;
  backend: OpenAPIBackend;
}

function withReply(handler: OperationHandler) {
  return async (request: OpenApiContext, ctx: KoaContext): Promise<void> => {
    const reply = await handler(request, ctx);
    if (!reply) return; // the handler wrote a streaming response itself
    ctx.status = reply.status;
    if (reply.headers) ctx.set(reply.headers);
    if (reply.body !== undefined) ctx.body = reply.body;
  };
}

export async function buildApi(document: ApiDocument, options: ApiOptions): Promise<BuiltApi> {
  const { handlers, refine = (issues) => issues } = options;
  const inOperationShape = (request: OpenApiContext, error: ServiceError): Error => options.requestFailures?.[request.operation?.operationId ?? '']?.(error) ?? error;
  const backend = createOpenApiBackend({ definition: cloneDefinition(document), coerceRequests: true });
  const operationHandlers = Object.fromEntries(Object.entries(handlers).map(([operationId, handler]) => [operationId, withReply(handler)]));
  backend.register({
    ...operationHandlers,
    postRoutingHandler: (request: OpenApiContext, ctx: KoaContext) => {
      ctx.state.operationId = request.operation?.operationId;
      const failure = request.operation && requestBodyFailure(request.operation, ctx);
      if (failure) throw inOperationShape(request, failure);
    },
    validationFail: (request: OpenApiContext) => {
      throw inOperationShape(request, new RequestValidationError(refine(toValidationIssues(request.validation.errors ?? []), request)));
    },
    unauthorizedHandler: (request: OpenApiContext) => {
      const results = Object.values(request.security ?? {}) as Array<{ error?: unknown } | undefined>;
      const failure = results.find((result) => typeof result === 'object' && result?.error)?.error;
      // The security handler's own error (401, or 503 when the database is down) goes out as is.
      throw failure ?? new NotAuthenticatedError();
    },
    preOperationHandler: (request: OpenApiContext, ctx: KoaContext) => options.authorize(request, ctx),
    notImplemented: (request: OpenApiContext) => {
      throw options.notImplemented(request.operation.operationId ?? 'this operation');
    },
    // The dispatcher (src/http/dispatch.ts) hands over only requests that match an operation;
    // openapi-backend sends a wrong method here too when no methodNotAllowed handler is registered.
    notFound: () => {
      throw new NotFoundError();
    },
  });
  // The schemes an operation lists (bearerAuth, and basicAuth on ingestion) all read the one
  // Authorization header: it is checked once per request, whichever handler runs first.
  const authenticateOnce = (request: OpenApiContext, ctx: KoaContext): Promise<unknown> => (ctx.state.authentication ??= options.authenticate(ctx, request.operation)) as Promise<unknown>;
  for (const scheme of Object.keys(document.definition.components?.securitySchemes ?? {})) backend.registerSecurityHandler(scheme, authenticateOnce);
  await backend.init();
  return { name: document.name, backend };
}
