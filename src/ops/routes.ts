// Routes outside the OpenAPI documents: health, readiness, metrics, the documents themselves
// and the human docs page (assets from the swagger-ui-dist package: no CDN, no internet).
import fs from 'node:fs';
import path from 'node:path';
import Router, { type RouterContext } from '@koa/router';
import type { Knex } from 'knex';
import swaggerUiDist from 'swagger-ui-dist';
import type { ApiName } from '../config.js';
import { loadDocument } from '../api/documents.js';
import { docsVariant } from './docs-variant.js';
import { migrationsAreCurrent } from '../storage/migrations/index.js';
import { NotFoundError } from '../errors.js';
import type { HttpMetrics } from './metrics.js';

const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

function docsPage(apis: ApiName[]): string {
  // The docs-only copies: "Try it out" calls the origin the page came from, with examples that work now.
  const urls = apis.map((name) => ({ url: `/docs/openapi/${name}.json`, name: `spanledger ${name} API` }));
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>spanledger API documentation</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      urls: ${JSON.stringify(urls)},
      dom_id: '#swagger-ui',
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
      persistAuthorization: true,
    });
  </script>
</body>
</html>`;
}

export interface OpsRouteDeps {
  apis: ApiName[];
  knex: Knex;
  metrics: HttpMetrics;
  grpcListening?: () => boolean;
}

export function opsRoutes({ apis, knex, metrics, grpcListening = () => true }: OpsRouteDeps): Router {
  const router = new Router();
  const assetDir = swaggerUiDist.getAbsoluteFSPath();
  const name = (route: string) => async (ctx: RouterContext, next: () => Promise<unknown>) => {
    ctx.state.route = route;
    await next();
  };

  router.get('/healthz', name('healthz'), (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', name('readyz'), async (ctx) => {
    if (!grpcListening()) {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', detail: 'OTLP/gRPC ingestion is not listening' };
      return;
    }
    try {
      await knex.raw('select 1');
      if (!(await migrationsAreCurrent(knex))) {
        ctx.status = 503;
        ctx.body = { status: 'unavailable', detail: 'database migrations are pending' };
        return;
      }
      ctx.body = { status: 'ok' };
    } catch (error) {
      ctx.state.log?.warn({ err: error }, 'readiness check failed');
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = { status: 'unavailable', detail: 'database unreachable' };
    }
  });

  router.get('/metrics', name('metrics'), async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });

  for (const api of apis) {
    router.get(`/openapi/${api}.json`, name('openapi'), (ctx) => {
      ctx.body = loadDocument(api).definition;
    });
    router.get(`/openapi/${api}.yaml`, name('openapi'), (ctx) => {
      ctx.type = 'application/yaml; charset=utf-8';
      ctx.body = loadDocument(api).yaml;
    });
    router.get(`/docs/openapi/${api}.json`, name('docs'), (ctx) => {
      // Koa reads X-Forwarded-Proto/-Host only as far as app.proxy lets it. (Koa 3's ctx.origin
      // is the Origin request header, not this.)
      ctx.set('Cache-Control', 'no-store');
      ctx.body = docsVariant(loadDocument(api).definition, `${ctx.protocol}://${ctx.host}`, new Date());
    });
  }

  router.get('/docs', name('docs'), (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = docsPage(apis);
  });

  router.get('/docs/assets/:file', name('docs'), (ctx) => {
    const file = ctx.params.file as string;
    const type = SWAGGER_ASSETS[file];
    if (!type) throw new NotFoundError();
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(path.join(assetDir, file));
  });

  return router;
}
