// The routes outside the documents, and the HTTP edge's error shapes, on every database.
import { expect } from 'chai';
import { parse } from 'yaml';
import { migrateToLatest, migratorConfig } from '../../src/storage/migrations/index.js';
import { call } from '../support/contract.js';
import { onEachDatabase } from '../support/test-server.js';

onEachDatabase('operations routes and HTTP edge', (app) => {
  it('answers /healthz and /readyz once migrations are applied', async () => {
    const health = await call(app().url, 'GET', '/healthz');
    expect(health.status).to.equal(200);
    expect(health.body).to.deep.equal({ status: 'ok' });
    const ready = await call(app().url, 'GET', '/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body.status).to.equal('ok');
  });

  it('keeps idle connections longer than the 5 s between an OTLP exporter\'s batches', async () => {
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
    expect(page.text).to.include('/openapi/engine.json').and.include('/openapi/management.json');
    expect(page.text).not.to.match(/https?:\/\//);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js']) {
      const response = await call(app().url, 'GET', `/docs/assets/${asset}`);
      expect(response.status, asset).to.equal(200);
      expect(response.text.length, asset).to.be.greaterThan(1000);
    }
    const missing = await call(app().url, 'GET', '/docs/assets/..%2Fpackage.json');
    expect(missing.status).to.equal(404);
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
    const malformed = await call(app().url, 'POST', '/organizations', {
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
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
