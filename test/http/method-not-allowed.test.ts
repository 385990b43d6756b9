// Every 405 says which methods the path does support (`Allow`, RFC 9110 section 15.5.6), read
// from the same place the routing is: the documents and the operations router.
import { expect } from 'chai';
import { HttpMetrics } from '../../src/ops/metrics.js';
import { opsRoutes } from '../../src/ops/routes.js';
import { call, documentOperations } from '../support/contract.js';
import { engineCaller } from '../support/auth.js';
import { onEachDatabase } from '../support/test-server.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A concrete request path for a route template: every parameter becomes a plausible value. */
function concrete(template: string): string {
  return template
    .replace(/\{[^}]+\}/g, 'x_1')
    .replace(/:file\b/, 'swagger-ui.css')
    .replace(/:[a-z_]+/gi, 'x_1');
}

function allowOf(header: string | null): string[] {
  return (header ?? '')
    .split(',')
    .map((method) => method.trim())
    .filter(Boolean)
    .sort();
}

onEachDatabase('405 Method Not Allowed', (app) => {
  async function declaredMethods(): Promise<Map<string, Set<string>>> {
    const byPath = new Map<string, Set<string>>();
    const add = (path: string, method: string) => byPath.set(path, (byPath.get(path) ?? new Set()).add(method));
    // HEAD wherever GET (RFC 9110 §9.3.2), as the operations router does too.
    for (const { path, method } of await documentOperations()) {
      add(path, method);
      if (method === 'GET') add(path, 'HEAD');
    }
    const router = opsRoutes({ apis: app().config.apis, knex: app().server.knex, metrics: new HttpMetrics() });
    for (const layer of router.stack) for (const method of layer.methods) add(String(layer.path), method);
    return byPath;
  }

  it('carries Allow with exactly the methods the path supports, on every path of both documents and the operations routes', async () => {
    const checked: string[] = [];
    for (const [template, declared] of await declaredMethods()) {
      const path = concrete(template);
      for (const method of METHODS.filter((candidate) => !declared.has(candidate))) {
        const response = await call(app().url, method, path, { headers: { 'content-type': 'application/json' } });
        expect(response.status, `${method} ${path}: ${response.text}`).to.equal(405);
        expect(allowOf(response.headers.get('allow')), `${method} ${path}`).to.deep.equal([...declared].sort());
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked.length).to.be.greaterThan(65);
  });

  it('answers HEAD wherever GET: the same status and headers, no content (a stream is not opened)', async () => {
    const caller = await engineCaller(app());
    for (const path of ['/traces/live', '/traces/live/stream', '/openapi/engine.json']) {
      const got = await fetch(new URL(path, app().url), { headers: caller.headers });
      const head = await fetch(new URL(path, app().url), { method: 'HEAD', headers: caller.headers });
      expect(head.status, path).to.equal(got.status);
      expect(head.headers.get('content-type'), path).to.equal(got.headers.get('content-type'));
      expect(await head.text(), path).to.equal('');
      await got.body?.cancel();
    }
    // Access checks run as for GET.
    const refused = await fetch(new URL('/traces/live', app().url), { method: 'HEAD', headers: { 'X-Vendor-App-Id': caller.appId } });
    expect(refused.status).to.equal(401);
  });
});
