// A plain grpc-js client for OTLP/gRPC tests: one TraceService/Export call, bytes in and bytes
// out, optionally with the standard gRPC retry policy; a bare HTTP/2 call for what no gRPC
// client sends (a message flagged compressed that is not, a malformed header); and readers for what the service says
// (google.rpc.RetryInfo in grpc-status-details-bin, the gRPC counter in /metrics).
import http2 from 'node:http2';
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { EXPORT_PATH } from '../../src/grpc/trace-service.js';

export function metadataOf(headers: Record<string, string>): Metadata {
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(headers)) metadata.set(name.toLowerCase(), value);
  return metadata;
}

export interface RawAnswer {
  error: ServiceError | null;
  response: Buffer | undefined;
}

export interface RawExportOptions {
  gzip?: boolean;
  /** Retry UNAVAILABLE as gRPC clients configured for it do (the Collector's otlp exporter retries it too). */
  retryUnavailable?: boolean;
}

const RETRY_UNAVAILABLE = {
  methodConfig: [
    {
      name: [{ service: 'opentelemetry.proto.collector.trace.v1.TraceService' }],
      retryPolicy: {
        maxAttempts: 5,
        initialBackoff: '0.5s',
        maxBackoff: '2s',
        backoffMultiplier: 2,
        retryableStatusCodes: ['UNAVAILABLE'],
      },
    },
  ],
};

/** One Export call; `address` is host:port. */
export function rawExport(
  address: string,
  body: Uint8Array,
  headers: Record<string, string>,
  options: RawExportOptions = {},
): Promise<RawAnswer> {
  const client = new Client(address, credentials.createInsecure(), {
    'grpc.default_compression_algorithm': options.gzip ? 2 : 0,
    ...(options.retryUnavailable ? { 'grpc.service_config': JSON.stringify(RETRY_UNAVAILABLE) } : {}),
  });
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      EXPORT_PATH,
      (bytes: Buffer) => bytes,
      (bytes: Buffer) => bytes,
      Buffer.from(body),
      metadataOf(headers),
      { deadline: Date.now() + 30_000 },
      (error, response) => {
        client.close();
        resolve({ error, response });
      },
    );
  });
}

export interface Http2Answer {
  /** The grpc-status trailer (or header, for a trailers-only answer). */
  code: number;
  details: string;
}

/**
 * One Export call made by hand over HTTP/2: `message` is framed as sent (with the compressed flag
 * when `compressed`), whatever it holds; `headers` add to or replace the gRPC request headers.
 */
export function http2Export(
  address: string,
  message: Uint8Array,
  headers: Record<string, string>,
  compressed = false,
): Promise<Http2Answer> {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt8(compressed ? 1 : 0, 0);
  frame.writeUInt32BE(message.length, 1);
  Buffer.from(message).copy(frame, 5);
  const session = http2.connect(`http://${address}`);
  return new Promise((resolve, reject) => {
    const request = session.request({
      ':method': 'POST',
      ':path': EXPORT_PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let answer: http2.IncomingHttpHeaders = {};
    request.on('response', (received) => (answer = { ...answer, ...received }));
    request.on('trailers', (received) => (answer = { ...answer, ...received }));
    request.on('data', () => undefined);
    request.on('end', () => {
      session.close();
      resolve({ code: Number(answer['grpc-status']), details: decodeURIComponent(String(answer['grpc-message'] ?? '')) });
    });
    request.on('error', (error) => {
      session.close();
      reject(error);
    });
    request.end(frame);
  });
}

const STATUS_DETAILS = protobuf.Root.fromJSON({
  nested: {
    Status: {
      fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 }, details: { rule: 'repeated', type: 'Any', id: 3 } },
    },
    Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
    RetryInfo: { fields: { retry_delay: { type: 'Duration', id: 1 } } },
    Duration: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
  },
});

/** The delay of the google.rpc.RetryInfo in the error's grpc-status-details-bin, if there is one. */
export function retryDelaySeconds(error: ServiceError): number | undefined {
  const details = error.metadata.get('grpc-status-details-bin')[0];
  if (!Buffer.isBuffer(details)) return undefined;
  const read = <T>(type: string, bytes: Uint8Array) =>
    STATUS_DETAILS.lookupType(type).toObject(STATUS_DETAILS.lookupType(type).decode(bytes), { longs: Number }) as T;
  const status = read<{ code: number; details?: Array<{ type_url: string; value: Uint8Array }> }>('Status', details);
  const retry = status.details?.find((detail) => detail.type_url === 'type.googleapis.com/google.rpc.RetryInfo');
  if (!retry || status.code !== error.code) return undefined;
  return read<{ retry_delay: { seconds: number } }>('RetryInfo', retry.value).retry_delay.seconds;
}

/** How many exports a service (its HTTP base URL) has answered with `code`, from /metrics. */
export async function grpcCallCount(url: string, code: string): Promise<number> {
  const metrics = await fetch(new URL('/metrics', url)).then((response) => response.text());
  return Number(
    new RegExp(`spanledger_grpc_requests_total\\{method="TraceService/Export",code="${code}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0,
  );
}

/** Resolves once the service has answered `code` more often than `before` (polled, no fixed wait). */
export async function untilMoreCalls(url: string, code: string, before: number): Promise<void> {
  while ((await grpcCallCount(url, code)) <= before) await new Promise((resolve) => setTimeout(resolve, 20));
}
