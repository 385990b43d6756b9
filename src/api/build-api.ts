// Builds one openapi-backend instance per document: routing, authentication, validation and
// handling are named steps, in that order (credentials are checked before anything the request
// carries), every failure is thrown as one of our errors, and a handled request answers the
// handler's Reply, which the HTTP edge writes (src/http/dispatch.ts).
import type { OpenAPIBackend, Context as OpenApiContext, Request as OpenApiRequest } from 'openapi-backend';
import type { Context as KoaContext } from 'koa';
import type { ApiName } from '../config.js';
import { NotFoundError, RequestValidationError, NotAuthenticatedError, type ServiceError } from '../errors.js';
import { toValidationIssues } from './validation-issues.js';
import { cloneDefinition, type ApiDocument, type DocumentOperations } from './documents.js';
import type { HandlerMap, IssueRefiner, OperationHandler, Reply } from '../operations/handler.js';
import { createOpenApiBackend } from './openapi-backend.js';
import { operationRequest, rejectedRequest } from './operation-request.js';
import { requestBodyFailure } from './request-body.js';

export interface ApiOptions<Ops> {
  /** The document's handlers, keyed by its generated operations; a missing one answers `notImplemented`. */
  handlers: HandlerMap<Ops>;
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
  name: ApiName;
  backend: OpenAPIBackend;
  /** Routes, authenticates, validates, authorizes and handles a request of this document: the handler's reply. */
  handle(request: OpenApiRequest, ctx: KoaContext): Promise<Reply>;
}

type RegisteredHandler = (request: OpenApiContext, ctx: KoaContext) => Promise<Reply>;

/** The handler as openapi-backend calls it: with its context and the Koa context, answering the Reply. */
function registered<Op>(handler: OperationHandler<Op>): RegisteredHandler {
  return (request, ctx) => handler(operationRequest<Op>(request, ctx));
}

function registeredHandlers<Ops>(handlers: HandlerMap<Ops>): Record<string, RegisteredHandler> {
  const byOperation: Record<string, RegisteredHandler> = {};
  for (const [operationId, handler] of Object.entries<OperationHandler<Ops[keyof Ops & string]> | undefined>(handlers)) {
    if (handler) byOperation[operationId] = registered(handler);
  }
  return byOperation;
}

export async function buildApi<Name extends ApiName>(
  document: ApiDocument<Name>,
  options: ApiOptions<DocumentOperations[Name]>,
): Promise<BuiltApi> {
  const { handlers, refine = (issues) => issues } = options;
  const inOperationShape = (request: OpenApiContext, error: ServiceError): Error =>
    options.requestFailures?.[request.operation?.operationId ?? '']?.(error) ?? error;
  const backend = createOpenApiBackend({ definition: cloneDefinition(document), coerceRequests: true });
  const operationHandlers = registeredHandlers(handlers);
  backend.register({
    ...operationHandlers,
    postRoutingHandler: (request: OpenApiContext, ctx: KoaContext) => {
      ctx.state.operationId = request.operation?.operationId;
    },
    // The body is judged only once the caller is known: an unauthenticated caller gets the 401
    // (unauthorizedHandler, next) and learns nothing of the media types or shapes accepted.
    postSecurityHandler: (request: OpenApiContext, ctx: KoaContext) => {
      if (!request.security?.authorized && (request.operation.security ?? []).length > 0) return;
      const failure = requestBodyFailure(request.operation, ctx);
      if (failure) throw inOperationShape(request, failure);
    },
    validationFail: (request: OpenApiContext) => {
      throw inOperationShape(
        request,
        new RequestValidationError(refine(toValidationIssues(request.validation.errors ?? []), rejectedRequest(request))),
      );
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
  const authenticateOnce = (request: OpenApiContext, ctx: KoaContext): Promise<unknown> =>
    (ctx.state.authentication ??= options.authenticate(ctx, request.operation));
  for (const scheme of Object.keys(document.definition.components?.securitySchemes ?? {}))
    backend.registerSecurityHandler(scheme, authenticateOnce);
  await backend.init();
  // handleRequest answers what the handler that ran returns: operation handlers return their
  // Reply, every other handler registered above throws.
  const handle = async (request: OpenApiRequest, ctx: KoaContext): Promise<Reply> => backend.handleRequest(request, ctx);
  return { name: document.name, backend, handle };
}
