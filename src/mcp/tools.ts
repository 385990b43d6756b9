// The MCP tools, derived from the documents: one per operation marked `x-mcp-tool: true`, which
// must be a read (every permission it asks for is a `read:` one, and its 200 answers JSON), named
// by its operationId, with an input schema holding the operation's parameters by name and its
// request body as `body`. The mark, not the method, says an operation only reads: a POST may be
// a query (querySpans) or a change (cancelling an export). Nothing here is written by hand per
// operation, so a change to a document changes the tools.
import type { Document } from 'openapi-backend';

const METHODS = ['get', 'post'] as const;

type JsonObject = Record<string, unknown>;

export interface ToolParameter {
  name: string;
  in: 'path' | 'query' | 'header';
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonObject & { type: 'object' };
  method: 'GET' | 'POST';
  /** The path template, e.g. `/traces/{trace_id}`. */
  path: string;
  parameters: ToolParameter[];
  hasBody: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` (`#/components/...`) to its object. */
function resolve(document: Document, value: unknown): JsonObject {
  if (!isObject(value) || typeof value.$ref !== 'string') return value as JsonObject;
  const target = value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (isObject(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
  if (!isObject(target)) throw new Error(`unresolvable $ref ${value.$ref}`);
  return resolve(document, target);
}

const SCHEMA_REF = /^#\/components\/schemas\/(.+)$/;

/**
 * A copy of `schema` whose component references point at `$defs` (kept as references, since the
 * filter tree refers to itself), with the names of the component schemas it reaches added to `reached`.
 */
function rewriteRefs(schema: unknown, reached: Set<string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rewriteRefs(item, reached));
  if (!isObject(schema)) return schema;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    const match = key === '$ref' && typeof value === 'string' ? SCHEMA_REF.exec(value) : null;
    if (match) {
      reached.add(match[1]);
      copy.$ref = `#/$defs/${match[1]}`;
    } else copy[key] = rewriteRefs(value, reached);
  }
  return copy;
}

/** The component schemas `reached` refers to, transitively, under their names. */
function definitions(document: Document, reached: Set<string>): JsonObject {
  const schemas = (document.components?.schemas ?? {}) as JsonObject;
  const defs: JsonObject = {};
  const pending = [...reached];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in defs) continue;
    const more = new Set<string>();
    defs[name] = rewriteRefs(schemas[name], more);
    pending.push(...[...more].filter((next) => !(next in defs)));
  }
  return defs;
}

/** Whether an operation only reads (its permissions are all `read:`) and answers JSON. */
export function isReadOperation(document: Document, operation: JsonObject): boolean {
  const security = (operation.security ?? document.security ?? []) as Array<Record<string, string[]>>;
  const permissions = security.flatMap((requirement) => Object.values(requirement).flat());
  if (permissions.length === 0 || !permissions.every((permission) => permission.startsWith('read:'))) return false;
  const ok = isObject(operation.responses) ? resolve(document, operation.responses['200']) : undefined;
  return isObject(ok?.content) && 'application/json' in ok.content;
}

function describe(operation: JsonObject): string {
  return [operation.summary, operation.description]
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .map((part) => part.trim())
    .join('\n\n');
}

/** The mark that makes an operation a tool. */
export const TOOL_MARK = 'x-mcp-tool';

/** The tools of a document (as parsed, with its `$ref`s); throws at a marked operation that is not a read. */
export function documentTools(document: Document): McpTool[] {
  const tools: McpTool[] = [];
  for (const [path, rawItem] of Object.entries(document.paths ?? {})) {
    const item = resolve(document, rawItem);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation) || operation[TOOL_MARK] !== true) continue;
      if (typeof operation.operationId !== 'string' || !isReadOperation(document, operation))
        throw new Error(`${method.toUpperCase()} ${path} is marked ${TOOL_MARK} but is not a read operation answering JSON`);
      const reached = new Set<string>();
      const properties: JsonObject = {};
      const required: string[] = [];
      const parameters: ToolParameter[] = [];
      const declared = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])];
      for (const raw of declared) {
        const parameter = resolve(document, raw);
        const where = parameter.in as string;
        if (where !== 'path' && where !== 'query' && where !== 'header') continue;
        const name = parameter.name as string;
        const schema = rewriteRefs(parameter.schema ?? {}, reached) as JsonObject;
        properties[name] = typeof parameter.description === 'string' ? { ...schema, description: parameter.description.trim() } : schema;
        if (parameter.required === true) required.push(name);
        parameters.push({ name, in: where });
      }
      const requestBody = operation.requestBody === undefined ? undefined : resolve(document, operation.requestBody);
      const content = requestBody && isObject(requestBody.content) ? requestBody.content['application/json'] : undefined;
      const hasBody = isObject(content);
      if (hasBody) {
        properties.body = rewriteRefs(content.schema ?? {}, reached);
        if (requestBody?.required === true) required.push('body');
      }
      const inputSchema: McpTool['inputSchema'] = { type: 'object', properties, required };
      if (reached.size > 0) inputSchema.$defs = definitions(document, reached);
      tools.push({
        name: operation.operationId,
        description: describe(operation),
        inputSchema,
        method: method.toUpperCase() as McpTool['method'],
        path,
        parameters,
        hasBody,
      });
    }
  }
  return tools;
}
