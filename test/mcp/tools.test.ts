// The tools of a document: only the operations marked x-mcp-tool, and never one that is not a read.
import { expect } from 'chai';
import type { Document } from 'openapi-backend';
import { documentTools } from '../../src/mcp/tools.js';

function documentWith(operation: Record<string, unknown>, marked: boolean): Document {
  const ok = { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } };
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1.0.0' },
    paths: {
      '/things/{thing_id}': {
        parameters: [{ name: 'thing_id', in: 'path', required: true, schema: { type: 'string' } }],
        post: { operationId: 'doThing', responses: { '200': ok }, ...operation, ...(marked ? { 'x-mcp-tool': true } : {}) },
      },
    },
  } as unknown as Document;
}

describe('MCP tools of a document', () => {
  it('makes a tool of a marked read, with the path-level parameters, and none of an unmarked one', () => {
    const read = { security: [{ bearerAuth: ['read:things'] }] };
    const [tool] = documentTools(documentWith(read, true));
    expect(tool).to.include({ name: 'doThing', method: 'POST', path: '/things/{thing_id}' });
    expect(tool?.inputSchema.required).to.deep.equal(['thing_id']);
    expect(documentTools(documentWith(read, false))).to.deep.equal([]);
  });

  it('refuses a marked operation that writes or answers no JSON', () => {
    expect(() => documentTools(documentWith({ security: [{ bearerAuth: ['write:things'] }] }, true))).to.throw(/not a read operation/);
    const csv = { description: 'ok', content: { 'text/csv': { schema: { type: 'string' } } } };
    expect(() => documentTools(documentWith({ security: [{ bearerAuth: ['read:things'] }], responses: { '200': csv } }, true))).to.throw(
      /not a read operation/,
    );
  });
});
