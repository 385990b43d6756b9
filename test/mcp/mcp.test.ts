// POST /mcp on every database, with the SDK's own client: the tools are the engine document's read
// operations, and a tool call answers exactly what the API answers for the same request.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OPENAPI_DIR } from '../../src/api/documents.js';
import { storeSpans } from '../../src/storage/spans/writes/span-writer.js';
import { apiKeyToken, seedApiKey, seedApplication, seedOrganization, seedUser } from '../support/accounts.js';
import { engineCaller, type EngineCaller } from '../support/auth.js';
import { call } from '../support/contract.js';
import { nanosToRfc3339 } from '../support/engine-helpers.js';
import { spanRow } from '../support/span-rows.js';
import { onEachDatabase } from '../support/test-server.js';

type Json = Record<string, any>;

const BASE = 1_763_800_000_000_000_000n;
const SECOND = 1_000_000_000n;
const WINDOW = { start_time: nanosToRfc3339(BASE), end_time: nanosToRfc3339(BASE + 3600n * SECOND) };

interface ToolOperation {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: string; required: boolean }>;
  hasBody: boolean;
  /** The request body's example in the document, {} without one. */
  body: Json;
}

/** The operations both documents mark `x-mcp-tool: true`, checked to be reads (only `read:` permissions, a JSON 200). */
function toolOperations(): Map<string, ToolOperation> {
  const operations = new Map<string, ToolOperation>();
  for (const file of ['engine.yaml', 'management.yaml']) {
    const document = parse(fs.readFileSync(path.join(OPENAPI_DIR, file), 'utf8')) as Json;
    const deref = (value: Json): Json =>
      value.$ref
        ? deref(
            value.$ref
              .slice(2)
              .split('/')
              .reduce((node: Json, key: string) => node[key], document),
          )
        : value;
    for (const [route, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (method === 'parameters' || operation?.['x-mcp-tool'] !== true) continue;
        const permissions = (operation.security as Json[]).flatMap((requirement) => Object.values(requirement).flat()) as string[];
        expect(
          permissions.every((permission) => permission.startsWith('read:')),
          operation.operationId,
        ).to.equal(true);
        expect(deref(operation.responses['200']).content, operation.operationId).to.have.property('application/json');
        const parameters = ([...((item as Json).parameters ?? []), ...(operation.parameters ?? [])] as Json[])
          .map(deref)
          .map((parameter) => ({
            name: parameter.name as string,
            in: parameter.in as string,
            required: parameter.required === true,
          }));
        const body = operation.requestBody && deref(operation.requestBody).content?.['application/json'];
        operations.set(operation.operationId, {
          method: method.toUpperCase(),
          path: route,
          parameters,
          hasBody: body !== undefined,
          body: body?.example ?? {},
        });
      }
    }
  }
  return operations;
}

onEachDatabase('POST /mcp', (app) => {
  let caller: EngineCaller;
  let stranger: EngineCaller;
  const clients: Client[] = [];

  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'spanledger-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app().url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  const parsed = (result: Awaited<ReturnType<Client['callTool']>>) => {
    const { content } = result as CallToolResult;
    expect(content[0]?.type).to.equal('text');
    const body = JSON.parse((content[0] as { text: string }).text) as unknown;
    expect(result.structuredContent).to.deep.equal(body);
    return body;
  };

  before(async () => {
    caller = await engineCaller(app());
    stranger = await engineCaller(app(), ['read:traces']);
    const at = (seconds: number) => (BASE + BigInt(seconds) * SECOND).toString();
    await storeSpans(
      app().server.knex,
      [1, 2, 3].map((n) =>
        spanRow({
          application_id: caller.appId,
          trace_id: String(n).padEnd(32, '0'),
          span_id: String(n).padStart(16, '0'),
          start_time_unix_nano: at(n * 10),
          end_time_unix_nano: at(n * 10 + 1),
          span_name: `span-${n}`,
          cost: n * 0.25,
        }),
      ),
    );
  });

  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  it('lists one read-only tool per operation the documents mark x-mcp-tool, with its parameters', async () => {
    const client = await connect({ Authorization: caller.headers.Authorization as string });
    const { tools } = await client.listTools();
    const operations = toolOperations();
    expect(tools.map((tool) => tool.name).sort()).to.deep.equal([...operations.keys()].sort());
    expect(tools.map((tool) => tool.name)).to.include.members(['querySpans', 'listTraces', 'getTrace', 'getOrganizationSpend']);
    expect(tools.map((tool) => tool.name)).to.not.include('exportTraces');
    for (const tool of tools) {
      const operation = operations.get(tool.name)!;
      expect(tool.annotations?.readOnlyHint, tool.name).to.equal(true);
      expect(tool.description, tool.name).to.be.a('string').and.not.equal('');
      const properties = Object.keys(tool.inputSchema.properties ?? {});
      expect(properties, tool.name).to.include.members(operation.parameters.map((parameter) => parameter.name));
      expect(properties.includes('body'), tool.name).to.equal(operation.hasBody);
      expect(tool.inputSchema.required, tool.name).to.include.members(operation.parameters.filter((p) => p.required).map((p) => p.name));
    }
  });

  it('answers every tool exactly as its operation, for a reader, another organization and a key without the permission', async function () {
    this.timeout(60_000);
    const knex = app().server.knex;
    // A member of an organization of its own (user-only operations included), the owner of another, and an API key that may only write.
    const member = await seedUser(app(), 'member');
    const organizationId = await seedOrganization(knex, [[member.userId, 'member']]);
    const applicationId = await seedApplication(knex, organizationId);
    const trace = { trace_id: '1'.padEnd(32, '0'), span_id: '1'.padStart(16, '0') };
    await storeSpans(knex, [
      spanRow({ application_id: applicationId, ...trace, start_time_unix_nano: String(BASE), end_time_unix_nano: String(BASE + SECOND) }),
    ]);
    const reader = { Authorization: `Bearer ${member.token}` };
    const outsider = await seedUser(app(), 'outsider');
    await seedApplication(knex, await seedOrganization(knex, [[outsider.userId, 'owner']]));
    const writer = { Authorization: `Bearer ${await apiKeyToken(app(), await seedApiKey(knex, applicationId, ['write:traces']))}` };
    // A value for every required parameter any tool has; a new one fails here until it is given.
    const values: Record<string, string> = {
      'X-Vendor-App-Id': applicationId,
      app_id: applicationId,
      org_id: organizationId,
      trace_id: trace.trace_id,
      ...WINDOW,
    };
    for (const [who, headers] of Object.entries({
      reader,
      stranger: { Authorization: `Bearer ${outsider.token}` },
      writer,
    })) {
      const client = await connect(headers);
      for (const [name, operation] of toolOperations()) {
        const args: Json = {};
        let route = operation.path;
        const query: Json = {};
        const apiHeaders: Record<string, string> = { ...headers };
        for (const parameter of operation.parameters.filter((p) => p.required)) {
          const value = values[parameter.name];
          expect(value, `${name}: a value for ${parameter.name}`).to.be.a('string');
          args[parameter.name] = value;
          if (parameter.in === 'path') route = route.replace(`{${parameter.name}}`, value as string);
          else if (parameter.in === 'query') query[parameter.name] = value;
          else apiHeaders[parameter.name] = value as string;
        }
        if (operation.hasBody) args.body = operation.body;
        const api = await call(app().url, operation.method, route, {
          query,
          headers: apiHeaders,
          json: operation.hasBody ? operation.body : undefined,
        });
        const result = await client.callTool({ name, arguments: args });
        const where = `${who} ${name}: ${api.status} ${api.text.slice(0, 200)}`;
        expect(result.isError === true, where).to.equal(api.status >= 300);
        expect(parsed(result), where).to.deep.equal(JSON.parse(api.text));
        if (who === 'reader') expect(api.status, where).to.equal(200);
        if (who === 'stranger') expect(api.status, where).to.equal(404);
        if (who === 'writer') expect(api.status, where).to.equal(403);
      }
    }
  });

  it('answers listTraces and querySpans with exactly the API answer', async () => {
    const client = await connect({ Authorization: caller.headers.Authorization as string });
    for (const [name, route] of [
      ['listTraces', '/traces'],
      ['querySpans', '/engine/query'],
    ] as const) {
      const query = { ...WINDOW, limit: 2 };
      const body = { filter: null };
      const api = await call(app().url, 'POST', route, { query, headers: caller.headers, json: body });
      expect(api.status, api.text).to.equal(200);
      const result = await client.callTool({ name, arguments: { ...query, 'X-Vendor-App-Id': caller.appId, body } });
      expect(result.isError, name).to.not.equal(true);
      expect(parsed(result), name).to.deep.equal(JSON.parse(api.text));
      // Two of three: the page's continuation comes through as the API gives it.
      expect((parsed(result) as Json).next_cursor, name).to.be.a('string');
    }
  });

  it("answers another organization's application with the API's problem, as an error", async () => {
    const client = await connect({ Authorization: stranger.headers.Authorization as string });
    const query = { ...WINDOW };
    const api = await call(app().url, 'POST', '/traces', {
      query,
      headers: { ...stranger.headers, 'X-Vendor-App-Id': caller.appId },
      json: { filter: null },
    });
    expect(api.status).to.equal(404);
    const result = await client.callTool({
      name: 'listTraces',
      arguments: { ...query, 'X-Vendor-App-Id': caller.appId, body: { filter: null } },
    });
    expect(result.isError).to.equal(true);
    expect(parsed(result)).to.deep.equal(JSON.parse(api.text));
  });

  it("answers an invalid request with the API's 422 problem", async () => {
    const client = await connect({ Authorization: caller.headers.Authorization as string });
    const api = await call(app().url, 'GET', `/traces/not-a-trace-id`, { headers: caller.headers });
    expect(api.status).to.equal(422);
    const result = await client.callTool({ name: 'getTrace', arguments: { trace_id: 'not-a-trace-id', 'X-Vendor-App-Id': caller.appId } });
    expect(result.isError).to.equal(true);
    expect(parsed(result)).to.deep.equal(JSON.parse(api.text));
  });

  it('answers a request without credentials, or with Basic ones, 401 as the API does', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spanledger-test', version: '1.0.0' } },
    };
    const response = await fetch(`${app().url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    const api = await call(app().url, 'POST', '/traces', { query: WINDOW, headers: { 'X-Vendor-App-Id': caller.appId }, json: {} });
    expect(api.status).to.equal(401);
    expect(response.status).to.equal(401);
    expect(response.headers.get('WWW-Authenticate')).to.equal(api.headers.get('WWW-Authenticate'));
    expect(await response.json()).to.deep.equal(JSON.parse(api.text));
    // Basic credentials: refused as the engine's read operations refuse them.
    const basic = { Authorization: `Basic ${Buffer.from('key:secret').toString('base64')}` };
    const basicMcp = await fetch(`${app().url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...basic },
      body: JSON.stringify(initialize),
    });
    const basicApi = await call(app().url, 'POST', '/traces', {
      query: WINDOW,
      headers: { 'X-Vendor-App-Id': caller.appId, ...basic },
      json: {},
    });
    expect(basicApi.status).to.equal(401);
    expect(basicMcp.status).to.equal(401);
    expect(basicMcp.headers.get('WWW-Authenticate')).to.equal(basicApi.headers.get('WWW-Authenticate'));
    expect(await basicMcp.json()).to.deep.equal(JSON.parse(basicApi.text));
    const client = new Client({ name: 'spanledger-test', version: '1.0.0' });
    let refused: unknown;
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app().url}/mcp`))).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).to.equal(401);
  });

  it('answers a body that is not JSON, or not JSON at all, without a 500', async () => {
    const post = (contentType: string, body: string) =>
      fetch(`${app().url}/mcp`, {
        method: 'POST',
        headers: { ...caller.headers, 'Content-Type': contentType, Accept: 'application/json, text/event-stream' },
        body,
      });
    const malformed = await post('application/json', '{"jsonrpc":');
    expect(malformed.status).to.equal(422);
    expect(((await malformed.json()) as Json).detail[0].type).to.equal('json_invalid');
    const text = await post('text/plain', 'hello');
    expect(text.status).to.equal(415);
  });

  it('answers GET and DELETE 405 with Allow: POST (a stateless server offers no stream and no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${app().url}/mcp`, { method, headers: caller.headers });
      expect(response.status, method).to.equal(405);
      expect(response.headers.get('Allow'), method).to.equal('POST');
    }
  });
});
