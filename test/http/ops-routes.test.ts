// The routes outside the documents, and the HTTP edge's error shapes, on every database.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { parse } from 'yaml';
import { createApp } from '../../src/http/app.js';
import { HttpMetrics } from '../../src/ops/metrics.js';
import { migrateToLatest, migratorConfig } from '../../src/storage/migrations/index.js';
import { seedApplication, seedOrganization, seedUser } from '../support/accounts.js';
import { call } from '../support/contract.js';
import { onEachDatabase } from '../support/test-server.js';
import { sqlSpanStore } from '../../src/storage/spans/sql-span-store.js';

interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  examples?: unknown;
  schema?: { example?: unknown; examples?: unknown };
}

/** Every parameter object a document declares, in its components and in its paths. */
function parametersOf(document: {
  components?: { parameters?: Record<string, Parameter> };
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
}): Parameter[] {
  const inPaths = Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.parameters ?? []));
  return [...Object.values(document.components?.parameters ?? {}), ...inPaths].filter((parameter) => parameter.name !== undefined);
}

const hasIdExample = (parameter: Parameter): boolean =>
  /(^|[_-])id$|^api_key$/i.test(parameter.name) &&
  [parameter.example, parameter.examples, parameter.schema?.example, parameter.schema?.examples].some((value) => value !== undefined);

/** The value Swagger UI puts in a parameter's field on Try it out: its example, else its default. */
function prefilled(parameter: Parameter & { schema?: { default?: unknown } }): unknown {
  const named = Object.values((parameter.examples ?? {}) as Record<string, { value?: unknown }>)[0]?.value;
  return named ?? parameter.example ?? parameter.schema?.example ?? parameter.schema?.default;
}

onEachDatabase('operations routes and HTTP edge', (app) => {
  it('answers /healthz and /readyz once migrations are applied', async () => {
    const health = await call(app().url, 'GET', '/healthz');
    expect(health.status).to.equal(200);
    expect(health.body).to.deep.equal({ status: 'ok' });
    const ready = await call(app().url, 'GET', '/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body.status).to.equal('ok');
  });

  it("keeps idle connections longer than the 5 s between an OTLP exporter's batches", async () => {
    const health = await call(app().url, 'GET', '/healthz');
    // Node announces the idle timeout it enforces; its default (5 s) would race the exporters.
    expect(health.headers.get('keep-alive')).to.equal('timeout=65');
  });

  it('says /readyz is unavailable while migrations are pending', async () => {
    await app().server.knex.migrate.rollback(migratorConfig, true);
    try {
      const ready = await call(app().url, 'GET', '/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.body.detail).to.match(/migrations/);
    } finally {
      await migrateToLatest(app().server.knex);
    }
  });

  it('says /readyz is unavailable while configured OTLP/gRPC ingestion is not listening', async () => {
    const { config, server } = app();
    const koa = await createApp({
      config,
      knex: server.knex,
      spans: sqlSpanStore(server.knex),
      logger: server.logger,
      tokens: server.tokens,
      prices: server.prices,
      metrics: new HttpMetrics(),
      grpcListening: () => false,
    });
    const edge = http.createServer(koa.callback());
    await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
    try {
      const ready = await call(`http://127.0.0.1:${(edge.address() as AddressInfo).port}`, 'GET', '/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.body.detail).to.match(/gRPC/);
    } finally {
      edge.closeAllConnections();
      await new Promise<void>((resolve) => edge.close(() => resolve()));
    }
  });

  it('serves both documents as JSON and YAML, with the same content', async () => {
    for (const name of ['engine', 'management']) {
      const json = await call(app().url, 'GET', `/openapi/${name}.json`);
      const yaml = await call(app().url, 'GET', `/openapi/${name}.yaml`);
      expect(json.status).to.equal(200);
      expect(yaml.status).to.equal(200);
      expect(yaml.headers.get('content-type')).to.match(/yaml/);
      expect(json.body.openapi).to.equal('3.1.0');
      expect(parse(yaml.text)).to.deep.equal(json.body);
    }
  });

  it('serves the docs page with its assets from the local package, not a CDN', async () => {
    const page = await call(app().url, 'GET', '/docs');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('/docs/openapi/engine.json').and.include('/docs/openapi/management.json');
    expect(page.text).not.to.match(/https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js']) {
      const response = await call(app().url, 'GET', `/docs/assets/${asset}`);
      expect(response.status, asset).to.equal(200);
      expect(response.text.length, asset).to.be.greaterThan(1000);
    }
    const missing = await call(app().url, 'GET', '/docs/assets/..%2Fpackage.json');
    expect(missing.status).to.equal(404);
  });

  it("gives the docs page copies of the documents whose server is the page's own origin, as koa reads it behind a proxy", async () => {
    for (const name of ['engine', 'management']) {
      const direct = await call(app().url, 'GET', `/docs/openapi/${name}.json`);
      expect(direct.status).to.equal(200);
      expect(direct.body.servers.map((server: { url: string }) => server.url)).to.deep.equal([app().url]);
      const proxied = await call(app().url, 'GET', `/docs/openapi/${name}.json`, {
        headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'traces.example.com:8443' },
      });
      expect(proxied.body.servers.map((server: { url: string }) => server.url)).to.deep.equal(['https://traces.example.com:8443']);
      const original = await call(app().url, 'GET', `/openapi/${name}.json`);
      expect(original.body.servers, 'what integrators generate clients from is unchanged').to.deep.equal(
        parse(fs.readFileSync(`openapi/${name}.yaml`, 'utf8')).servers,
      );
    }
  });

  it('pre-fills Try it out with a window ending now and no id of a resource that cannot exist', async () => {
    const before = Date.now();
    for (const name of ['engine', 'management']) {
      const original = parametersOf((await call(app().url, 'GET', `/openapi/${name}.json`)).body);
      const variant = parametersOf((await call(app().url, 'GET', `/docs/openapi/${name}.json`)).body);
      expect(original.filter(hasIdExample), `the written ${name} document has id examples`).not.to.be.empty;
      expect(
        variant.filter(hasIdExample).map((parameter) => parameter.name),
        name,
      ).to.deep.equal([]);
      for (const parameter of variant.filter((entry) => entry.name === 'start_time')) {
        expect(Date.parse(parameter.example as string)).to.be.within(before - 86_400_000 - 1000, Date.now() - 86_400_000);
      }
      for (const parameter of variant.filter((entry) => entry.name === 'end_time')) {
        expect(Date.parse(parameter.example as string)).to.be.greaterThan(Date.now());
      }
      // Request bodies name where an id goes (a 422 on that field) rather than one that cannot exist (a 404).
      const { body: document } = await call(app().url, 'GET', `/docs/openapi/${name}.json`);
      const bodyIds = Object.values(
        document.paths as Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>>,
      )
        .flatMap((item) =>
          Object.values(item).flatMap((operation) => Object.values(operation.requestBody?.content ?? {}).map((media) => media.example)),
        )
        .flatMap((example) =>
          Object.entries(typeof example === 'object' && example !== null ? example : {}).filter(([key]) =>
            /^(org|organization|app|application|user|client)_id$|^api_key$/.test(key),
          ),
        );
      for (const [key, value] of bodyIds) expect(value, key).to.equal(`<${key}>`);
    }
  });

  it('lets Try it out send the export example and find its spans with the pre-filled window', async () => {
    const { body: variant } = await call(app().url, 'GET', '/docs/openapi/engine.json');
    const owner = await seedUser(app(), 'docs');
    const appId = await seedApplication(app().server.knex, await seedOrganization(app().server.knex, [[owner.userId, 'owner']]));
    const exported = await call(app().url, 'POST', '/v1/traces', {
      token: owner.token,
      headers: { 'X-Vendor-App-Id': appId },
      json: variant.paths['/v1/traces'].post.requestBody.content['application/json'].example,
    });
    expect(exported.status).to.equal(200);
    const window = Object.fromEntries(
      parametersOf(variant)
        .filter((entry) => entry.name === 'start_time' || entry.name === 'end_time')
        .map((entry) => [entry.name, entry.example as string]),
    );
    const found = await call(app().url, 'POST', '/engine/query', {
      token: owner.token,
      headers: { 'X-Vendor-App-Id': appId },
      query: window,
      json: {},
    });
    expect(found.status).to.equal(200);
    expect(found.body.total).to.be.greaterThan(0);
  });

  it('pre-fills only what works: each read, the export and the writes, sent with every value Try it out fills in, answer their success', async () => {
    const owner = await seedUser(app(), 'prefill');
    const orgId = await seedOrganization(app().server.knex, [[owner.userId, 'owner']]);
    const appId = await seedApplication(app().server.knex, orgId);
    // What a person types where the page leaves a field empty (or shows `<organization_id>`): the ids of their own resources.
    const typed: Record<string, string> = { 'X-Vendor-App-Id': appId, app_id: appId, org_id: orgId, organization_id: orgId };
    const operations: Array<[document: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT', path: string, success: number, media?: string]> = [
      ['engine', 'POST', '/engine/query', 200],
      ['engine', 'POST', '/traces', 200],
      ['engine', 'POST', '/engine/metrics', 200],
      ['engine', 'POST', '/engine/analytics', 200],
      ['engine', 'GET', '/traces/live', 200],
      ['engine', 'POST', '/v1/traces', 200, 'application/json'],
      ['management', 'GET', '/organizations', 200],
      ['management', 'GET', '/organizations/{org_id}/members', 200],
      ['management', 'GET', '/applications', 200],
      ['management', 'GET', '/api-keys', 200],
      ['management', 'POST', '/organizations', 201],
      ['management', 'PATCH', '/organizations/{org_id}', 200],
      ['management', 'POST', '/applications', 201],
      ['management', 'PATCH', '/applications/{app_id}', 200],
      ['management', 'POST', '/api-keys', 201],
      ['management', 'POST', '/organizations/{org_id}/members', 201],
      ['management', 'PUT', '/users', 200],
    ];
    for (const [name, method, path, success, media = 'application/json'] of operations) {
      const { body: variant } = await call(app().url, 'GET', `/docs/openapi/${name}.json`);
      const operation = variant.paths[path][method.toLowerCase()];
      const query: Record<string, string> = {};
      const headers: Record<string, string> = {};
      for (const listed of operation.parameters ?? []) {
        const parameter: Parameter & { required?: boolean; schema?: { default?: unknown } } =
          '$ref' in listed ? variant.components.parameters[listed.$ref.split('/').pop()] : listed;
        const value = typed[parameter.name] ?? prefilled(parameter);
        if (value === undefined) continue;
        if (parameter.in === 'query') query[parameter.name] = String(value);
        if (parameter.in === 'header') headers[parameter.name] = String(value);
      }
      const content = operation.requestBody?.content?.[media];
      const example =
        content === undefined
          ? undefined
          : (content.example ?? (Object.values(content.examples ?? {})[0] as { value?: unknown } | undefined)?.value);
      const body =
        example === undefined
          ? undefined
          : JSON.parse(
              JSON.stringify(example).replace(/"<(\w+)>"/g, (placeholder, id: string) =>
                id in typed ? JSON.stringify(typed[id]) : placeholder,
              ),
            );
      const filledPath = path.replace(/\{(\w+)\}/g, (_, id: string) => typed[id] as string);
      const response = await call(app().url, method, filledPath, {
        token: owner.token,
        headers,
        query,
        ...(body === undefined ? {} : { json: body }),
      });
      expect(
        response.status,
        `${method} ${path}?${new URLSearchParams(query)} ${JSON.stringify(headers)}: ${response.text.slice(0, 300)}`,
      ).to.equal(success);
    }
  });

  it('exposes Prometheus metrics with requests counted by operation and status', async () => {
    await call(app().url, 'POST', '/engine/query', { query: { limit: 0 } });
    const metrics = await call(app().url, 'GET', '/metrics');
    expect(metrics.status).to.equal(200);
    expect(metrics.headers.get('content-type')).to.match(/text\/plain/);
    expect(metrics.text).to.match(/spanledger_http_requests_total\{operation="querySpans",method="POST",status="401"\} \d+/);
    expect(metrics.text).to.include('spanledger_http_request_duration_seconds_bucket');
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await call(app().url, 'GET', '/healthz', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).to.equal('abc-123');
    const invented = await call(app().url, 'GET', '/healthz', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(invented.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown path with 404 and a wrong method with 405, both in the error shape', async () => {
    const unknown = await call(app().url, 'GET', '/no/such/path');
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({ detail: 'Not Found' });
    const wrongMethod = await call(app().url, 'DELETE', '/engine/query');
    expect(wrongMethod.status).to.equal(405);
    expect(wrongMethod.body).to.deep.equal({ detail: 'Method Not Allowed' });
    const wrongOpsMethod = await call(app().url, 'POST', '/healthz');
    expect(wrongOpsMethod.status).to.equal(405);
    expect(wrongOpsMethod.body).to.deep.equal({ detail: 'Method Not Allowed' });
  });

  it('answers malformed JSON with 422 on ["body"] and an over-large body with 413', async () => {
    // The body is judged once the caller is known; without credentials both would be a 401.
    const { token } = await seedUser(app(), 'malformed');
    const malformed = await call(app().url, 'POST', '/organizations', {
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
      token,
    });
    expect(malformed.status).to.equal(422);
    expect(malformed.body.detail[0].loc).to.deep.equal(['body']);
    expect(malformed.body.detail[0].type).to.equal('json_invalid');
    const huge = await call(app().url, 'POST', '/organizations', {
      rawBody: JSON.stringify({ name: 'x'.repeat(app().config.jsonBodyLimitBytes + 10) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).to.equal(413);
    expect(huge.body.detail).to.be.a('string');
  });
});
