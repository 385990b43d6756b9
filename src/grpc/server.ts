// Owns the OTLP/gRPC listener: binds it, serves TraceService/Export, reports whether it is
// listening (for /readyz) and shuts it down gracefully (in-flight exports finish first).
import { Server, ServerCredentials, setLogger, status as Status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { GrpcConfig } from '../config.js';
import type { HttpMetrics } from '../ops/metrics.js';
import { libraryRefusals } from './library-refusals.js';
import { EXPORT_METHOD, credentialsRefusal, exportHandler, type CallOutcome } from './trace-service.js';

const EXPORT_METRIC_METHOD = 'TraceService/Export';

export interface GrpcListener {
  /** The port bound (the configured one, or the one picked for 0). */
  port: number;
  listening(): boolean;
  /** Stops accepting calls; in-flight ones finish, and are cut after timeoutMs. */
  close(timeoutMs: number): Promise<void>;
}

/** A listen failure of the gRPC port, with the errno code (grpc-js only puts it in its message). */
export class GrpcListenError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'GrpcListenError';
  }
}

function bindAddress({ host, port }: GrpcConfig): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function bind(server: Server, config: GrpcConfig): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(bindAddress(config), ServerCredentials.createInsecure(), (error, port) => {
      if (!error) return resolve(port);
      const code = /\b(EADDRINUSE|EACCES|EADDRNOTAVAIL)\b/.exec(error.message)?.[1];
      reject(new GrpcListenError(error.message, code));
    });
  });
}

export async function startGrpcServer(config: GrpcConfig, deps: ServiceDeps, metrics: HttpMetrics): Promise<GrpcListener> {
  const log: Logger = deps.logger.child({ transport: 'grpc' });
  // grpc-js writes its own diagnostics to the console (a failed bind among them, which the
  // start reports in one line itself): into the structured log instead, for debugging.
  const library = log.child({ component: 'grpc-js' });
  setLogger({ error: (...args: unknown[]) => library.debug(args.map(String).join(' ')) });
  const report = ({ code, authFailure, durationMs }: CallOutcome) => {
    metrics.countGrpcCall(EXPORT_METRIC_METHOD, Status[code] ?? String(code));
    log.info(
      { method: EXPORT_METRIC_METHOD, code: Status[code], auth_failure: authFailure, duration_ms: Math.round(durationMs * 100) / 100 },
      'request',
    );
  };
  const server = new Server({
    // The size limit of POST /v1/traces; grpc-js applies it after decompression too and
    // answers RESOURCE_EXHAUSTED.
    'grpc.max_receive_message_length': deps.config.ingestBodyLimitBytes,
    interceptors: [libraryRefusals(report, credentialsRefusal(deps))],
  });
  const handler = exportHandler(deps, log, report);
  server.addService({ Export: EXPORT_METHOD }, { Export: handler });
  const port = await bind(server, config);
  let listening = true;
  return {
    port,
    listening: () => listening,
    close(timeoutMs) {
      listening = false;
      return new Promise<void>((resolve) => {
        const timeout = setTimeout(() => server.forceShutdown(), timeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timeout);
          resolve();
        });
      });
    },
  };
}
