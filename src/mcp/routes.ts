// POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (a new server and
// transport per request, so any instance answers any request). A stateless server has no
// stream to offer nor session to end: GET and DELETE get the edge's 405 with `Allow: POST`,
// which the protocol provides for. The caller authenticates as for the engine API; each tool
// call then runs the API's operation with the same credentials.
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import type { Context } from 'koa';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Document } from 'openapi-backend';
import { AuthenticationError, authenticateAuthorization, type AuthenticationDeps } from '../auth/authenticate.js';
import { callTool } from './call-tool.js';
import { documentTools, type McpTool } from './tools.js';

export const MCP_PATH = '/mcp';

/** The origin the request arrived at: the service's own listener. */
function ownOrigin(ctx: Context): string {
  const { address, family, port } = ctx.socket.address() as AddressInfo;
  return `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
}

function unknownTool(name: string): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ detail: `Unknown tool ${name}` }) }], isError: true };
}

/** The tools of the documents served, by name; a name twice is a mistake in the documents. */
function toolsOf(documents: Document[]): Map<string, McpTool> {
  const byName = new Map<string, McpTool>();
  for (const tool of documents.flatMap(documentTools)) {
    if (byName.has(tool.name)) throw new Error(`two MCP tools are named ${tool.name}`);
    byName.set(tool.name, tool);
  }
  return byName;
}

/** `engineDocument` names the server's version; `more` (the management document, when served) adds its tools. */
export function mcpRoutes(engineDocument: Document, more: Document[], deps: AuthenticationDeps): Router {
  const version = engineDocument.info.version;
  const byName = toolsOf([engineDocument, ...more]);
  const tools = [...byName.values()];
  const listed = tools.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
    annotations: { readOnlyHint: true },
  }));

  const handle = async (ctx: Context) => {
    ctx.state.route = 'mcp';
    const authorization = ctx.get('Authorization');
    try {
      // Read operations take tokens only: Basic is refused here as the API refuses it.
      await authenticateAuthorization(authorization, deps, { acceptBasic: false });
    } catch (error) {
      if (error instanceof AuthenticationError) ctx.state.authFailure = error.reason;
      throw error;
    }
    // The JSON parser has read the body: one it could not read is answered as the API answers it.
    if (ctx.state.bodyFailure) throw ctx.state.bodyFailure;
    const origin = ownOrigin(ctx);
    const mcp = new McpServer({ name: 'spanledger', version }, { capabilities: { tools: {} } });
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
    mcp.server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = byName.get(request.params.name);
      if (!tool) return unknownTool(request.params.name);
      return callTool(tool, request.params.arguments ?? {}, origin, { authorization, requestId: ctx.state.requestId as string });
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    // The transport writes the answer itself.
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
  };

  const router = new Router();
  router.post(MCP_PATH, handle);
  return router;
}
