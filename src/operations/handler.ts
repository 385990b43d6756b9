// What an operation handler receives and returns. A handler is a plain function of its
// operation's validated request, typed from the generated `operations[K]` of its document
// (src/generated/*.ts); the edge builds that request once (src/api/operation-request.ts) and
// writes the reply (src/http/dispatch.ts: JSON bodies, src/http/sse.ts: event streams).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Principal, RequestScope } from '../auth/principal.js';
import type { ValidationIssue } from '../errors.js';

type Location = 'path' | 'query' | 'header';

/** The parameters an operation declares in one location, as an object (empty when it declares none). */
type Declared<Op, Where extends Location> = Op extends { parameters: { [W in Where]?: infer P } }
  ? [NonNullable<P>] extends [never]
    ? Record<never, never>
    : NonNullable<P>
  : Record<never, never>;

/**
 * Header parameters under the lower-case names Node gives them. openapi-backend validates header
 * parameters but does not hand back their coerced values: they arrive as text (both documents
 * declare only string headers), and every header the document does not declare arrives as Node
 * read it.
 */
type Headers<Op> = {
  readonly [K in keyof Declared<Op, 'header'> as Lowercase<K & string>]: Declared<Op, 'header'>[K] extends string
    ? Declared<Op, 'header'>[K]
    : string;
} & Readonly<IncomingHttpHeaders>;

/** The body of any media type the operation declares; optional when the document lets it be left out. */
type Body<Op> = Op extends { requestBody: { content: infer C } }
  ? C[keyof C]
  : Op extends { requestBody?: { content: infer C } }
    ? C[keyof C] | undefined
    : undefined;

/**
 * One operation's request after routing, authentication, validation and authorization. Path and
 * query parameters are the validator's coerced values with the document's defaults applied
 * (integers were first checked as text, src/api/integer-parameters.ts); a body is the parsed JSON
 * or form the operation's schema accepted.
 */
export interface OperationRequest<Op> {
  operationId: string;
  params: Declared<Op, 'path'>;
  query: Declared<Op, 'query'>;
  headers: Headers<Op>;
  body: Body<Op>;
  /** The authenticated caller; absent only on operations the document leaves open (token, JWKS). */
  principal: Principal | undefined;
  /** What authorization resolved the request to touch (src/auth/authorize.ts). */
  scope: RequestScope | undefined;
  /** The logger that carries the request id (src/http/request-context.ts). */
  log: Logger | undefined;
  /** The request's id, as echoed in X-Request-Id (src/http/request-context.ts). */
  requestId: string | undefined;
  /** The caller's address as Koa reads it (X-Forwarded-For is honoured: src/http/app.ts sets `app.proxy`). */
  callerAddress: string | undefined;
  /** The request as it came off the socket: OTLP export reads its own body from it (src/http/body-parser.ts leaves it unread). */
  incoming: IncomingMessage;
}

/** A reply whose body (when any) Koa writes as JSON, or as is for a string or a Buffer. */
export interface BodyReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One Server-Sent Event; the transport writes a data field per line of `data`. */
export interface StreamEvent {
  id: string;
  event: string;
  data: string;
}

/** Where an event stream's events come from: polled by the transport until it fails or the client leaves. */
export interface EventSource {
  /** The events to send now, in order, possibly none. A rejection ends the stream; the client resumes with Last-Event-ID. */
  poll(): Promise<StreamEvent[]>;
  /** True when the last poll left events waiting: poll again at once. */
  readonly behind: boolean;
  /** How long to wait before polling again when nothing is waiting. */
  readonly pollIntervalMs: number;
  /** What the log says when a poll fails and the stream ends. */
  readonly failureMessage: string;
}

/** A `text/event-stream` reply: the transport (src/http/sse.ts) sends the source's events as they come. */
export interface EventStreamReply {
  status: 200;
  events: EventSource;
}

export type Reply = BodyReply | EventStreamReply;

export function isEventStream(reply: Reply): reply is EventStreamReply {
  return 'events' in reply;
}

export type OperationHandler<Op> = (request: OperationRequest<Op>) => Promise<Reply>;

/**
 * Handlers keyed by the operationIds of one document's generated `operations`: a typo, or a
 * handler of another document, does not compile. An operation without one answers 501.
 */
export type HandlerMap<Ops> = { [K in keyof Ops & string]?: OperationHandler<Ops[K]> };

/** A request that failed validation, as a document's 422 refiners see it: nothing in it is checked. */
export interface RejectedRequest {
  operationId: string | undefined;
  body: unknown;
}

/** Lets a document refine the generic 422 issues (the engine replaces Ajv's filter noise). */
export type IssueRefiner = (issues: ValidationIssue[], request: RejectedRequest) => ValidationIssue[];
