// Every 405 says which methods the path does support (`Allow`, RFC 9110 section 15.5.6), read
// from the same place the routing is: the documents and the operations router.
import { expect } from 'chai';
import { HttpMetrics } from '../../src/ops/metrics.js';
import { opsRoutes } from '../../src/ops/routes.js';
import { call, documentOperations } from '../support/contract.js';
import { onEachDatabase } from '../support/test-server.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A concrete request path for a route template: every parameter becomes a plausible value. */
function concrete(template: string): string {
  return template.replace(/\{[^}]+\}/g, 'x_1').replace(/:file\b/, 'swagger-ui.css').replace(/:[a-z_]+/gi, 'x_1');
}

function allowOf(header: string | null): string[] {
  return (header ?? '').split(',').map((method) => method.trim()).filter(Boolean).sort();
}

onEachDatabase('405 Method Not Allowed', (app) => {
  async function declaredMethods(): Promise<Map<string, Set<string>>> {
    const byPath = new Map<string, Set<string>>();
    const add = (path: string, method: string) => byPath.set(path, (byPath.get(path) ?? new Set()).add(method));
    for (const { path, method } of await documentOperations()) add(path, method);
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
});
