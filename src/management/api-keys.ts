// API key operations: createApiKey, listApiKeys, getApiKey, updateApiKey, rotateApiKeySecret,
// deleteApiKey. Only create and rotate ever answer a secret.
import * as apiKeys from '../accounts/api-keys.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { NotFoundError } from '../errors.js';
import { API_KEY_ORDER, findActiveApiKey, listApiKeys as listApiKeyRows, type ApiKeyRecord } from '../storage/accounts/api-keys.js';
import { toIso, toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';

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

export function createApiKey({ knex }: ServiceDeps): OperationHandler<operations['createApiKey']> {
  return async (request) => {
    const input = request.body;
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

export function listApiKeys({ knex }: ServiceDeps): OperationHandler<operations['listApiKeys']> {
  return async (request) => {
    const { query } = request;
    const page = pageRequest(request, API_KEY_ORDER, [query.app_id]);
    const found = await listApiKeyRows(knex, query.app_id, page);
    const body: Schemas['ApiKeyList'] = { data: found.items.map(apiKeyBody), pagination: pagination(page, found.total), next_cursor: nextCursor(page.position, found.nextKey) };
    return { status: 200, body };
  };
}

export function getApiKey({ knex }: ServiceDeps): OperationHandler<operations['getApiKey']> {
  return async (request) => {
    const key = await findActiveApiKey(knex, request.params.api_key);
    if (!key) throw new NotFoundError(apiKeys.API_KEY_NOT_FOUND);
    return { status: 200, body: apiKeyBody(key) };
  };
}

export function updateApiKey({ knex }: ServiceDeps): OperationHandler<operations['updateApiKey']> {
  return async (request) => {
    const changes = request.body;
    const key = await apiKeys.updateApiKey(knex, request.params.api_key, { name: changes.name, permissions: changes.permissions });
    const body: Schemas['ApiKeyUpdated'] = {
      api_key: key.id,
      name: key.name,
      permissions: key.permissions as AssignablePermission[],
      updated_at: toIsoRequired(key.updated_at),
    };
    return { status: 200, body };
  };
}

export function rotateApiKeySecret({ knex }: ServiceDeps): OperationHandler<operations['rotateApiKeySecret']> {
  return async (request) => {
    const apiKey = request.params.api_key;
    const rotated = await apiKeys.rotateApiKeySecret(knex, apiKey);
    const body: Schemas['ApiKeySecretRotated'] = { api_key: apiKey, api_secret: rotated.secret, rotated_at: toIsoRequired(rotated.rotatedAt) };
    return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
  };
}

export function deleteApiKey({ knex }: ServiceDeps): OperationHandler<operations['deleteApiKey']> {
  return async (request) => {
    const deleted = await apiKeys.deleteApiKey(knex, request.params.api_key);
    const body: Schemas['ApiKeyDeleted'] = { message: 'API key deleted', deleted_at: toIsoRequired(deleted.deletedAt) };
    return { status: 200, body };
  };
}
