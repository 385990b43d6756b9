// opentelemetry.proto.collector.trace.v1.TraceService/Export: OTLP over gRPC. The same steps as
// POST /v1/traces (src/engine/export-traces.ts) with metadata for headers: authentication,
// the operation's authorization rule read from the engine document, the protobuf decoder and
// the one ingestion service. Only the transport differs.
import { status as Status, type Metadata, type MethodDefinition, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Context as OpenApiContext } from 'openapi-backend';
import { loadDocument } from '../api/documents.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import { AuthenticationError, authenticateAuthorization, type AuthFailure } from '../auth/authenticate.js';
import { acceptsBasic, authorizeAccess, impliedApplication, operationAccess, type TouchedResource } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import { ingestTarget, ingestTraces } from '../ingest/ingest-traces.js';
import { ExportBody } from '../ingest/export-body.js';
import { decodeProtobufRequest, encodeProtobufResponse } from '../ingest/otlp-protobuf.js';
import type { PartialSuccess } from '../ingest/otlp-request.js';
import { RequestValidationError } from '../errors.js';
import { grpcErrorOf } from './status.js';

export const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export interface ExportReply {
  partialSuccess: PartialSuccess | undefined;
}

/**
 * The method, with the request left as bytes: decoding in the handler makes a bad message an
 * INVALID_ARGUMENT, where a throwing deserializer would make grpc-js answer INTERNAL.
 */
export const EXPORT_METHOD: MethodDefinition<Buffer, ExportReply> = {
  path: EXPORT_PATH,
  requestStream: false,
  responseStream: false,
  requestSerialize: (bytes) => bytes,
  requestDeserialize: (bytes) => bytes,
  responseSerialize: (reply) => Buffer.from(encodeProtobufResponse(reply.partialSuccess)),
  responseDeserialize: () => ({ partialSuccess: undefined }),
};

/**
 * POST /v1/traces as the engine document declares it (its access rule, schemes and headers),
 * with its `#/components/parameters/…` references resolved, as openapi-backend sees it.
 */
function exportTracesOperation(): OpenApiContext['operation'] {
  const { definition } = loadDocument('engine');
  const operation = definition.paths?.['/v1/traces']?.post;
  if (!operation) throw new Error('the engine document declares no POST /v1/traces');
  const shared = (definition.components?.parameters ?? {}) as Record<string, unknown>;
  const parameters = (operation.parameters ?? []).map((parameter) =>
    '$ref' in parameter ? shared[parameter.$ref.replace('#/components/parameters/', '')] : parameter,
  );
  return { ...operation, parameters } as OpenApiContext['operation'];
}

function metadataText(metadata: Metadata, name: string): string | undefined {
  const value = metadata.get(name)[0];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The longest application id the operation's X-Vendor-App-Id header takes, read from the document. */
function appIdMaxLength(operation: OpenApiContext['operation']): number {
  const header = (operation.parameters as Array<{ in?: string; name?: string; schema?: { maxLength?: number } }>).find(
    (parameter) => parameter.in === 'header' && parameter.name?.toLowerCase() === 'x-vendor-app-id',
  );
  const maxLength = header?.schema?.maxLength;
  if (typeof maxLength !== 'number')
    throw new Error('the engine document gives POST /v1/traces no X-Vendor-App-Id header with a maxLength');
  return maxLength;
}

/**
 * x-vendor-app-id as sent, checked by the rules of the HTTP header (IngestAppId): sent empty or
 * longer than the header's maxLength, the INVALID_ARGUMENT of the header's 422. Undefined when not sent.
 */
function sentApplicationId(metadata: Metadata, maxLength: number): string | undefined {
  const sent = metadata.get('x-vendor-app-id');
  if (sent.length === 0) return undefined;
  const value = typeof sent[0] === 'string' ? sent[0].trim() : '';
  const loc = ['header', 'x-vendor-app-id'];
  if (value === '') throw new RequestValidationError([{ loc, msg: 'String should have at least 1 characters', type: 'string_too_short' }]);
  if (value.length > maxLength)
    throw new RequestValidationError([{ loc, msg: `String should have at most ${maxLength} characters`, type: 'string_too_long' }]);
  return value;
}

/**
 * The application the spans are for: x-vendor-app-id when sent, else (as over HTTP) an API
 * key's own application, while a user without it gets the 422 of a missing header.
 */
function touchedApplication(
  metadata: Metadata,
  principal: Principal,
  operation: OpenApiContext['operation'],
  appIdLimit: number,
): TouchedResource | undefined {
  const applicationId = sentApplicationId(metadata, appIdLimit);
  return applicationId ? { kind: 'application', id: applicationId, viaHeader: true } : impliedApplication(principal, operation);
}

/** What a finished call reports to the log and the metrics. */
export interface CallOutcome {
  code: Status;
  /** Why authentication refused the call, as on a 401's access-log line. */
  authFailure: AuthFailure | undefined;
  durationMs: number;
}

/** What a call's credentials are refused with, as the handler would answer it; undefined when they are good (or cannot be checked now). */
export type CredentialsRefusal = (
  metadata: Metadata,
) => Promise<{ error: ReturnType<typeof grpcErrorOf>; authFailure: AuthFailure } | undefined>;

/** The call's principal from its `authorization` metadata, by the rules of POST /v1/traces. */
function callAuthentication(deps: ServiceDeps, operation: OpenApiContext['operation']): (metadata: Metadata) => Promise<Principal> {
  const acceptBasic = acceptsBasic(operation);
  return (metadata) => authenticateAuthorization(metadataText(metadata, 'authorization'), deps, { acceptBasic });
}

/**
 * The handler's own authentication, for calls grpc-js refuses before the handler has them (a
 * message that does not decompress, a malformed grpc-timeout): bad credentials are answered
 * UNAUTHENTICATED first there too, so an unauthenticated caller learns nothing of the message.
 */
export function credentialsRefusal(deps: ServiceDeps): CredentialsRefusal {
  const authenticate = callAuthentication(deps, exportTracesOperation());
  return async (metadata) => {
    try {
      await authenticate(metadata);
      return undefined;
    } catch (error) {
      // Only a refusal of the credentials themselves; a database outage leaves the library's answer.
      return error instanceof AuthenticationError ? { error: grpcErrorOf(error), authFailure: error.reason } : undefined;
    }
  };
}

export function exportHandler(deps: ServiceDeps, log: Logger, finished: (outcome: CallOutcome) => void) {
  const operation = exportTracesOperation();
  const access = operationAccess(operation);
  if (!access) throw new Error('the engine document declares no access rule for POST /v1/traces');
  const authenticate = callAuthentication(deps, operation);
  const appIdLimit = appIdMaxLength(operation);
  return async (call: ServerUnaryCall<Buffer, ExportReply>, callback: sendUnaryData<ExportReply>): Promise<void> => {
    const started = performance.now();
    let authFailure: AuthFailure | undefined;
    let code: Status = Status.OK;
    try {
      const principal = await authenticate(call.metadata).catch((error: unknown) => {
        if (error instanceof AuthenticationError) authFailure = error.reason;
        throw error;
      });
      const scope = await authorizeAccess(
        deps.knex,
        principal,
        access,
        touchedApplication(call.metadata, principal, operation, appIdLimit),
      );
      const target = ingestTarget(scope);
      const body = new ExportBody(call.request, decodeProtobufRequest);
      // grpc-js hands over the message decompressed: its size is both counts (docs/usage-and-quotas.md).
      const bytes = call.request.length;
      const meter = {
        apiKey: principal.kind === 'api_key' ? principal.apiKey : undefined,
        bytesReceived: bytes,
        bytesDecompressed: bytes,
        now: (deps.clock ?? Date.now)(),
      };
      // Answered only once ingestTraces has committed the spans, as over HTTP.
      const partialSuccess = await ingestTraces(deps.knex, deps.spans, deps.prices, target, body, log, {
        meter,
        activity: deps.ingestActivity,
      });
      callback(null, { partialSuccess });
    } catch (error) {
      const failure = grpcErrorOf(error);
      code = failure.code ?? Status.INTERNAL;
      if (code === Status.INTERNAL) log.error({ err: error }, 'gRPC export failed');
      callback(failure);
    } finally {
      finished({ code, authFailure, durationMs: performance.now() - started });
    }
  };
}
