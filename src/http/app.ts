// Composes the HTTP edge: request context, metrics, error translation, body parsing,
// the routes outside the documents (operations, dashboard, MCP), then the OpenAPI dispatcher.
import Koa from 'koa';
import type { Knex } from 'knex';
import type { SpanStore } from '../storage/spans/span-store.js';
import type { IngestActivity } from '../ingest/ingest-activity.js';
import type { PriceEntryCache } from '../pricing/price-entry-cache.js';
import type { Logger } from 'pino';
import type { Context as OpenApiContext } from 'openapi-backend';
import type { ServiceDeps } from '../operations/service-deps.js';
import { authorize } from '../auth/authorize.js';
import type { TokenService } from '../auth/tokens.js';
import type { Config } from '../config.js';
import { managementRequestFailures } from '../management/validation-failures.js';
import { buildApi, type BuiltApi } from '../api/build-api.js';
import { dispatchTo } from './dispatch.js';
import { NotImplementedError } from './edge-errors.js';
import { loadDocument } from '../api/documents.js';
import { engineHandlers } from '../engine/handlers.js';
import { refineFilterIssues } from '../engine/refine-filter-issues.js';
import { managementHandlers } from '../management/handlers.js';
import { refineManagementIssues } from '../management/refine-issues.js';
import type { HttpMetrics } from '../ops/metrics.js';
import { opsRoutes } from '../ops/routes.js';
import { mcpRoutes } from '../mcp/routes.js';
import { dashboardRoutes } from '../dashboard/routes.js';
import { DashboardSessions } from '../dashboard/sessions.js';
import { dashboardSettings } from '../dashboard/settings.js';
import { authenticateRequest } from './authenticate-request.js';
import { jsonBodyParser } from './body-parser.js';
import { logKoaError } from './client-disconnect.js';
import { errorMiddleware } from './error-middleware.js';
import { requestContext } from './request-context.js';

export interface AppDeps {
  config: Config;
  knex: Knex;
  /** The span store on `knex` (ServiceDeps). */
  spans: SpanStore;
  logger: Logger;
  tokens: TokenService;
  /** The /metrics registry's owner; the server shares it with the gRPC listener and the retention purger. */
  metrics: HttpMetrics;
  /** For /readyz: false while OTLP/gRPC ingestion is configured but not listening. */
  grpcListening?: () => boolean;
  /** The service's clock (ServiceDeps); Date.now when absent. */
  clock?: () => number;
  /** The process's ingestion (ServiceDeps); not tracked when absent. */
  ingestActivity?: IngestActivity;
  /** The organizations' price entries (ServiceDeps), shared with the gRPC listener. */
  prices: PriceEntryCache;
}

async function buildApis(deps: ServiceDeps): Promise<BuiltApi[]> {
  const { config, knex, tokens } = deps;
  const security = {
    notImplemented: (operationId: string) => new NotImplementedError(operationId),
    authenticate: async (ctx: Koa.Context, operation: OpenApiContext['operation']) => {
      ctx.state.principal = await authenticateRequest(ctx, operation, { knex, tokens });
      return ctx.state.principal;
    },
    authorize: async (request: OpenApiContext, ctx: Koa.Context) => {
      const { principal } = ctx.state;
      if (principal) ctx.state.scope = await authorize(knex, principal, request);
    },
  };
  const apis: BuiltApi[] = [];
  if (config.apis.includes('engine')) {
    apis.push(await buildApi(loadDocument('engine'), { ...security, handlers: engineHandlers(deps), refine: refineFilterIssues }));
  }
  if (config.apis.includes('management')) {
    apis.push(
      await buildApi(loadDocument('management'), {
        ...security,
        handlers: managementHandlers(deps),
        refine: refineManagementIssues,
        requestFailures: managementRequestFailures,
      }),
    );
  }
  return apis;
}

export async function createApp(deps: AppDeps): Promise<Koa> {
  const { config, knex, logger, metrics } = deps;
  const app = new Koa();
  app.proxy = true;
  const ops = opsRoutes({ apis: config.apis, knex, metrics, grpcListening: deps.grpcListening });
  app.use(requestContext(logger));
  app.use(metrics.middleware());
  app.use(errorMiddleware(logger));
  app.use(jsonBodyParser(config.jsonBodyLimitBytes));
  app.use(ops.routes());
  const sessions = new DashboardSessions(knex, deps.tokens, config.dashboard, deps.clock);
  app.use(dashboardRoutes({ knex, tokens: deps.tokens, settings: dashboardSettings(config), sessions, logger }).routes());
  // The MCP server's tools are the operations the served documents mark as read-only tools.
  if (config.apis.includes('engine')) {
    const more = config.apis.includes('management') ? [loadDocument('management').definition] : [];
    app.use(mcpRoutes(loadDocument('engine').definition, more, { knex, tokens: deps.tokens }).routes());
  }
  app.use(dispatchTo(await buildApis(deps), logger));
  // Koa logs errors that reach it: streamed responses that fail, a client leaving among them.
  app.on('error', logKoaError(logger));
  return app;
}
