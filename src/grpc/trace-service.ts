// opentelemetry.proto.collector.trace.v1.TraceService/Export: OTLP over gRPC. The same steps as
// POST /v1/traces (src/engine/export-traces.ts) with metadata for headers: authentication,
// the operation's authorization rule read from the engine document, the protobuf decoder and
// the one ingestion service. Only the transport differs.
import { status as Status, type Metadata, type MethodDefinition, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import type { Context as KoaContext } from 'koa';
import type { Logger } from 'pino';
import type { Context as OpenApiContext } from 'openapi-backend';
import { loadDocument } from '../api/documents.js';
import type { ServiceDeps } from '../api/service-deps.js';
import { authenticate } from '../auth/authenticate.js';
import { authorizeAccess, operationAccess, type OperationAccess } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import { RequestValidationError } from '../http/errors.js';
import { ingestTraces } from '../ingest/ingest-traces.js';
import { decodeProtobufRequest, encodeProtobufResponse } from '../ingest/otlp-protobuf.js';
import type { PartialSuccess } from '../ingest/otlp-request.js';
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

/** POST /v1/traces's rule (permission, principals, role), read from the engine document. */
function exportTracesAccess(): OperationAccess {
  const operation = loadDocument('engine').definition.paths?.['/v1/traces']?.post;
  const access = operation && operationAccess(operation as OpenApiContext['operation']);
  if (!access) throw new Error('the engine document declares no access rule for POST /v1/traces');
  return access;
}

function metadataText(metadata: Metadata, name: string): string {
  const value = metadata.get(name)[0];
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * The Authorization check of HTTP ingestion, given the metadata value. authenticate reads a Koa
 * context; this one carries only what it reads (the header) and writes (the failure reason).
 */
async function authenticateMetadata(deps: ServiceDeps, metadata: Metadata, state: Record<string, unknown>): Promise<Principal> {
  const authorization = metadataText(metadata, 'authorization');
  const ctx = { get: (name: string) => (name.toLowerCase() === 'authorization' ? authorization : ''), state } as unknown as KoaContext;
  return authenticate(ctx, deps.knex, deps.tokens);
}

/** The application the spans are for: x-vendor-app-id, which HTTP requires as a header too. */
function applicationIdOf(metadata: Metadata): string {
  const applicationId = metadataText(metadata, 'x-vendor-app-id');
  if (!applicationId) throw new RequestValidationError([{ loc: ['metadata', 'x-vendor-app-id'], msg: 'x-vendor-app-id metadata is required', type: 'missing' }]);
  return applicationId;
}

/** What a finished call reports to the log and the metrics. */
export interface CallOutcome {
  code: Status;
  /** Why authentication refused the call, as on a 401's access-log line. */
  authFailure: unknown;
  durationMs: number;
}

export function exportHandler(deps: ServiceDeps, log: Logger, finished: (outcome: CallOutcome) => void) {
  const access = exportTracesAccess();
  return async (call: ServerUnaryCall<Buffer, ExportReply>, callback: sendUnaryData<ExportReply>): Promise<void> => {
    const started = performance.now();
    const state: Record<string, unknown> = {};
    let code: Status = Status.OK;
    try {
      const principal = await authenticateMetadata(deps, call.metadata, state);
      const applicationId = applicationIdOf(call.metadata);
      await authorizeAccess(deps.knex, principal, access, { kind: 'application', id: applicationId, viaHeader: true });
      const request = decodeProtobufRequest(call.request);
      // Answered only once ingestTraces has committed the spans, as over HTTP.
      const partialSuccess = await ingestTraces(deps.knex, applicationId, request, log);
      callback(null, { partialSuccess });
    } catch (error) {
      const failure = grpcErrorOf(error);
      code = failure.code ?? Status.INTERNAL;
      if (code === Status.INTERNAL) log.error({ err: error }, 'gRPC export failed');
      callback(failure);
    } finally {
      finished({ code, authFailure: state.authFailure, durationMs: performance.now() - started });
    }
  };
}
