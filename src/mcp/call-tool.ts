// Answers a tool call with the service's own operation: an HTTP request to the address the MCP
// request arrived at, carrying the caller's Authorization, so authentication, permissions,
// application scoping, validation and answers are exactly the API's. The request carries the MCP
// request's X-Request-Id, so its access-log line and the MCP one are read together.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpTool } from './tools.js';

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Who calls: the MCP request's credentials and id. */
export interface ToolCaller {
  authorization: string;
  requestId: string;
}

/** The request of `tool` called with `args`, against `origin` (e.g. `http://127.0.0.1:8080`). */
export function toolRequest(tool: McpTool, args: Record<string, unknown>, origin: string, caller: ToolCaller): Request {
  let path = tool.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Authorization: caller.authorization,
    'X-Request-Id': caller.requestId,
  };
  for (const parameter of tool.parameters) {
    const value = args[parameter.name];
    if (value === undefined || value === null) continue;
    // The API validates every value; a path parameter is encoded so it stays one segment.
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(asText(value)));
    else if (parameter.in === 'query')
      for (const item of Array.isArray(value) ? value : [value]) query.append(parameter.name, asText(item));
    else headers[parameter.name] = asText(value);
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';
  const init: RequestInit = { method: tool.method, headers };
  if (tool.hasBody) {
    headers['Content-Type'] = 'application/json';
    // A body the caller left out is sent as `{}`: the API then answers what a missing member means.
    init.body = JSON.stringify(args.body ?? {});
  }
  return new Request(`${origin}${path}${search}`, init);
}

/** The API's answer as a tool result: its JSON body unchanged, `isError` for any status but 2xx. */
export async function callTool(tool: McpTool, args: Record<string, unknown>, origin: string, caller: ToolCaller): Promise<CallToolResult> {
  const response = await fetch(toolRequest(tool, args, origin, caller));
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const result: CallToolResult = { content: [{ type: 'text', text }] };
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) result.structuredContent = body as Record<string, unknown>;
  if (!response.ok) result.isError = true;
  return result;
}
