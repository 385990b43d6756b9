// API key operations: createApiKey, listApiKeys, getApiKey, updateApiKey, rotateApiKeySecret,
// deleteApiKey. Only create and rotate ever answer a secret.
import type { Context as OpenApiContext } from 'openapi-backend';
import * as apiKeys from '../accounts/api-keys.js';
import type { Reply } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import { findActiveApiKey, listApiKeys as listApiKeyRows, type ApiKeyRecord } from '../storage/accounts/api-keys.js';
import { toIso, toIsoRequired } from '../storage/time.js';
import { pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];
type AssignablePermission = Schemas['AssignablePermission'];

function apiKeyBody(key: ApiKeyRecord): Schemas['ApiKey'] {
  return {
    name: key.name,
    api_key: key.id,
    app_id: key.application_id,
    permissions: key.permissions as AssignablePermission[],
    created_at: toIsoRequired(key.created_at),
    updated_at: toIsoRequired(key.updated_at),
    last_used_at: toIso(key.last_used_at),
  };
}

function apiKeyOf(request: OpenApiContext): string {
  return (request.request.params as { api_key: string }).api_key;
}

export function createApiKey({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const input = request.request.requestBody as Schemas['ApiKeyCreate'];
    const { key, secret } = await apiKeys.createApiKey(knex, { applicationId: input.app_id, name: input.name, permissions: input.permissions });
    const body: Schemas['ApiKeyCreated'] = {
      name: key.name,
      api_key: key.id,
      api_secret: secret,
      app_id: key.application_id,
      permissions: key.permissions as AssignablePermission[],
      created_at: toIsoRequired(key.created_at),
    };
    return { status: 201, body, headers: { 'Cache-Control': 'no-store' } };
  };
}

export function listApiKeys({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const query = request.request.query as operations['listApiKeys']['parameters']['query'];
    const page = pageRequest(query);
    const found = await listApiKeyRows(knex, query.app_id, page.window);
    const body: Schemas['ApiKeyList'] = { data: found.items.map(apiKeyBody), pagination: pagination(page, found.total) };
    return { status: 200, body };
  };
}

export function getApiKey({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const key = await findActiveApiKey(knex, apiKeyOf(request));
    if (!key) throw new NotFoundError(apiKeys.API_KEY_NOT_FOUND);
    return { status: 200, body: apiKeyBody(key) };
  };
}

export function updateApiKey({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const changes = request.request.requestBody as Schemas['ApiKeyUpdate'];
    const key = await apiKeys.updateApiKey(knex, apiKeyOf(request), { name: changes.name, permissions: changes.permissions });
    const body: Schemas['ApiKeyUpdated'] = {
      api_key: key.id,
      name: key.name,
      permissions: key.permissions as AssignablePermission[],
      updated_at: toIsoRequired(key.updated_at),
    };
    return { status: 200, body };
  };
}

export function rotateApiKeySecret({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const apiKey = apiKeyOf(request);
    const rotated = await apiKeys.rotateApiKeySecret(knex, apiKey);
    const body: Schemas['ApiKeySecretRotated'] = { api_key: apiKey, api_secret: rotated.secret, rotated_at: toIsoRequired(rotated.rotatedAt) };
    return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
  };
}

export function deleteApiKey({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const deleted = await apiKeys.deleteApiKey(knex, apiKeyOf(request));
    const body: Schemas['ApiKeyDeleted'] = { message: 'API key deleted', deleted_at: toIsoRequired(deleted.deletedAt) };
    return { status: 200, body };
  };
}
