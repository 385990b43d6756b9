// Prometheus metrics: requests by operationId and status, and a latency histogram; gRPC calls
// (OTLP ingestion) by method and status code. The registry is the one /metrics serves: the
// retention purger registers its counter there too.
import type { Context, Next } from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'spanledger_http_requests_total',
    help: 'HTTP requests by operation and status code',
    labelNames: ['operation', 'method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'spanledger_http_request_duration_seconds',
    help: 'HTTP request latency by operation',
    labelNames: ['operation'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly grpcRequests = new Counter({
    name: 'spanledger_grpc_requests_total',
    help: 'gRPC calls by method and status code',
    labelNames: ['method', 'code'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  middleware() {
    return async (ctx: Context, next: Next): Promise<void> => {
      const stopTimer = this.latency.startTimer();
      try {
        await next();
      } finally {
        // Unrouted paths share one label so a scan of random URLs cannot grow the series without bound.
        const operation = ctx.state.operationId ?? ctx.state.route ?? 'unmatched';
        stopTimer({ operation });
        this.requests.inc({ operation, method: ctx.method, status: String(ctx.status) });
      }
    };
  }

  /** `code` is the status name (OK, UNAVAILABLE, …); `method` one of the few the server serves. */
  countGrpcCall(method: string, code: string): void {
    this.grpcRequests.inc({ method, code });
  }
}
