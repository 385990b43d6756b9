// Translates the service's errors into gRPC statuses, in one place, as the OTLP specification
// asks: only UNAVAILABLE, and RESOURCE_EXHAUSTED of a used-up quota, are retryable (with
// google.rpc.RetryInfo saying when), every client error is a status the exporter does not retry,
// and nothing a client sends is UNKNOWN.
import { Metadata, status as Status, type ServerErrorResponse } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import {
  ConflictError,
  MalformedRequestError,
  NotAuthenticatedError,
  NotFoundError,
  OAuthError,
  PermissionDeniedError,
  QuotaExceededError,
  RequestValidationError,
  ServiceError,
  TooLargeError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import { isDatabaseUnavailable } from '../storage/unavailable.js';

/** The gRPC status of each of our failures, as an OTLP exporter expects it. */
const STATUS_OF: Array<[new (...args: never[]) => ServiceError, Status]> = [
  [RequestValidationError, Status.INVALID_ARGUMENT],
  [MalformedRequestError, Status.INVALID_ARGUMENT],
  [UnsupportedMediaTypeError, Status.INVALID_ARGUMENT],
  [NotAuthenticatedError, Status.UNAUTHENTICATED],
  [OAuthError, Status.UNAUTHENTICATED],
  [PermissionDeniedError, Status.PERMISSION_DENIED],
  [NotFoundError, Status.NOT_FOUND],
  [ConflictError, Status.FAILED_PRECONDITION],
  // A message over the limit: never retried (RESOURCE_EXHAUSTED is retryable only with RetryInfo).
  [TooLargeError, Status.RESOURCE_EXHAUSTED],
];

const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * A google.rpc.Status carrying one google.rpc.RetryInfo, the `grpc-status-details-bin` trailer
 * OTLP names for "retry after". Written by hand (five fields) rather than from vendored protos.
 */
export function retryStatusDetails(code: Status, message: string, retryDelaySeconds: number): Buffer {
  const duration = protobuf.Writer.create().uint32(8).int64(retryDelaySeconds).finish(); // Duration.seconds
  const retryInfo = protobuf.Writer.create().uint32(10).bytes(duration).finish(); // RetryInfo.retry_delay
  const any = protobuf.Writer.create().uint32(10).string(RETRY_INFO_TYPE).uint32(18).bytes(retryInfo).finish(); // Any
  const status = protobuf.Writer.create().uint32(8).int32(code).uint32(18).string(message).uint32(26).bytes(any).finish();
  return Buffer.from(status.buffer, status.byteOffset, status.byteLength);
}

/** A status the exporter retries after the RetryInfo's delay. */
function retryable(code: Status, message: string, retryAfterSeconds: number): ServerErrorResponse {
  const metadata = new Metadata();
  metadata.set('grpc-status-details-bin', retryStatusDetails(code, message, retryAfterSeconds));
  return Object.assign(new Error(message), { code, details: message, metadata });
}

function unavailable(message: string, retryAfterSeconds: number): ServerErrorResponse {
  return retryable(Status.UNAVAILABLE, message, retryAfterSeconds);
}

/**
 * The gRPC error for a failed export. Anything else than our errors and a database outage is a
 * bug of ours: INTERNAL, like HTTP's 500, with the cause left to the log.
 */
export function grpcErrorOf(error: unknown): ServerErrorResponse {
  if (error instanceof UnavailableError) return unavailable(error.message, error.retryAfterSeconds);
  // HTTP's 429: OTLP exporters retry RESOURCE_EXHAUSTED only when RetryInfo says when.
  if (error instanceof QuotaExceededError) return retryable(Status.RESOURCE_EXHAUSTED, error.message, error.retryAfterSeconds);
  if (error instanceof ServiceError) {
    const code = STATUS_OF.find(([type]) => error instanceof type)?.[1] ?? Status.INTERNAL;
    return Object.assign(new Error(error.message), { code, details: error.message });
  }
  if (isDatabaseUnavailable(error)) return unavailable('database unavailable, retry later', 5);
  return Object.assign(new Error('internal error'), { code: Status.INTERNAL, details: 'internal error' });
}
