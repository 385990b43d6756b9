// Composes the HTTP edge: request context, metrics, error translation, body parsing,
// the routes outside the documents, then the OpenAPI dispatcher.
import Koa from 'koa';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { buildApi, dispatchTo, type BuiltApi } from '../api/build-api.js';
import { loadDocument } from '../api/documents.js';
import { engineHandlers } from '../engine/handlers.js';
import { refineFilterIssues } from '../engine/refine-filter-issues.js';
import { managementHandlers } from '../management/handlers.js';
import { HttpMetrics } from '../ops/metrics.js';
import { opsRoutes } from '../ops/routes.js';
import { jsonBodyParser } from './body-parser.js';
import { errorMiddleware } from './error-middleware.js';
import { requestContext } from './request-context.js';

export interface AppDeps {
  config: Config;
  knex: Knex;
  logger: Logger;
}

async function buildApis(config: Config): Promise<BuiltApi[]> {
  const apis: BuiltApi[] = [];
  if (config.apis.includes('engine')) apis.push(await buildApi(loadDocument('engine'), engineHandlers(), refineFilterIssues));
  if (config.apis.includes('management')) apis.push(await buildApi(loadDocument('management'), managementHandlers()));
  return apis;
}

export async function createApp({ config, knex, logger }: AppDeps): Promise<Koa> {
  const app = new Koa();
  app.proxy = true;
  const metrics = new HttpMetrics();
  const ops = opsRoutes({ apis: config.apis, knex, metrics });
  app.use(requestContext(logger));
  app.use(metrics.middleware());
  app.use(errorMiddleware(logger));
  app.use(jsonBodyParser(config.jsonBodyLimitBytes));
  app.use(ops.routes());
  app.use(dispatchTo(await buildApis(config)));
  // Koa logs errors that reach it; ours never do, but keep stray ones in the structured log.
  app.on('error', (error: unknown) => logger.error({ err: error }, 'koa error'));
  return app;
}
