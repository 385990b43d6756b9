// Builds a valid request for any operation of the documents, from the documents themselves:
// path ids, required query parameters and headers (their examples where they name no resource),
// and the request body's own example, with the ids of the resources a test seeded put in their
// places.
import type { Operation } from 'openapi-backend';
import { operationAccess, type OperationAccess } from '../../src/auth/authorize.js';
import type { CallOptions, DocumentOperation } from './contract.js';

export interface ResourceIds {
  orgId: string;
  appId: string;
  apiKey: string;
  userId: string;
  /** A price entry of the organization; without one, `entry_id` names none that exists. */
  priceEntryId?: string;
  /** A re-pricing job of the application (test/support/accounts.ts, seedRepricingJob), where a test seeded one. */
  jobId?: string;
  /** A webhook endpoint of the organization, where a test seeded one. */
  webhookEndpointId?: string;
  /** A budget of the organization, where a test seeded one. */
  budgetId?: string;
  /** An export of the application (test/support/accounts.ts, seedExport), where a test seeded one. */
  exportId?: string;
}

export interface BuiltRequest {
  method: string;
  path: string;
  options: CallOptions;
}

const WINDOW: Record<string, string> = { start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z' };

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
}

/** A well-formed trace id: the trace itself need not exist (GET /traces/{trace_id} then answers 404 after every access check). */
export const SOME_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

function idFor(name: string, ids: ResourceIds): string | undefined {
  return (
    {
      org_id: ids.orgId,
      organization_id: ids.orgId,
      app_id: ids.appId,
      'x-vendor-app-id': ids.appId,
      api_key: ids.apiKey,
      user_id: ids.userId,
      job_id: ids.jobId,
      endpoint_id: ids.webhookEndpointId,
      budget_id: ids.budgetId,
      export_id: ids.exportId,
      // A budget's application (createBudget's body).
      application_id: ids.appId,
      trace_id: SOME_TRACE_ID,
      ...(ids.priceEntryId === undefined ? {} : { entry_id: ids.priceEntryId }),
    } as Record<string, string | undefined>
  )[name.toLowerCase()];
}

function bodyExample(operation: Operation, ids: ResourceIds): unknown {
  const content = (
    operation.requestBody as { content?: Record<string, { example?: unknown; examples?: Record<string, { value?: unknown }> }> } | undefined
  )?.content;
  const media = content?.['application/json'];
  // A body with named examples (createApiKey, updateApiKey) is sent as its first one.
  const example = media?.example ?? Object.values(media?.examples ?? {})[0]?.value;
  if (example === undefined || typeof example !== 'object' || example === null) return example;
  const body: Record<string, unknown> = structuredClone(example as Record<string, unknown>);
  for (const key of Object.keys(body)) {
    const id = idFor(key, ids);
    if (id !== undefined) body[key] = id;
  }
  if (typeof body.email === 'string') body.email = `${ids.userId.toLowerCase()}-${Date.now()}@example.com`;
  return body;
}

export function buildRequest(
  { method, path, operation }: DocumentOperation,
  ids: ResourceIds,
  extraQuery: Record<string, string> = {},
): BuiltRequest {
  const filledPath = path.replace(/\{(\w+)\}/g, (_, name: string) => idFor(name, ids) ?? `unknown_${name}`);
  const query: Record<string, string> = { ...extraQuery };
  const headers: Record<string, string> = {};
  for (const parameter of (operation.parameters ?? []) as Parameter[]) {
    // Optional headers that name a resource (X-Vendor-App-Id on ingestion) are sent too.
    const namesResource = parameter.in === 'header' && idFor(parameter.name, ids) !== undefined;
    if (!parameter.required && !namesResource && !(parameter.in === 'query' && parameter.name in WINDOW && path !== '/traces/live'))
      continue;
    // A required parameter that names no resource and no time is sent as the document's example.
    const example = parameter.required && typeof parameter.example === 'string' ? parameter.example : undefined;
    const value = idFor(parameter.name, ids) ?? WINDOW[parameter.name] ?? example;
    if (value === undefined) continue;
    if (parameter.in === 'query') query[parameter.name] = value;
    if (parameter.in === 'header') headers[parameter.name] = value;
  }
  const json = bodyExample(operation, ids);
  return { method, path: filledPath, options: { query, headers, ...(json === undefined ? {} : { json }) } };
}

export function accessOf(entry: DocumentOperation): OperationAccess | undefined {
  return operationAccess(entry.operation as never);
}

/** Whether the request names a resource of the organization (so another tenant must get 404). */
export function touchesResource(entry: DocumentOperation): boolean {
  const parameters = (entry.operation.parameters ?? []) as Parameter[];
  const named = parameters.some(
    (parameter) =>
      idFor(parameter.name, { orgId: 'o', appId: 'a', apiKey: 'k', userId: 'u' }) !== undefined &&
      (parameter.required || parameter.in === 'path'),
  );
  const body = bodyExample(entry.operation, { orgId: 'o', appId: 'a', apiKey: 'k', userId: 'u' }) as Record<string, unknown> | undefined;
  return named || entry.path.includes('{') || Boolean(body && ('organization_id' in body || 'app_id' in body));
}
