// Every response a test receives is checked against the OpenAPI documents: the status code must
// be declared for the operation and the JSON body (each line of an NDJSON body) must match its
// schema (a 206's byte range is checked for its status only). No feature can drift from the
// documents unnoticed.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenAPIBackend, Operation } from 'openapi-backend';
import { cloneDefinition, loadDocument } from '../../src/api/documents.js';
import { createOpenApiBackend } from '../../src/api/openapi-backend.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

let backends: Promise<OpenAPIBackend[]> | undefined;

async function loadBackends(): Promise<OpenAPIBackend[]> {
  const built = (['engine', 'management'] as const).map(async (name) => {
    const backend = createOpenApiBackend({ definition: cloneDefinition(loadDocument(name)), coerceRequests: false });
    await backend.init();
    return backend;
  });
  return Promise.all(built);
}

function declaredResponse(operation: Operation, status: number): unknown {
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

const NDJSON = 'application/x-ndjson';
const ndjsonValidators = new Map<unknown, ValidateFunction>();

/** openapi-backend validates application/json bodies only: an NDJSON line is checked against its schema here. */
function ndjsonValidator(declared: unknown): ValidateFunction | undefined {
  const schema = (declared as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.[NDJSON]?.schema;
  if (schema === undefined) return undefined;
  let validate = ndjsonValidators.get(schema);
  if (validate === undefined) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (instance: Ajv2020) => void)(ajv);
    validate = ajv.compile(schema as object);
    ndjsonValidators.set(schema, validate);
  }
  return validate;
}

/**
 * Throws when the response is not what the document declares for this method and path.
 * Returns the operationId it was checked against (undefined for routes outside the documents).
 */
export async function assertMatchesContract(method: string, path: string, response: ApiResponse): Promise<string | undefined> {
  backends ??= loadBackends();
  for (const backend of await backends) {
    const operation = backend.router.matchOperation({ method, path: path.split('?')[0] as string, headers: {} });
    if (!operation) continue;
    const where = `${method} ${path} (${operation.operationId}) answered ${response.status}`;
    if (!declaredResponse(operation, response.status)) {
      throw new Error(`${where}, a status the document does not declare: ${response.text.slice(0, 300)}`);
    }
    const contentType = response.headers.get('content-type') ?? '';
    // A 206 is a byte range of the representation: its first and last lines may be cut.
    if (contentType.startsWith(NDJSON) && response.status === 206) return operation.operationId;
    if (contentType.startsWith(NDJSON)) {
      const validate = ndjsonValidator(declaredResponse(operation, response.status));
      if (validate === undefined) throw new Error(`${where} with ${NDJSON}, a media type the document does not declare`);
      response.text
        .split('\n')
        .filter((line) => line !== '')
        .forEach((line, index) => {
          if (!validate(JSON.parse(line)))
            throw new Error(
              `${where}: NDJSON line ${index + 1} does not match the document: ${JSON.stringify(validate.errors?.slice(0, 5))}`,
            );
        });
      return operation.operationId;
    }
    if (!contentType.includes('application/json')) return operation.operationId;
    const result = backend.validator.validateResponse(response.body, operation, response.status);
    if (result.errors?.length) {
      throw new Error(
        `${where} with a body that does not match the document: ${JSON.stringify(result.errors.slice(0, 5))}\nbody: ${response.text.slice(0, 500)}`,
      );
    }
    return operation.operationId;
  }
  return undefined;
}

export interface DocumentOperation {
  operationId: string;
  method: string;
  path: string;
  operation: Operation;
}

/** Every operation of both documents, dereferenced, read from the documents themselves. */
export async function documentOperations(): Promise<DocumentOperation[]> {
  backends ??= loadBackends();
  return (await backends).flatMap((backend) =>
    backend.getOperations().map((operation) => ({
      operationId: operation.operationId as string,
      method: operation.method.toUpperCase(),
      path: operation.path,
      operation,
    })),
  );
}

/** Every operationId of both documents, read from the documents themselves. */
export async function allOperationIds(): Promise<string[]> {
  backends ??= loadBackends();
  return (await backends).flatMap((backend) => backend.getOperations().map((operation) => operation.operationId as string));
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  json?: unknown;
  rawBody?: string | Uint8Array;
  token?: string;
}

/** One HTTP call to the running app; the response is checked against the documents before it is returned. */
export async function call<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const url = new URL(path, baseUrl);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.includes('json') && !contentType.startsWith(NDJSON) && text !== '') parsed = JSON.parse(text);
  const result: ApiResponse<T> = { status: response.status, headers: response.headers, body: parsed as T, text };
  await assertMatchesContract(method, url.pathname, result);
  return result;
}
